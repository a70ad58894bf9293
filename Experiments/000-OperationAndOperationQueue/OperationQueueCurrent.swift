import ExperimentKit
import Foundation

/// `OperationQueue.current`, read inside an operation, is the queue that runs it (article 000,
/// "OperationQueue").
let operationQueueCurrent = Experiment(
    "operation-queue-current", article: "000_d66eefb2b922d5e0.txt",
    section: "Basic concepts. OperationQueue: the current and main class properties"
) { context in
    let downloadQueue = OperationQueue()
    downloadQueue.name = CurrentQueue.downloadQueue
    let filterQueue = OperationQueue()
    filterQueue.name = CurrentQueue.filterQueue
    let found = LockedArray<String>()
    let download = BlockOperation {
        print(CurrentQueue.download)
        found.append(CurrentQueue.found(CurrentQueue.download, is: downloadQueue))
        sleep(0.25)
    }
    let filter = BlockOperation {
        print(CurrentQueue.filter)
        found.append(CurrentQueue.found(CurrentQueue.filter, is: filterQueue))
        sleep(0.25)
    }
    downloadQueue.addOperation(download)
    filterQueue.addOperation(filter)
    downloadQueue.waitUntilAllOperationsAreFinished()
    filterQueue.waitUntilAllOperationsAreFinished()
    context.record("OperationQueue.current inside each operation", .strings(found.elements.sorted()))
    context.record(
        "on the experiment's thread",
        .strings([
            "isMainThread: \(Thread.isMainThread)",
            "OperationQueue.current is OperationQueue.main: \(OperationQueue.current === OperationQueue.main)",
        ]))
}
.title("OperationQueue.current inside an operation is its queue")
.summary(
    "Two named queues, a download queue and a filter queue, get one operation each; each operation prints, reads OperationQueue.current and sleeps 0.25 s. Then the experiment's own thread, which is the process's main thread, reads OperationQueue.current too."
)
.claim(
    "Here we see the simplest initializer of the OperationQueue () operation queue and two class properties: current and main , which specify the current OperationQueue.current and main queue operations …",
    seconds: nil
)
.expectedOutcome(
    "Each operation finds its own queue (the same object, and its name); the two run side by side: 0.25 s. On the main thread, outside any operation, OperationQueue.current is OperationQueue.main."
)
.platformDifference("OperationQueue.current works the same on every platform.")
.checks { measurement, _ in
    [
        Check(
            "each operation found its own queue as OperationQueue.current",
            passed: measurement.outcome["OperationQueue.current inside each operation"]?.stringArray
                == [
                    CurrentQueue.its(CurrentQueue.download, CurrentQueue.downloadQueue),
                    CurrentQueue.its(CurrentQueue.filter, CurrentQueue.filterQueue),
                ]),
        Check(
            "on the main thread, outside any operation, it is OperationQueue.main",
            passed: measurement.outcome["on the experiment's thread"]?.stringArray?.last
                == "OperationQueue.current is OperationQueue.main: true"),
    ]
}

/// Labels of the operation-queue-current experiment.
enum CurrentQueue {
    static let downloadQueue = "download queue"
    static let filterQueue = "filter queue"
    static let download = "download"
    static let filter = "filter"

    /// "download: its queue (download queue)".
    static func its(_ label: String, _ queueName: String) -> String {
        "\(label): its queue (\(queueName))"
    }

    /// What the operation `label` finds as `OperationQueue.current`: `queue`, or another, named.
    static func found(_ label: String, is queue: Foundation.OperationQueue) -> String {
        let current = OperationQueue.current
        return current === queue ? its(label, queue.name ?? "") : "\(label): another queue (\(current?.name ?? "none"))"
    }
}
