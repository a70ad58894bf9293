import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation
import TestSupport
import Testing

@testable import Experiments

/// The operation types of articles 001 to 004's experiments, without timing: fast and certain.
@Suite(.serialized, .oneAtATime) struct MoreArticlesUnitTests {
    /// A context whose sleeps last nothing.
    static func instantContext() -> RunContext {
        RunContext(timeScale: 0, timeline: Timeline(clock: MonotonicClock()))
    }

    func cycle(_ graph: [String: [String]], from roots: [String]) -> [String]? {
        DependencyCycle.find(from: roots) { graph[$0] ?? [] }
    }

    @Test func cycleDetectorOnPlainGraphs() {
        #expect(
            cycle(["A": ["B", "C"], "B": ["C"], "C": []], from: ["A", "B", "C"]) == nil,
            "acyclic, with a shared dependency")
        #expect(cycle(["A": ["B"], "B": ["A"]], from: ["A", "B"]) == ["A", "B", "A"])
        #expect(cycle(["A": ["B"], "B": ["C"], "C": ["A"]], from: ["A", "B", "C"]) == ["A", "B", "C", "A"])
        #expect(cycle(["A": ["A"]], from: ["A"]) == ["A", "A"], "self-loop")
        #expect(
            cycle(["X": ["A"], "A": ["B"], "B": ["A"]], from: ["X"]) == ["A", "B", "A"],
            "the cycle only, not the path into it")
    }

    @Test func cycleDetectorOnOperations() {
        func named(_ name: String) -> Foundation.BlockOperation {
            let operation = Foundation.BlockOperation {}
            operation.name = name
            return operation
        }
        let (a, b, c) = (named("A"), named("B"), named("C"))
        b.addDependency(a)
        c.addDependency(b)
        #expect(DependencyCycle.names(in: [a, b, c]) == nil)
        a.addDependency(c)
        #expect(DependencyCycle.names(in: [a, b, c]) == ["A", "C", "B", "A"])
    }

    @Test func dependencyOperatorChainsLeftToRight() {
        let (first, second, third) = (
            Foundation.BlockOperation {}, Foundation.BlockOperation {}, Foundation.BlockOperation {}
        )
        let last = first ==> second ==> third
        #expect(last === third)
        #expect(first.dependencies.isEmpty)
        #expect(second.dependencies.map(ObjectIdentifier.init) == [ObjectIdentifier(first)])
        #expect(third.dependencies.map(ObjectIdentifier.init) == [ObjectIdentifier(second)])
    }

    /// Runs an experiment's code in a lab, its plan read by a rehearsal, with sleeps that last nothing.
    static func instantRun(_ experiment: Experiment) throws -> MeasuredRun {
        let context = instantContext()
        context.timeline.finish(outcome: try experiment.run(context, experiment.workload()))
        return try #require(context.timeline.measurement())
    }

    @Test func adapterCopiesTheDataWhenRunOnAQueue() throws {
        let plan = dataPassingAdapter.workload()
        let index = Dictionary(uniqueKeysWithValues: plan.operations.enumerated().map { ($1.label, $0) })
        let (op1, op2, adapter) = try (
            #require(index[DataPassing.op1]), #require(index[DataPassing.op2]), #require(index[DataPassing.adapter])
        )
        #expect(plan.operations[adapter].dependencies == [op1])
        #expect(plan.operations[op2].dependencies == [adapter])
        #expect(try Self.instantRun(dataPassingAdapter).outcome["Operation2 received"] == .string(DataPassing.data))
    }

    @Test func synchronisedErrorsKeepEveryReport() {
        let errors = SynchronisedErrors()
        DispatchQueue.dispatchConcurrentPerform(iterations: 100) {
            errors.finish(withError: [RequestError(request: "\($0)")])
        }
        #expect(errors.errors.count == 100)
    }

    @Test func helloWorldRunsHelloBeforeWorldAndFinishes() throws {
        let run = try Self.instantRun(operationObserverExperiment)
        #expect(run.outcome["isFinished when \"done\" printed"] == .bool(true))
        #expect(run.output.map(\.text) == HelloWorld.printed + ["done"])
        #expect(run.outcome["notifications observed"]?.stringArray?.last == "didChange(isFinished)")
    }
}

/// Articles 001 to 004's experiments, run for real; their outcomes asserted exactly.
extension TimedRuns {
    @Suite struct MoreArticlesRuns {
        @Test func dependentPairNeverOverlapsIndependentPairDoes() async throws {
            let run = try await TimedRuns.measured(dependentThreadReuse)
            #expect(run.startOrder.prefix(2) == ["operation 1", "operation 2"])
            // Two operations running at once cannot share a thread; which threads, is not asserted.
            #expect(run.outcome["independent pair ran on"]?.stringValue?.hasPrefix("2 threads") == true)
        }

        @Test func underlyingQueueRunsOnTheSuppliedQueueThenTraps() async throws {
            let result = try await TimedRuns.reported(underlyingQueueExperiment)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            #expect(result.checks.contains { $0.description.hasPrefix("the child trapped") && $0.passed })
            #expect(
                run.outcome["queue seen from inside"]?.stringArray
                    == Underlying.labels.map { "\($0): \(Underlying.suppliedLabel)" })
            #expect(
                run.output.last?.text.hasPrefix("underlyingQueue = another queue") == true,
                "the line after the assignment never printed")
        }

        @Test func queuedBlockOperationRunsItsBlocksInTurnOnOneWorker() async throws {
            let run = try await TimedRuns.measured(blockOperationThreeBlocks)
            #expect(run.output.map(\.text) == ThreeBlocks.tasks + [ThreeBlocks.completion])
            let threads = Set(ThreeBlocks.tasks.compactMap { run.span($0)?.thread })
            #expect(
                threads.count == 1 && !threads.contains(0),
                "one worker of the queue's pool, not the experiment's thread")
        }

        @Test func widthTwoRunsTheThirdOperationSecond() async throws {
            let run = try await TimedRuns.measured(maxTwoThreeOperations)
            #expect(Set(run.startOrder.prefix(2)) == Set(MaxTwo.labels.prefix(2)))
            #expect(run.startOrder.last == MaxTwo.labels[2])
        }

        @Test func dependencyOperatorOrdersLeftToRight() async throws {
            let run = try await TimedRuns.measured(dependencyOperator)
            #expect(run.startOrder == ChainedOperations.labels)
            #expect(
                run.outcome["dependencies set by ==>"]?.stringArray == [
                    "operation 3 after operation 2", "operation 2 after operation 1",
                ])
        }

        @Test func helloWorldGroupPrintsInOrder() async throws {
            let run = try await TimedRuns.measured(helloWorldGroup)
            #expect(run.output.map(\.text) == HelloWorld.printed)
            #expect(run.outcome["group isFinished after start() returned"] == .bool(true))
        }

        @Test func brokenGroupLosesOneErrorPerPairFixedKeepsAll() async throws {
            let run = try await TimedRuns.measured(groupErrorCollection)
            #expect(
                run.outcome["fixed group: errors kept"]?.stringArray?.sorted()
                    == ErrorCollection.requests(ErrorCollection.fixed))
            #expect(run.outcome["broken group: errors kept"]?.stringArray?.count == 2)
        }

        @Test func observerPrintsDoneWhenTheGroupFinishes() async throws {
            let run = try await TimedRuns.measured(operationObserverExperiment)
            #expect(run.output.map(\.text) == HelloWorld.printed + ["done"])
            #expect(
                run.outcome["notifications observed"]?.stringArray == [
                    "willChange(isReady)", "willChange(isExecuting)", "didChange(isReady)", "didChange(isExecuting)",
                    "willChange(isExecuting)", "willChange(isFinished)", "didChange(isExecuting)",
                    "didChange(isFinished)",
                ])
        }

        @Test func adapterPassesTheData() async throws {
            let run = try await TimedRuns.measured(dataPassingAdapter)
            #expect(run.outcome["Operation2 received"] == .string(DataPassing.data))
        }

        @Test func onlyTheFirstAlertShows() async throws {
            let run = try await TimedRuns.measured(mutualExclusivityByName)
            #expect(run.outcome["shown"]?.stringArray == [Alerts.first])
            #expect(run.outcome["cancelled, never shown"]?.stringArray == Alerts.duplicates)
            #expect(run.outcome["other names ran"]?.stringArray == [Alerts.syncStatus])
            #expect(run.outcome["cancelled by the first alert, found by name"]?.stringArray == Alerts.duplicates)
            #expect(
                run.output.map(\.text) == ["⚠️ \(Alerts.first): no connection", Alerts.syncStatus],
                "one dialog and the sync message")
            #expect(run.startOrder == [ConnectivityAlertOperation.alertName, Alerts.syncStatus])
        }

        @Test func dependencyCycleIsFoundThenHangs() async throws {
            let result = try await TimedRuns.reported(dependencyCycle)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            #expect(result.checks.contains { $0.description.hasPrefix("the child hung") && $0.passed })
            #expect(run.outcome["cycle found before enqueueing"]?.stringArray == ["A", "B", "A"])
            #expect(run.operations.map(\.label) == [Cycle.c], "A and B never started")
        }

        @Test func suspendedQueueHoldsBackTheSecondPair() async throws {
            let run = try await TimedRuns.measured(suspendedQueue)
            let resumedAt = try #require(run.outcome["resumedAtSeconds"]?.numberValue)
            #expect(Suspension.labels.suffix(2).allSatisfy { (run.span($0)?.start ?? 0) >= resumedAt })
            #expect(Suspension.labels.prefix(2).allSatisfy { (run.span($0)?.end ?? .infinity) < resumedAt })
        }
    }
}

/// The article's own Operation subclasses in the lab: their declared work is checked, and a
/// group started by hand orders what is added after it.
@Suite(.serialized, .oneAtATime) struct MoreArticlesLabTests {
    /// Declares one second and sleeps half of one: a declaration gone stale.
    /// `@unchecked Sendable`: it adds no stored property.
    private final class StaleDeclaration: Experiments.Operation, ModelledOperation, @unchecked Sendable {
        var modelledWork: ModelledWork { ModelledWork(articleSeconds: 1) }
        override func main() {
            work { Experiments.sleep(0.5) }
        }
    }

    @Test func aSubclassThatSleepsOtherThanItDeclaresIsDrift() throws {
        let experiment = LabDriftTests.scratch(
            "stale-declaration", source: HelloWorld.source,
            code: { _ in
                let queue = Experiments.OperationQueue()
                let operation = StaleDeclaration()
                operation.name = "stale"
                queue.addOperation(operation)
                queue.waitUntilAllOperationsAreFinished()
            }
        )
        let result = try LabDriftTests.judged(experiment, scale: 0.05)
        #expect(result.verdict == .fail)
        #expect(result.reason == "model out of date: 'stale' slept 0.50 s, the plan says 1.00 s")
    }

    @Test func theConvertedSubclassesRunAsPlanned() throws {
        for experiment in [
            helloWorldGroup, operationObserverExperiment, groupErrorCollection, dataPassingAdapter,
            mutualExclusivityByName, blockOperationThreeBlocks,
        ] {
            try LabDriftTests.judgedWithoutDrift(experiment)
        }
    }

    /// One block of a queued BlockOperation edited to sleep longer: the drift names that block.
    @Test func aQueuedBlockThatSleepsOtherThanRehearsedIsDrift() throws {
        let experiment = LabDriftTests.scratch(
            "drifting-block", source: HelloWorld.source,
            code: { context in
                let blockOperation = Experiments.BlockOperation()
                blockOperation.addExecutionBlock {
                    Experiments.print("Task 1"); Experiments.sleep(1)
                }
                blockOperation.addExecutionBlock {
                    Experiments.print("Task 2"); Experiments.sleep(context.isRehearsal ? 1 : 2)
                }
                let queue = Experiments.OperationQueue()
                queue.addOperation(blockOperation)
                queue.waitUntilAllOperationsAreFinished()
            }
        )
        let result = try LabDriftTests.judged(experiment, scale: 0.05)
        #expect(result.verdict == .fail)
        #expect(result.reason == "model out of date: 'Task 2' slept 2.00 s, the plan says 1.00 s")
    }

    @Test func theSecondGroupWaitsForTheFirstInThePlan() {
        let plan = groupErrorCollection.workload()
        let broken = plan.operations.indices.filter { plan.operations[$0].label.hasPrefix(ErrorCollection.broken) }
        let fixed = plan.operations.filter { $0.label.hasPrefix(ErrorCollection.fixed) }
        #expect(broken.count == ErrorCollection.count && fixed.count == ErrorCollection.count)
        #expect(
            fixed.allSatisfy { Set($0.dependencies) == Set(broken) },
            "started after the broken group's start() returned")
        #expect(plan.queues.map(\.maxConcurrentOperationCount) == [2, 2])
    }
}
