import ExperimentKit
import Foundation

// swift-format-ignore
/// A cancelled dependency finishes without running, and the operation that depends on it runs
/// (articles 003/004, "Dependencies").
let dependentOfCancelled = Experiment(
    "dependent-of-cancelled", article: "004_75652ba8307bb273.txt",
    section: "Cancellation; “Dependencies” (003: “取消Operation的执行”, “依赖”)"
) { context in
    let serialQueue = OperationQueue()
    serialQueue.maxConcurrentOperationCount = 1
    let processingQueue = OperationQueue()
    let first = BlockOperation { print(CancelledDependency.first); sleep(1) }
    let download = BlockOperation { print(CancelledDependency.download); sleep(1) }
    let found = LockedArray<String>()
    let processing = BlockOperation {
        print(CancelledDependency.processing)
        found.append("download: \(Semantics.describe(download))")
        sleep(0.5)
    }
    processing.addDependency(download)
    serialQueue.addOperation(first)
    serialQueue.addOperation(download)
    processingQueue.addOperation(processing)

    context.sleep(untilArticleSeconds: CancelledDependency.cancelAt)
    print("download.cancel()")
    download.cancel()
    context.record("right after the cancel", .strings([
        "download: \(Semantics.describe(download))", "processing: \(Semantics.describe(processing))",
    ]))

    // The second case, once the first is over: an idle queue, and a dependency still running.
    context.sleep(untilArticleSeconds: CancelledDependency.idleCaseStart)
    let dependencyQueue = OperationQueue()
    let idleQueue = OperationQueue()
    let unfinished = BlockOperation { print(CancelledDependency.unfinished); sleep(1) }
    let waiting = BlockOperation { print(CancelledDependency.waiting); sleep(0.5) }
    waiting.addDependency(unfinished)
    dependencyQueue.addOperation(unfinished)
    idleQueue.addOperation(waiting)

    context.sleep(untilArticleSeconds: CancelledDependency.idleCaseStart + CancelledDependency.cancelAt)
    print("waiting.cancel()")
    waiting.cancel()
    waiting.waitUntilFinished()
    context.record(CancelledDependency.waitingFinishedAt, .number(context.timeline.now()))
    context.record("when the cancelled one had finished", .strings([
        "waiting: \(Semantics.describe(waiting))", "unfinished: \(Semantics.describe(unfinished))",
    ]))
    processingQueue.waitUntilAllOperationsAreFinished()
    serialQueue.waitUntilAllOperationsAreFinished()
    dependencyQueue.waitUntilAllOperationsAreFinished()
    context.record("what processing found", .strings(found.elements))
}
.title("A cancelled dependency finishes, and its dependent still runs")
.summary("First case: on a serial queue (width 1) a first operation runs for 1 s; behind it waits a download (1 s). A processing operation (0.5 s) on another queue depends on the download. At 0.25 s, while the download still waits for its slot, the experiment cancels it. Second case, at 2 s, once the first is over: an operation that waits for an unfinished dependency (1 s, on a queue of its own) is added to an idle queue, and cancelled at 2.25 s, while that dependency still runs. Each operation prints and sleeps; processing also reads whether its dependency was cancelled.")
.claim(
    "Any operation which has dependencies will by default only enter the Ready state after all its dependencies are completed. However, it’s up to you to decide how to proceed after a dependency was canceled.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote: "…start executing immediately to enter Finished state as soon as possible.",
        here: "a cancelled operation starts, and so finishes without its work, only when its queue has a free slot: the cancelled download, waiting behind the first operation on its serial queue, is right after the cancel cancelled and ready, not finished, and finishes only when the first operation ends three quarters of a second later (the run's checks); a queue starts a cancelled operation within its maxConcurrentOperationCount like any other (swift-corelibs-foundation's _schedule fills free slots only). On an idle queue it does finish at once, its unfinished dependency discarded, as the article says (the second case)."
    )
)
.expectedOutcome("The cancelled download, ready all along, is not started at once: it finishes only when the serial queue starts it, at 1 s, without running its work; processing starts then, finds its dependency cancelled and runs anyway. The operation cancelled on the idle queue finishes at once, at 2.25 s, without its work, while its dependency runs on until 3 s: 3 s in all.")
.platformDifference("A cancelled dependency releases its dependents the same way on every platform; that the cancelled operation waits for a free slot is corelibs' _schedule, measured here on Linux only.")
.checks { measurement, _ in
    let firstEnd = measurement.span(CancelledDependency.first)?.end ?? .infinity
    let waitingFinishedAt = measurement.outcome[CancelledDependency.waitingFinishedAt]?.numberValue ?? .infinity
    return [
        Check("right after the cancel the download was cancelled and ready, still waiting for its slot; processing still pending",
              passed: measurement.outcome["right after the cancel"]?.stringArray == ["download: cancelled, ready", "processing: pending"]),
        Check("the download's work never ran", passed: measurement.span(CancelledDependency.download) == nil),
        Check("processing ran, and found its dependency cancelled and finished",
              passed: measurement.outcome["what processing found"]?.stringArray == ["download: cancelled, finished"]),
        Check("processing started only when the serial queue reached the download, at the first's end",
              passed: measurement.span(CancelledDependency.processing).map { $0.start >= firstEnd - Overlap.touchingSeconds } == true),
        Check("on the idle queue the cancelled operation finished without its work while its dependency still ran",
              passed: measurement.outcome["when the cancelled one had finished"]?.stringArray == ["waiting: cancelled, finished", "unfinished: executing"]
                  && measurement.span(CancelledDependency.waiting) == nil),
        Check("it finished (at \(Format.seconds(waitingFinishedAt))) before its dependency's end",
              passed: measurement.span(CancelledDependency.unfinished).map { waitingFinishedAt < $0.end - Overlap.touchingSeconds } == true),
    ]
}

/// Labels and instants of the dependent-of-cancelled experiment.
enum CancelledDependency {
    static let first = "first (serial queue)"
    static let download = "download (serial queue)"
    static let processing = "processing (depends on download)"
    static let unfinished = "unfinished dependency (a queue of its own)"
    static let waiting = "waiting (idle queue, depends on it)"
    static let waitingFinishedAt = "the cancelled one had finished at (s)"
    /// A quarter of the first operation's second: three quarters clear of its end.
    static let cancelAt = 0.25
    /// The second case begins half a second after the first case's last operation ends.
    static let idleCaseStart = 2.0
}
