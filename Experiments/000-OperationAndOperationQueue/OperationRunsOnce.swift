import ExperimentKit
import Foundation

/// An operation runs once: started again it does nothing, added again it is refused (article 000,
/// "Operation and OperationQueue").
let operationRunsOnce = Experiment(
    "operation-runs-once", article: "000_d66eefb2b922d5e0.txt",
    section: "Basic concepts. OperationQueue: an operation is a one-time thing"
) { context in
    let runs = LockedArray<String>()
    let queue = OperationQueue()
    let operation = BlockOperation {
        print(RunsOnce.label)
        runs.append(RunsOnce.label)
        sleep(0.5)
    }
    queue.addOperation(operation)
    queue.waitUntilAllOperationsAreFinished()
    context.record("after the queue ran it", .string(Semantics.describe(operation)))

    print("start() again…")
    operation.start()
    // Recorded now: the trap below ends the process before anything could be returned.
    context.record("times its block ran", .number(Double(runs.elements.count)))
    context.record("after start() again", .string(Semantics.describe(operation)))

    print("addOperation(operation) again…")
    queue.addOperation(operation)
    print("…accepted: this platform did not refuse")
    queue.waitUntilAllOperationsAreFinished()
}
.title("An operation runs once: start() again does nothing, a second add traps")
.summary(
    "A BlockOperation that prints and sleeps 0.5 s is added to a queue and waited for. Then it is started again by hand with start(), and finally added to the queue a second time: swift-corelibs-foundation stops the process with fatalError. The experiment ends in that trap, which is the demonstration."
)
.claim(
    "If an operation is placed in a queue of operations, then it cannot be placed again in any of these queues. If an operation has been performed, it cannot be re-executed on any of the operation queues, the operation is a one-time thing…",
    seconds: nil
)
.expectedOutcome(
    "The operation's block runs once; the second start() returns at once without running it; the second addOperation traps with \"operations finished, executing or already in a queue cannot be enqueued\"."
)
.platformDifference(
    "Linux's Foundation stops the process with fatalError where Apple's raises NSInvalidArgumentException (\"operation is finished and cannot be enqueued\"), which ends the process too unless Objective-C code catches it; a second start() does nothing on both.",
    beyondTheModel: true
)
.ending(.traps(containing: "cannot be enqueued"))
.checks { measurement, _ in
    [
        Check(
            "the queue ran it once and it finished",
            passed: measurement.outcome["after the queue ran it"]?.stringValue == "finished"),
        Check(
            "start() again did not run the block: it ran once",
            passed: measurement.outcome["times its block ran"] == .number(1)),
        Check(
            "start() again left it finished",
            passed: measurement.outcome["after start() again"]?.stringValue == "finished"),
    ]
}

/// The label of the operation-runs-once experiment's operation.
enum RunsOnce {
    static let label = "the one-time operation"
}
