import ExperimentKit
import Foundation

// swift-format-ignore
/// `isSuspended`: running operations go on, nothing new starts until the queue is resumed
/// (article 000, "OperationQueue").
let suspendedQueue = Experiment(
    "suspended-queue", article: "000_d66eefb2b922d5e0.txt",
    section: "Basic concepts. OperationQueue: the isSuspended property"
) { context in
    // Four one-second BlockOperations on a width-2 queue, which is suspended while the first
    // two run and resumed after they have ended.
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 2
    let operation1 = BlockOperation { print("operation 1"); sleep(1) }
    let operation2 = BlockOperation { print("operation 2"); sleep(1) }
    let operation3 = BlockOperation { print("operation 3"); sleep(1) }
    let operation4 = BlockOperation { print("operation 4"); sleep(1) }
    let operations = [operation1, operation2, operation3, operation4]
    queue.addOperations(operations, waitUntilFinished: false)

    context.sleep(untilArticleSeconds: Suspension.suspendAt)
    queue.isSuspended = true
    print("isSuspended = true")
    context.record("when suspended", .strings(Suspension.states(operations)))

    context.sleep(untilArticleSeconds: Suspension.resumeAt)
    context.record("just before resuming", .strings(Suspension.states(operations)))
    print("isSuspended = false")
    context.record("resumedAtSeconds", .number(context.timeline.now()))
    queue.isSuspended = false
    queue.waitUntilAllOperationsAreFinished()
}
.title("isSuspended: running work goes on, nothing new starts")
.summary("Four one-second printing operations on a queue of width 2. At 0.5 s, while the first two run, the experiment sets isSuspended = true; at 2.5 s it sets it back to false. Suspending falls half a second from any operation's end, so it cannot race one.")
.claim(
    "The operations performed on this queue will continue, but the newly added ones will not be sent for execution until you change the isSuspended property to false.",
    seconds: nil
)
.expectedOutcome("Operations 1 and 2 run to their end at 1 s; operations 3 and 4, ready since then, start at 2.5 s when the queue is resumed, not at 1 s: 3.5 s in all.")
.platformDifference("Suspending a queue works the same on every platform.")
.checks { measurement, _ in
    let outcome = measurement.outcome
    let resumedAt = outcome["resumedAtSeconds"]?.numberValue ?? .infinity
    let heldBack = Suspension.labels.suffix(2).compactMap(measurement.span)
    let states = { (first: String, second: String) in
        Suspension.labels.enumerated().map { "\($0.element): \($0.offset < 2 ? first : second)" }
    }
    return [
        Check("when suspended, operations 1 and 2 were executing, 3 and 4 ready",
              passed: outcome["when suspended"]?.stringArray == states("executing", "ready")),
        Check("just before resuming, 1 and 2 had finished and 3 and 4 were still waiting, ready",
              passed: outcome["just before resuming"]?.stringArray == states("finished", "ready")),
        Check("operations 3 and 4 started only after the resume", passed: heldBack.count == 2 && heldBack.allSatisfy { $0.start >= resumedAt }),
    ]
}

/// Labels and instants of the suspended-queue experiment.
enum Suspension {
    static let labels = ["operation 1", "operation 2", "operation 3", "operation 4"]
    /// Half an operation after the start, half an operation before the first two end.
    static let suspendAt = 0.5
    static let resumeAt = 2.5

    /// "operation 1: executing", … as `Semantics.describe` reads the flags.
    static func states(_ operations: [Foundation.Operation]) -> [String] {
        zip(labels, operations).map { "\($0): \(Semantics.describe($1))" }
    }
}
