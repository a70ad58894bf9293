import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import Experiments

/// The experiments that test the articles' last untested claims, run for real (in the shared
/// run of the whole registry, at its scale): the order, what ran, and the ending each shows.
extension TimedRuns {
    @Suite struct SecondReadingRuns {
        @Test func aChainOfDependenciesRunsInOrderAndFreeOperationsOverlap() async throws {
            let run = try await TimedRuns.measured(dependenciesOrderAConcurrentQueue)
            let steps = Ordering.steps.compactMap(run.span)
            #expect(steps.count == 3)
            #expect(
                zip(steps, steps.dropFirst()).allSatisfy { $1.start >= $0.end - Overlap.touchingSeconds },
                "step 1, 2, 3, one after another")
            let free = Ordering.free.compactMap(run.span)
            #expect(Overlap.maximum(of: free.map { ($0.start, $0.end) }) >= 2, "without dependencies they overlap")
        }

        @Test func aCancelledOperationStaysInItsQueueUntilItFinishes() async throws {
            let run = try await TimedRuns.measured(cancelledStaysInQueue)
            #expect(
                run.outcome[StaysInQueue.afterCancel]?.stringArray == [
                    "operationCount: 2", "operations: [first, second]", "second: cancelled, ready",
                ])
            #expect(
                run.outcome[StaysInQueue.atTheEnd]?.stringArray == [
                    "operationCount: 0", "operations: []", "second: cancelled, finished",
                ])
            #expect(run.span(StaysInQueue.second) == nil, "its work never ran")
        }

        @Test func dialogsPopUpTogetherUnlessOneDependsOnTheOther() async throws {
            let run = try await TimedRuns.measured(dialogDependency)
            let together = Dialogs.together.compactMap(run.span), exclusive = Dialogs.exclusive.compactMap(run.span)
            #expect(together.count == 2 && exclusive.count == 2)
            #expect(Overlap.maximum(of: together.map { ($0.start, $0.end) }) == 2)
            #expect(exclusive[1].start >= exclusive[0].end - Overlap.touchingSeconds)
        }

        @Test func aWaitingUpdateLetsTheSerialQueueRunWhatCameAfterIt() async throws {
            let run = try await TimedRuns.measured(updateWaitsBehindBackground)
            #expect(run.startOrder.filter { $0 != Stutter.background } == Stutter.uiOperations + [Stutter.update])
            let background = try #require(run.span(Stutter.background)), update = try #require(run.span(Stutter.update))
            #expect(update.start >= background.end - Overlap.touchingSeconds)
        }

        @Test func anAsyncOperationCallingSuperStartStillWaitsForItsCallback() async throws {
            let run = try await TimedRuns.measured(asyncOperationSuperStart)
            let mainReturnedAt = try #require(run.outcome[SuperStart.mainReturnedAt]?.numberValue)
            let addition = try #require(run.span(Summing.workerLabel(SuperStart.pair)))
            let dependent = try #require(run.span(SuperStart.dependent))
            #expect(mainReturnedAt < addition.end)
            #expect(dependent.start >= addition.end - Overlap.touchingSeconds)
            #expect(run.outcome["result"] == .number(6))
        }

        @Test func anAlertOn003sAsyncOperationIsFinishedAsItIsShown() async throws {
            let run = try await TimedRuns.measured(alertFinishesAtOnce)
            let next = try #require(run.span(AlertAtOnce.next)), onScreen = try #require(run.span(AlertAtOnce.onScreen))
            #expect(next.start < onScreen.end, "its dependent started before OK")
            #expect(run.outcome[AlertAtOnce.whenOK]?.stringValue == "finished")
            #expect(run.output.map(\.text).last == "OK pressed")
        }

        @Test func anOperationThatFinishesSilentlyIsKeptByItsQueueForEver() async throws {
            let result = try await TimedRuns.reported(kvoCompliance)
            TimedRuns.requirePass(result)
            #expect(result.checks.contains { $0.description.hasPrefix("the child hung") && $0.passed })
            let run = try #require(result.measurement)
            #expect(run.span(KVO.afterCompliant) != nil)
            #expect(run.span(KVO.afterSilent) == nil)
            #expect(
                run.outcome[KVO.atOneSecond]?.stringArray?.last
                    == "the queue holds: [\(KVO.silent), \(KVO.afterSilent)]")
            #expect(run.output.last?.text == "waitUntilAllOperationsAreFinished()…", "the wait never returned")
        }

        @Test func theMainThreadWaitingForTheMainQueueNeverReturnsAndForAPrivateQueueDoes() async throws {
            let result = try await TimedRuns.reported(mainQueueWait)
            TimedRuns.requirePass(result)
            #expect(result.checks.contains { $0.description.hasPrefix("the child hung") && $0.passed })
            let run = try #require(result.measurement)
            let privateQueue = try #require(run.span(MainWait.onPrivateQueue))
            #expect(
                privateQueue.thread != StartThread.experimentThread, "a pool thread ran the private queue's closure")
            #expect(run.outcome[MainWait.privateWaitReturned]?.stringArray == ["operationCount: 0"])
            #expect(
                run.outcome[MainWait.beforeTheMainWait]?.stringArray == [
                    "isMainThread: true", "operationCount: 1", "executing: 0",
                ])
            #expect(run.span(MainWait.onMainQueue) == nil)
            #expect(
                run.output.last?.text == "OperationQueue.main.waitUntilAllOperationsAreFinished()…",
                "the wait never returned")
        }

        @Test func theMainQueueAsUnderlyingQueueWaitsForTheMainThread() async throws {
            let run = try await TimedRuns.measured(underlyingMainQueue)
            #expect(run.outcome[MainUnderlying.whileBusy]?.stringArray == ["operationCount: 2", "executing: 0"])
            #expect(
                run.outcome[MainUnderlying.seenInside]?.stringArray == [
                    "closure 1: isMainThread true", "closure 2: isMainThread true",
                ])
            let spans = MainUnderlying.closures.compactMap(run.span)
            #expect(spans.count == 2 && spans.allSatisfy { $0.thread == StartThread.experimentThread })
            #expect(Overlap.maximum(of: spans.map { ($0.start, $0.end) }) == 1)
        }
    }
}

/// The plans the lab reads from these experiments' objects.
@Suite(.serialized, .oneAtATime) struct SecondReadingPlans {
    @Test func theSilentOperationIsPlannedNeverToFinishAndItsDependentNeverToStart() {
        let plan = kvoCompliance.workload()
        #expect(plan.operations.first { $0.label == KVO.silent }?.work == .neverFinishes)
        #expect(plan.operations.first { $0.label == KVO.compliant }?.work == .timer)
        let prediction = Scheduler.predict(plan, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        let afterSilent = plan.operations.firstIndex { $0.label == KVO.afterSilent }
        #expect(afterSilent.map { prediction.nominal.spans[$0] == nil } == true)
    }

    @Test func theAlertIsPlannedToFinishAtOnceWithItsDialogOutlivingIt() throws {
        let plan = alertFinishesAtOnce.workload()
        let prediction = Scheduler.predict(plan, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        let spans = prediction.nominal.spans.compactMap { $0 }
        let next = try #require(spans.first { $0.label == AlertAtOnce.next }),
            onScreen = try #require(spans.first { $0.label == AlertAtOnce.onScreen })
        #expect(next.start == 0 && onScreen.end == AlertAtOnce.secondsUntilOK)
    }

    @Test func theMainQueuesClosureIsPlannedNeverToStartInBothProfiles() throws {
        let plan = mainQueueWait.workload()
        #expect(plan.unmodelled.isEmpty, "an article's main queue is planned, not left out")
        let onMain = try #require(plan.operations.firstIndex { $0.label == MainWait.onMainQueue })
        for kind in PlatformProfile.Kind.allCases {
            let prediction = Scheduler.predict(plan, profile: PlatformProfile(kind: kind, cpus: 2), timeScale: 1)
            #expect(prediction.nominal.spans[onMain] == nil, "\(kind): the main queue's closure never starts")
            #expect(prediction.nominal.hangs, "\(kind)")
            let privateQueue = try #require(
                prediction.nominal.spans.compactMap { $0 }.first { $0.label == MainWait.onPrivateQueue })
            #expect(privateQueue.start == 0 && privateQueue.end == MainWait.seconds, "\(kind)")
        }
    }

    @Test func theUpdatePlanHasTheUIOperationsOnAWidthOneQueue() {
        let plan = updateWaitsBehindBackground.workload()
        #expect(plan.queues.map(\.maxConcurrentOperationCount) == [nil, 1])
        let prediction = Scheduler.predict(plan, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        #expect(
            prediction.nominal.spans.compactMap { $0 }.filter { $0.label != Stutter.background }.sorted {
                $0.start < $1.start
            }.map(\.label) == Stutter.uiOperations + [Stutter.update])
    }
}
