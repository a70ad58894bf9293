import ExperimentKit
import Foundation

/// A queue calls `start()` on a thread of its own, whatever `isAsynchronous` says; `start()`
/// called by hand runs on the caller's thread (articles 001 and 000's Operation.playground).
let startThread = Experiment(
    "start-thread", article: "001_9c3f48ba8c79e11b.txt",
    section: "Concurrency in Swift (Custom Operations Part 4): isAsynchronous"
) { context in
    let queue = OperationQueue()
    let queued = SaysAsynchronousOperation {
        print(StartThread.queued)
        sleep(0.25)
    }
    context.record("queued operation's isAsynchronous", .bool(queued.isAsynchronous))
    queue.addOperation(queued)

    let byHand = BlockOperation {
        print(StartThread.byHand)
        sleep(0.25)
    }
    byHand.start()
    context.record("finished when start() returned", .bool(byHand.isFinished))
    queue.waitUntilAllOperationsAreFinished()
}
.title("start() by hand runs on the caller's thread; a queue calls it on another")
.summary(
    "An operation whose isAsynchronous answers true, as article 001's AsyncOperation's does, is added to a queue; then a BlockOperation is started by hand with start(), as 000's Operation.playground does. Each prints and sleeps 0.25 s; the timeline shows which thread ran each."
)
.claim(
    "When you add an operation to an operation queue, the queue ignores the value of the asynchronous property and always calls the start method from a separate thread.",
    seconds: nil
)
.expectedOutcome(
    "The queued operation runs on a pool thread although it says it is asynchronous; the one started by hand runs at the same time on the experiment's own thread, and start() returns when it has finished: 0.25 s in all."
)
.platformDifference(
    "Both platforms run start() on the caller's thread and a queued operation on a pool thread, so Linux matches."
)
.checks { measurement, _ in
    [
        Check(
            "start() by hand ran the operation on the experiment's own thread",
            passed: measurement.span(StartThread.byHand)?.thread == StartThread.experimentThread),
        Check(
            "start() by hand returned when the operation had finished",
            passed: measurement.outcome["finished when start() returned"] == .bool(true)),
        Check(
            "the queue ran the operation that says it is asynchronous on another thread",
            passed: measurement.outcome["queued operation's isAsynchronous"] == .bool(true)
                && measurement.span(StartThread.queued).map { $0.thread != StartThread.experimentThread } == true),
    ]
}

/// An operation whose `isAsynchronous` answers true, as article 001's AsyncOperation's does; its
/// work is BlockOperation's, so only that answer differs.
///
/// `@unchecked Sendable`, as its superclass: it adds no stored state.
final class SaysAsynchronousOperation: BlockOperation, @unchecked Sendable {
    override var isAsynchronous: Bool { true }
}

/// Labels of the start-thread experiment.
enum StartThread {
    static let byHand = "started by hand"
    static let queued = "added to a queue"
    /// The timeline's number for the experiment's own thread.
    static let experimentThread = 0
}
