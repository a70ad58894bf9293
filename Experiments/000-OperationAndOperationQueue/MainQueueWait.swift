import ExperimentKit
import Foundation

// swift-format-ignore
/// `waitUntilAllOperationsAreFinished()` for a private serial queue, then for
/// `OperationQueue.main`, on the main thread (article 000, "Basic concepts. OperationQueue").
let mainQueueWait = Experiment(
    "main-queue-wait", article: "000_d66eefb2b922d5e0.txt",
    section: "Basic concepts. OperationQueue: waitUntilAllOperationsAreFinished() on the main queue"
) { context in
    // "…create a private serial queue and wait for the completion of your operations there."
    let privateQueue = OperationQueue()
    privateQueue.name = MainWait.privateQueue
    privateQueue.maxConcurrentOperationCount = 1
    privateQueue.addOperation { print(MainWait.onPrivateQueue); sleep(MainWait.seconds) }
    privateQueue.waitUntilAllOperationsAreFinished()
    context.record(MainWait.privateWaitReturned, .strings(["operationCount: \(privateQueue.operationCount)"]))

    OperationQueue.main.addOperation { print(MainWait.onMainQueue); sleep(MainWait.seconds) }
    // Everything worth knowing is recorded before the wait that never returns.
    context.record(MainWait.beforeTheMainWait, .strings([
        "isMainThread: \(Thread.isMainThread)",
        "operationCount: \(OperationQueue.main.operationCount)",
        "executing: \(OperationQueue.main.operations.filter(\.isExecuting).count)",
    ]))
    context.record(MainWait.mainQueues, .strings([OperationQueue.main, Foundation.OperationQueue.main].map(MainWait.describe)))
    print("OperationQueue.main.waitUntilAllOperationsAreFinished()…")
    OperationQueue.main.waitUntilAllOperationsAreFinished()
    print("…returned: the main queue's operation ran after all")
}
.title("The main thread waiting for OperationQueue.main never returns; waiting for a private serial queue does")
.summary("The experiment's thread is this process's main thread. It adds a closure that prints and sleeps 0.5 s to a private serial queue (width 1) and waits for that queue with waitUntilAllOperationsAreFinished(): the wait returns when the closure ends. Then it adds the same closure to OperationQueue.main and waits for that queue the same way. The main queue's operations run on the main thread, which is waiting: the closure never starts and the wait never returns; the runner's watchdog stops it, and the hang is the demonstration. In a lab session OperationQueue.main is a queue made as Foundation makes its main queue on Linux (width 1, its operations sent to DispatchQueue.main), so that the lab sees what is added to it; the run reads both, to show they agree.")
.claim(
    "Using the waitUntilAllOperationsAreFinished() method, you can block the current thread until all operations on this operation queue have been completed. But NEVER do this on the main queue.",
    seconds: nil
)
.expectedOutcome("The private queue's closure runs from 0 to 0.5 s and the wait for it returns; the main queue's closure never starts, and the main thread's wait for it never returns.")
.platformDifference("The main queue's operations run on the main thread on every platform, so the main thread waiting for them waits for itself.")
.ending(.hangs)
.checks { measurement, _ in
    [
        Check("the private serial queue's closure ran, and the wait for it returned with the queue empty",
              passed: measurement.span(MainWait.onPrivateQueue) != nil
                  && measurement.outcome[MainWait.privateWaitReturned]?.stringArray == ["operationCount: 0"]),
        Check("the waiting thread was the main thread, and the main queue held its closure, not started",
              passed: measurement.outcome[MainWait.beforeTheMainWait]?.stringArray == ["isMainThread: true", "operationCount: 1", "executing: 0"]),
        Check("the main queue waited for is made as Foundation's own (width 1, run by DispatchQueue.main)",
              passed: measurement.outcome[MainWait.mainQueues]?.stringArray.map { $0.count == 2 && $0[0] == $0[1] } == true),
        Check("the main queue's closure never ran", passed: measurement.span(MainWait.onMainQueue) == nil),
    ]
}

/// Labels of the main-queue-wait experiment.
enum MainWait {
    static let privateQueue = "private serial queue"
    static let onPrivateQueue = "on the private serial queue"
    static let onMainQueue = "on OperationQueue.main"
    static let privateWaitReturned = "after the wait for the private queue"
    static let beforeTheMainWait = "before the wait for the main queue"
    static let mainQueues = "OperationQueue.main here, and Foundation's"
    static let seconds = 0.5

    /// A queue's width and the DispatchQueue that runs its operations.
    static func describe(_ queue: Foundation.OperationQueue) -> String {
        "width \(queue.maxConcurrentOperationCount), run by '\(queue.underlyingQueue?.label ?? "its own")'"
    }
}
