import ExperimentKit
import Foundation

// swift-format-ignore
/// An operation still waiting in one queue cannot be added to another: corelibs traps (article
/// 000, "OperationQueue").
let addToSecondQueue = Experiment(
    "add-to-second-queue", article: "000_d66eefb2b922d5e0.txt",
    section: "Basic concepts. OperationQueue: an operation is a one-time thing"
) { context in
    let firstQueue = OperationQueue()
    // Suspended, so that it certainly still holds the operation when the second add comes.
    firstQueue.isSuspended = true
    let secondQueue = OperationQueue()
    let operation = BlockOperation { print(SecondQueue.label); sleep(0.5) }
    firstQueue.addOperation(operation)
    // Recorded now: the trap below ends the process before anything could be returned.
    context.record("held by the first queue", .strings([
        "operation: \(Semantics.describe(operation))", "operations the first queue holds: \(firstQueue.operationCount)",
    ]))

    print("secondQueue.addOperation(operation)…")
    secondQueue.addOperation(operation)
    print("…accepted: this platform did not refuse")
    secondQueue.waitUntilAllOperationsAreFinished()
}
.title("An operation pending in one queue, added to a second: a trap")
.summary("A BlockOperation that prints and sleeps 0.5 s is added to a suspended queue, which holds it without starting it. Then it is added to a second queue: swift-corelibs-foundation stops the process with fatalError. The experiment ends in that trap, which is the demonstration; operation-runs-once shows the same refusal for an operation that has already run.")
.claim(
    "If an operation is placed in a queue of operations, then it cannot be placed again in any of these queues.",
    seconds: nil
)
.expectedOutcome("The operation is ready and held by the first queue, never started; the second addOperation traps with \"operations finished, executing or already in a queue cannot be enqueued\", before the operation has run anywhere.")
.platformDifference("Linux's Foundation stops the process with fatalError where Apple's raises NSInvalidArgumentException (\"operation is already enqueued on a queue\"), which ends the process too unless Objective-C code catches it.")
.ending(.traps(containing: "already in a queue cannot be enqueued"))
.checks { measurement, _ in
    [
        Check("the first queue held the operation, ready and not started, when it was added to the second",
              passed: measurement.outcome["held by the first queue"]?.stringArray == ["operation: ready", "operations the first queue holds: 1"]),
        Check("the operation never ran", passed: measurement.span(SecondQueue.label) == nil),
    ]
}

/// The label of the add-to-second-queue experiment's operation.
enum SecondQueue {
    static let label = "the pending operation"
}
