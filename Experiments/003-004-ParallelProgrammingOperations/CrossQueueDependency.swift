import ExperimentKit
import Foundation

// swift-format-ignore
/// A dependency on an operation in another queue is honoured; a cycle across two queues never
/// starts (articles 000 and 003/004).
let crossQueueDependency = Experiment(
    "cross-queue-dependency", article: "004_75652ba8307bb273.txt",
    section: "Dependencies; 000 “Dependencies ( dependencies)”"
) { context in
    let downloadQueue = OperationQueue()
    let processingQueue = OperationQueue()
    let download = BlockOperation { print(CrossQueue.download); sleep(1) }
    let processing = BlockOperation { print(CrossQueue.processing); sleep(0.5) }
    processing.addDependency(download)

    let a = BlockOperation { print(CrossQueue.a); sleep(0.5) }
    let b = BlockOperation { print(CrossQueue.b); sleep(0.5) }
    (a.name, b.name) = (CrossQueue.a, CrossQueue.b)
    a.addDependency(b)
    b.addDependency(a)
    context.record("cycle found before enqueueing", DependencyCycle.names(in: [a, b]).map(JSONValue.strings) ?? .null)

    processingQueue.addOperation(processing)
    processingQueue.addOperation(b)
    downloadQueue.addOperation(download)
    downloadQueue.addOperation(a)
    processing.waitUntilFinished()
    context.record("A and B when processing has finished", .strings([a, b].map { "\($0.name ?? ""): \(Semantics.describe($0))" }))
}
.title("A dependency across two queues is honoured; a cycle across them never starts")
.summary("A download operation (sleeping 1 s) goes to a download queue, and a processing operation (0.5 s) that depends on it to a processing queue. Operations A and B, each depending on the other, go one to each queue too; a cycle detector reports them before they are added. The experiment waits for the processing operation only, then reads A's and B's states; waiting for their queues would never return (see dependency-cycle), so it does not.")
.claim(
    "The nice thing about dependencies, they can be even across different OperationQueues. At the same time, this can create unexpected locking behavior.",
    seconds: nil
)
.expectedOutcome("Processing starts only when the download, on the other queue, has finished: 1.5 s. A and B are still pending (not ready, never started) when processing has finished.")
.platformDifference("Dependencies across queues work the same on every platform.")
.checks { measurement, _ in
    let download = measurement.span(CrossQueue.download)
    let processing = measurement.span(CrossQueue.processing)
    return [
        Check("processing started only after the download on the other queue had finished",
              passed: download.flatMap { download in processing.map { $0.start >= download.end - Overlap.touchingSeconds } } ?? false),
        Check("the detector found the cycle A → B → A before anything was enqueued",
              passed: measurement.outcome["cycle found before enqueueing"]?.stringArray == [CrossQueue.a, CrossQueue.b, CrossQueue.a]),
        Check("A and B were still pending when processing had finished, and never ran",
              passed: measurement.outcome["A and B when processing has finished"]?.stringArray == ["\(CrossQueue.a): pending", "\(CrossQueue.b): pending"]
                  && measurement.span(CrossQueue.a) == nil && measurement.span(CrossQueue.b) == nil),
    ]
}

/// Labels of the cross-queue-dependency experiment.
enum CrossQueue {
    static let download = "download (download queue)"
    static let processing = "processing (processing queue)"
    static let a = "A"
    static let b = "B"
}
