import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import Experiments

/// Experiments for more of the articles' claims, run for real; what each shows is asserted, not only reported.
extension TimedRuns {
    @Suite struct MissingExperimentsRuns {
        @Test func serialQueueStartsTheNinthFirstBecauseItIsReadyFirst() async throws {
            let run = try await TimedRuns.measured(serialQueueReadinessOrder)
            #expect(run.outcome["enqueueOrder"]?.stringArray == Readiness.labels)
            let serial = try #require(run.outcome["startOrder"]?.stringArray).filter { $0 != Readiness.gate }
            #expect(serial == ["operation 9"] + (1...8).map { "operation \($0)" })
            // Width 1: no two of the nine overlap.
            let spans = Readiness.labels.compactMap(run.span).sorted { $0.start < $1.start }
            #expect(spans.count == 9)
            #expect(zip(spans, spans.dropFirst()).allSatisfy { $1.start >= $0.end - Overlap.touchingSeconds })
        }

        @Test func anOperationsOwnQualityOfServiceOverridesTheQueues() async throws {
            let run = try await TimedRuns.measured(queueQualityOfService)
            // What this platform reports, beside the article's .background.
            #expect(run.outcome["queue's default qualityOfService"]?.stringValue == "default")
            #expect(
                run.outcome[QueueQoS.closureTakes]?.stringValue == "background",
                "Foundation gives a closure the queue's QoS")
            #expect(run.outcome[QueueQoS.ownKeeps]?.stringValue == "userInitiated")
            let own = try #require(run.span(QueueQoS.own)), fourth = try #require(run.span(QueueQoS.closures[3]))
            #expect(own.start < fourth.start, "added last, it started before the .background closure added ahead of it")
        }

        /// The platform difference and the expected outcome are checked from what the run measured: a
        /// queue that reported .background, or a closure that did not take the queue's QoS,
        /// fails its check.
        @Test func theQualityOfServiceChecksReadTheMeasurement() {
            func checks(newQueue: String, closure: String) -> [String: Bool] {
                let run = MeasuredRun(
                    totalSeconds: 0, operations: [], output: [],
                    outcome: Outcome([
                        Outcome.Field(QueueQoS.newQueue, .string(newQueue)),
                        Outcome.Field(QueueQoS.closureTakes, .string(closure)),
                        Outcome.Field(QueueQoS.ownKeeps, .string("userInitiated")),
                    ]))
                let prediction = Scheduler.predict(
                    queueQualityOfService.workload(), profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
                return Dictionary(
                    queueQualityOfService.checks(run, prediction).map { ($0.description, $0.passed) },
                    uniquingKeysWith: { $0 && $1 })
            }
            let linux = checks(newQueue: "default", closure: "background")
            #expect(linux.first { $0.key.hasPrefix("a new queue reports .default") }?.value == true)
            #expect(linux.first { $0.key.hasPrefix("a closure added") }?.value == true)
            #expect(
                checks(newQueue: "background", closure: "background").first { $0.key.hasPrefix("a new queue reports") }?
                    .value == false)
            #expect(
                checks(newQueue: "default", closure: "default").first { $0.key.hasPrefix("a closure added") }?.value
                    == false)
        }

        @Test func aDependencyOnAnotherQueueIsHonouredAndACycleAcrossQueuesNeverStarts() async throws {
            let run = try await TimedRuns.measured(crossQueueDependency)
            let download = try #require(run.span(CrossQueue.download)),
                processing = try #require(run.span(CrossQueue.processing))
            #expect(processing.start >= download.end - Overlap.touchingSeconds)
            #expect(download.thread != 0 && processing.thread != 0)
            #expect(run.outcome["A and B when processing has finished"]?.stringArray == ["A: pending", "B: pending"])
            #expect(run.span(CrossQueue.a) == nil && run.span(CrossQueue.b) == nil)
        }

        @Test func aSecondStartDoesNothingAndASecondAddTraps() async throws {
            let result = try await TimedRuns.reported(operationRunsOnce)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            #expect(result.checks.contains { $0.description.hasPrefix("the child trapped") && $0.passed })
            #expect(run.outcome["times its block ran"] == .number(1))
            #expect(run.outcome["after start() again"]?.stringValue == "finished")
            #expect(run.output.filter { $0.text == RunsOnce.label }.count == 1, "the block printed once")
            #expect(run.output.last?.text == "addOperation(operation) again…", "nothing printed after the second add")
        }

        @Test func startRunsOnTheCallersThreadByHandAndOnAnotherFromAQueue() async throws {
            let run = try await TimedRuns.measured(startThread)
            #expect(run.span(StartThread.byHand)?.thread == StartThread.experimentThread)
            let queued = try #require(run.span(StartThread.queued))
            #expect(queued.thread != StartThread.experimentThread)
            #expect(run.outcome["queued operation's isAsynchronous"] == .bool(true))
            #expect(run.outcome["finished when start() returned"] == .bool(true))
        }

        @Test func theHandOffRacesTheDependentAndSetStateSignalsTheNewKeyTwice() async throws {
            let result = try await TimedRuns.reported(completionBlockHandOff)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            // A race, read as one: the outcome that happened is one of the declared ones.
            let race = try #require(result.race, "not read as a race")
            #expect(race.possible == (0...3).map { "\($0) of 3 hand-offs in time" })
            let happened = try #require(race.happened)
            #expect(race.possible.contains(happened))
            #expect(result.deltaSeconds == nil)
            // What each processing operation found decides what it added.
            let found = try #require(run.outcome[HandOff.found]?.stringArray)
            #expect(found.count == 3)
            let handedOver = found.filter { $0.hasSuffix("the downloaded image") }.count
            #expect(found.filter { $0.hasSuffix("the placeholder") }.count == 3 - handedOver)
            #expect(happened == "\(handedOver) of 3 hand-offs in time")
            #expect(run.outcome[HandOff.processedImages] == .number(Double(handedOver)))
            for name in HandOff.imageNames {
                let download = try #require(run.span(HandOff.download(name))),
                    processing = try #require(run.span(HandOff.processing(name)))
                #expect(processing.start >= download.end - Overlap.touchingSeconds)
            }
            // setState: the old key's willChange never gets its didChange; the new key's gets two.
            #expect(
                run.outcome[HandOff.signals]?.stringArray == [
                    "willChange(isReady)", "willChange(isExecuting)", "didChange(isExecuting)",
                    "didChange(isExecuting)",
                    "willChange(isExecuting)", "willChange(isFinished)", "didChange(isFinished)",
                    "didChange(isFinished)",
                ])
        }
    }
}

/// The Lab's rehearsal of these experiments: the plan read from their objects.
@Suite(.serialized, .oneAtATime) struct MissingExperimentsPlans {
    @Test func theReadinessPlanHasTheGateOnAnotherQueue() {
        let plan = serialQueueReadinessOrder.makeWorkload(serialQueueReadinessOrder.defaultParameters)
        #expect(plan.operations.count == 10)
        let gate = plan.operations.firstIndex { $0.label == Readiness.gate }
        #expect(gate != nil)
        let nine = plan.operations.filter { Readiness.labels.contains($0.label) }
        #expect(nine.dropLast().allSatisfy { $0.dependencies == [gate!] })
        #expect(nine.last?.dependencies == [])
    }

    @Test func aSecondAddOrStartOfTheSameObjectIsNotPlannedAgain() {
        let plan = operationRunsOnce.makeWorkload(operationRunsOnce.defaultParameters)
        #expect(plan.operations.map(\.label) == [RunsOnce.label])
    }

    @Test func aCrossQueueDependencyIsInThePlan() {
        let plan = crossQueueDependency.makeWorkload(crossQueueDependency.defaultParameters)
        let download = plan.operations.firstIndex { $0.label == CrossQueue.download }
        let processing = plan.operations.first { $0.label == CrossQueue.processing }
        #expect(plan.queues.count == 2)
        #expect(download != nil && processing?.dependencies == [download!])
    }

    @Test func theHandOffPlanHasEachProcessingWaitingForItsDownload() {
        let plan = completionBlockHandOff.makeWorkload(completionBlockHandOff.defaultParameters)
        #expect(
            plan.operations.map(\.label)
                == HandOff.imageNames.flatMap { [HandOff.download($0), HandOff.processing($0)] })
        #expect(
            plan.operations.enumerated().allSatisfy { index, operation in
                index % 2 == 0
                    ? operation.work == .timer && operation.dependencies.isEmpty : operation.dependencies == [index - 1]
            })
        #expect(plan.queues.map(\.maxConcurrentOperationCount) == [2])
    }

    @Test func theSetStateRecordSplitsIntoTransitions() {
        let transitions = HandOff.transitions([
            "willChange(isReady)", "willChange(isExecuting)", "didChange(isExecuting)", "didChange(isExecuting)",
        ])
        #expect(transitions.count == 1 && transitions[0].signalsTheNewKeyTwice)
        // A correct pair (old key's didChange sent) is not mistaken for the article's.
        let paired = HandOff.transitions([
            "willChange(isReady)", "willChange(isExecuting)", "didChange(isReady)", "didChange(isExecuting)",
        ])
        #expect(paired.count == 1 && !paired[0].signalsTheNewKeyTwice)
    }
}
