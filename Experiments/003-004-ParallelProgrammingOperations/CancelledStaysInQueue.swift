import ExperimentKit
import Foundation

// swift-format-ignore
/// A cancelled operation stays in its queue until it finishes (article 004, "Cancellation").
let cancelledStaysInQueue = Experiment("cancelled-stays-in-queue", article: "004_75652ba8307bb273.txt", section: "Cancellation") { context in
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let first = BlockOperation { print(StaysInQueue.first); sleep(1) }
    let second = BlockOperation { print(StaysInQueue.second); sleep(1) }
    first.name = StaysInQueue.first
    second.name = StaysInQueue.second
    queue.addOperation(first)
    queue.addOperation(second)

    context.sleep(untilArticleSeconds: StaysInQueue.cancelAt)
    print("second.cancel()")
    second.cancel()
    context.record(StaysInQueue.afterCancel, StaysInQueue.contents(of: queue, second))
    queue.waitUntilAllOperationsAreFinished()
    context.record(StaysInQueue.atTheEnd, StaysInQueue.contents(of: queue, second))
}
.title("A cancelled operation stays in its queue until it has finished")
.summary("On a serial queue (width 1) a first operation prints and sleeps 1 s; a second waits behind it. At 0.25 s the experiment cancels the second and reads the queue's operationCount and operations; it reads them again once the queue has finished.")
.claim(
    "Entering Finished state is the only way for the Operation to get removed from the Queue.",
    seconds: nil
)
.expectedOutcome("Right after the cancel the queue still counts two operations and lists the cancelled one, cancelled and ready but not finished; it leaves the queue, without running its work, only when the queue starts it at 1 s and it finishes: then the queue holds none.")
.platformDifference("A queue keeps an operation until it finishes on every platform.")
.checks { measurement, _ in
    [
        Check("right after the cancel the queue still held both, the cancelled one not finished",
              passed: measurement.outcome[StaysInQueue.afterCancel]?.stringArray == [
                  "operationCount: 2", "operations: [\(StaysInQueue.first), \(StaysInQueue.second)]", "\(StaysInQueue.second): cancelled, ready",
              ]),
        Check("once it had finished, without its work, the queue held none",
              passed: measurement.outcome[StaysInQueue.atTheEnd]?.stringArray == ["operationCount: 0", "operations: []", "\(StaysInQueue.second): cancelled, finished"]
                  && measurement.span(StaysInQueue.second) == nil),
    ]
}

/// Labels and instants of the cancelled-stays-in-queue experiment.
enum StaysInQueue {
    static let first = "first"
    static let second = "second"
    static let afterCancel = "right after the cancel"
    static let atTheEnd = "when the queue had finished"
    /// A quarter into the first operation's second: three quarters clear of its end.
    static let cancelAt = 0.25

    /// What the queue holds, as its `operationCount` and `operations` say, and the cancelled
    /// operation's state.
    static func contents(of queue: Foundation.OperationQueue, _ cancelled: Foundation.Operation) -> JSONValue {
        let names = queue.operations.map { $0.name ?? "unnamed" }
        return .strings([
            "operationCount: \(queue.operationCount)",
            "operations: [" + names.joined(separator: ", ") + "]",
            "\(cancelled.name ?? ""): \(Semantics.describe(cancelled))",
        ])
    }
}
