import ExperimentKit
import Foundation
import TestSupport
import Testing

@testable import ExperimentModel
@testable import Experiments

/// The experiments that test the articles' remaining claims, run for real (in the shared run of
/// the whole registry, at its scale): the order, what ran, and the ending each shows, asserted.
extension TimedRuns {
    @Suite struct ClaimsRuns {
        @Test func operationsReadyTogetherOnASerialQueueStartInQueuePriorityOrder() async throws {
            let run = try await TimedRuns.measured(queuePriorityOrder)
            let serial = run.startOrder.filter { $0 != Priorities.gate }
            // Typed part by part: as one expression of arrays and slices, it took seconds to type-check.
            let higher: [String] = Array(Priorities.highestFirst.prefix(3))
            let lower: [String] = Array(Priorities.highestFirst.suffix(2))
            let expected: [String] = [Priorities.first] + higher + [Priorities.interactive] + lower
            #expect(serial == expected)
            // Width 1: none of the seven on the serial queue overlap.
            let spans = ([Priorities.first] + Priorities.added).compactMap(run.span).sorted { $0.start < $1.start }
            #expect(spans.count == 7)
            #expect(zip(spans, spans.dropFirst()).allSatisfy { $1.start >= $0.end - Overlap.touchingSeconds })
            #expect(run.outcome["queuePriority read back"]?.stringArray?.last == "\(Priorities.interactive): normal")
        }

        @Test func aRemovedDependencyLeavesItsOperationWaitingOnLinux() async throws {
            let run = try await TimedRuns.measured(removeDependency)
            #expect(run.span(Removal.download) != nil)
            #expect(run.span(Removal.processing) == nil, "processing never started")
            #expect(run.outcome["after removeDependency"]?.stringArray == ["dependencies: 0", "processing: pending"])
            #expect(
                run.outcome["when the download has finished"]?.stringArray == [
                    "dependencies: 0", "processing: pending",
                ])
        }

        @Test func aPendingOperationAddedToASecondQueueTraps() async throws {
            let result = try await TimedRuns.reported(addToSecondQueue)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            #expect(
                result.checks.contains {
                    $0.description.hasPrefix("the child trapped")
                        && $0.description.contains("already in a queue cannot be enqueued") && $0.passed
                })
            #expect(
                run.outcome["held by the first queue"]?.stringArray == [
                    "operation: ready", "operations the first queue holds: 1",
                ])
            #expect(run.operations.isEmpty, "nothing ran")
            #expect(
                run.output.last?.text == "secondQueue.addOperation(operation)…", "nothing printed after the second add")
        }

        @Test func anAsyncOperationStartedByHandReturnsAtOnceAndTheCallerGoesOn() async throws {
            let run = try await TimedRuns.measured(asyncOperationByHand)
            let returnedAt = try #require(run.outcome[ByHand.returnedAt]?.numberValue)
            let addition = try #require(run.span(Summing.workerLabel(ByHand.pair)))
            let another = try #require(run.span(ByHand.anotherTask))
            // start() returned before the other task began, and both before the addition ended.
            #expect(returnedAt <= another.start + Overlap.touchingSeconds)
            #expect(another.end < addition.end)
            #expect(another.thread == StartThread.experimentThread && addition.thread != StartThread.experimentThread)
            #expect(run.outcome["right after start() returned"]?.stringValue == "executing")
            #expect(run.outcome["result"] == .number(6))
        }

        @Test func anOperationThatSaysItIsAsynchronousRunsOnTheMainThreadThatStartedIt() async throws {
            let run = try await TimedRuns.measured(isAsynchronousThread)
            #expect(run.span(StartThread.byHand)?.thread == StartThread.experimentThread)
            #expect(run.outcome["isAsynchronous"] == .bool(true))
            #expect(run.outcome["inside the operation"]?.stringArray == ["isMainThread: true"])
            #expect(run.outcome["finished when start() returned"] == .bool(true))
        }

        @Test func aCancelledDependencyFinishesWithoutItsWorkAndItsDependentRuns() async throws {
            let run = try await TimedRuns.measured(dependentOfCancelled)
            #expect(run.span(CancelledDependency.download) == nil, "the download's work never ran")
            let first = try #require(run.span(CancelledDependency.first)),
                processing = try #require(run.span(CancelledDependency.processing))
            #expect(processing.start >= first.end - Overlap.touchingSeconds)
            #expect(
                run.outcome["right after the cancel"]?.stringArray == [
                    "download: cancelled, ready", "processing: pending",
                ])
            #expect(run.outcome["what processing found"]?.stringArray == ["download: cancelled, finished"])
            // On an idle queue, a cancelled operation whose dependency still runs finishes at once.
            #expect(run.span(CancelledDependency.waiting) == nil, "the cancelled operation's work never ran")
            #expect(
                run.outcome["when the cancelled one had finished"]?.stringArray == [
                    "waiting: cancelled, finished", "unfinished: executing",
                ])
            let finishedAt = try #require(run.outcome[CancelledDependency.waitingFinishedAt]?.numberValue)
            #expect(finishedAt < (try #require(run.span(CancelledDependency.unfinished))).end)
        }

        @Test func theSimplifiedImageProviderStartsAsCreatedAndACancelledOneDeliversNothing() async throws {
            let run = try await TimedRuns.measured(simpleImageProvider)
            #expect(
                run.outcome["arrived"]?.stringArray?.sorted() == [SimpleProvider.title(1), SimpleProvider.title(2)])
            let loads = SimpleProvider.images.indices.compactMap {
                run.span(SimpleImageProvider.labels(SimpleProvider.title($0))[0])
            }
            let cancelledAt = try #require(run.output.first { $0.text.hasPrefix("cancel()") }?.at)
            #expect(
                loads.count == 3 && loads.allSatisfy { $0.start < cancelledAt },
                "every load started before the cancel, with no start()")
            for index in SimpleProvider.images.indices.dropFirst() {
                let labels = SimpleImageProvider.labels(SimpleProvider.title(index))
                let chain = labels.compactMap(run.span)
                #expect(chain.count == 3, "\(labels[0]): load, filter and output ran")
                #expect(
                    zip(chain, chain.dropFirst()).allSatisfy { $1.start >= $0.end - Overlap.touchingSeconds },
                    "in chain order")
            }
            let cancelled = SimpleImageProvider.labels(SimpleProvider.title(0))
            #expect(run.span(cancelled[0])?.cancelled == true)
            #expect(run.span(cancelled[1]) == nil && run.span(cancelled[2]) == nil)
        }

        @Test func operationQueueCurrentIsTheQueueThatRunsTheOperation() async throws {
            let run = try await TimedRuns.measured(operationQueueCurrent)
            #expect(
                run.outcome["OperationQueue.current inside each operation"]?.stringArray == [
                    CurrentQueue.its(CurrentQueue.download, CurrentQueue.downloadQueue),
                    CurrentQueue.its(CurrentQueue.filter, CurrentQueue.filterQueue),
                ])
            #expect(
                run.outcome["on the experiment's thread"]?.stringArray == [
                    "isMainThread: true", "OperationQueue.current is OperationQueue.main: true",
                ])
        }
    }
}

/// The plans the lab reads from these experiments' objects.
@Suite(.serialized, .oneAtATime) struct ClaimsPlans {
    @Test func thePriorityPlanHasThePrioritiesSetAndTheQualityOfServiceAlone() {
        let plan = queuePriorityOrder.workload()
        let waiting = plan.operations.filter { Priorities.added.contains($0.label) }
        #expect(waiting.map(\.queuePriority) == [-8, -4, nil, 4, 8, nil])
        #expect(waiting.last?.serviceClass == .userInteractive)
        #expect(plan.queues.map(\.maxConcurrentOperationCount) == [nil, 1])
    }

    @Test func aRemovedDependencyIsReadAsRemoved() throws {
        let plan = removeDependency.workload()
        let processing = try #require(plan.operations.first { $0.label == Removal.processing })
        #expect(processing.dependencies.isEmpty)
        #expect(processing.hasRemovedDependency)
        #expect(plan.operations.first { $0.label == Removal.download }?.hasRemovedDependency == false)
    }

    @Test func anAsyncOperationStartedByHandIsPlannedOnTheCallersThreadWithItsDeclaredWork() {
        let plan = asyncOperationByHand.workload()
        #expect(plan.operations.map(\.label) == [Summing.label(ByHand.pair), ByHand.anotherTask])
        #expect(plan.operations.allSatisfy { $0.executor == .blockOperationBlock })
        #expect(
            plan.operations[0].work == .handedToPool(.default) && plan.operations[0].articleSeconds == asyncAddSeconds)
        // The caller's thread is free at once: the other task starts with the addition.
        let prediction = Scheduler.predict(plan, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        #expect(prediction.nominal.spans.map { $0?.start } == [0, 0])
        #expect(prediction.nominal.spans[1]?.lane == 0 && prediction.nominal.spans[0]?.lane != 0)
    }

    @Test func theSecondAddIsNotPlannedAgain() {
        let plan = addToSecondQueue.workload()
        #expect(plan.operations.map(\.label) == [SecondQueue.label])
        #expect(plan.queues.map(\.startsSuspended) == [true])
    }

    @Test func theCancelOfThePendingDependencyIsPlannedAtItsInstant() {
        let plan = dependentOfCancelled.workload()
        let download = plan.operations.firstIndex { $0.label == CancelledDependency.download }
        let waiting = plan.operations.firstIndex { $0.label == CancelledDependency.waiting }
        #expect(
            plan.cancellations == [
                PlannedCancellation(atArticleSeconds: CancelledDependency.cancelAt, target: .operation(download ?? -1)),
                PlannedCancellation(
                    atArticleSeconds: CancelledDependency.idleCaseStart + CancelledDependency.cancelAt,
                    target: .operation(waiting ?? -1)),
            ])
    }

    @Test func eachSimplifiedProviderIsAChainOfThreeOnAQueueThatIsNotSuspended() {
        let plan = simpleImageProvider.workload()
        #expect(plan.queues.count == 3)
        #expect(plan.queues.allSatisfy { !$0.startsSuspended && $0.maxConcurrentOperationCount == 2 })
        #expect(
            plan.operations.map(\.label)
                == SimpleProvider.images.indices.flatMap { SimpleImageProvider.labels(SimpleProvider.title($0)) })
        #expect(
            plan.operations.enumerated().allSatisfy { index, operation in
                index % 3 == 0
                    ? operation.work == .timer && operation.dependencies.isEmpty : operation.dependencies == [index - 1]
            })
        #expect(
            plan.cancellations == [PlannedCancellation(atArticleSeconds: SimpleProvider.cancelAt, target: .queue(0))])
    }
}
