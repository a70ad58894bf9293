import ExperimentKit
import Foundation

/// `underlyingQueue = DispatchQueue.main`, which the documentation article 001 quotes forbids
/// (article 001, "Thread Safety").
let underlyingMainQueue = Experiment(
    "underlying-main-queue", article: "001_9c3f48ba8c79e11b.txt",
    section: "Thread Safety: underlyingQueue"
) { context in
    let queue = OperationQueue()
    queue.underlyingQueue = DispatchQueue.main
    print("underlyingQueue = DispatchQueue.main: accepted")
    let seen = LockedArray<String>()
    for label in MainUnderlying.closures {
        queue.addOperation {
            print(label)
            seen.append("\(label): isMainThread \(Thread.isMainThread)")
            sleep(0.5)
        }
    }

    context.sleep(untilArticleSeconds: MainUnderlying.busyUntil)
    context.record(
        MainUnderlying.whileBusy,
        .strings([
            "operationCount: \(queue.operationCount)", "executing: \(queue.operations.filter(\.isExecuting).count)",
        ]))
    // The main thread lets the main queue run.
    if !context.isRehearsal {
        RunLoop.main.run(until: Date(timeIntervalSinceNow: context.realSeconds(MainUnderlying.runLoopSeconds)))
    }
    queue.waitUntilAllOperationsAreFinished()
    context.record(MainUnderlying.seenInside, .strings(seen.elements.sorted()))
}
.title("underlyingQueue = DispatchQueue.main: accepted, and the operations wait for the main thread")
.summary(
    "An OperationQueue of default width is given DispatchQueue.main as its underlyingQueue, and two closures, each printing, noting whether it runs on the main thread and sleeping 0.5 s, are added to it. The experiment's thread is this process's main thread: it stays busy for 0.5 s, reads the queue, then lets the main queue run by running the main run loop for 1.25 s."
)
.claim(
    "The value of this property must not be the value returned by dispatch_get_main_queue().",
    seconds: nil
)
.expectedOutcome(
    "Setting it is accepted (no trap, no exception); nothing starts while the main thread is busy; once it runs its run loop, the two closures run on the main thread, one after the other, from 0.5 s."
)
.platformDifference(
    "swift-corelibs-foundation does not check the value: it sends the operations to the main queue, which runs them on the main thread when that thread lets it; Apple's documentation forbids the value (what Apple's Foundation then does is not measured here).",
    beyondTheModel: true
)
.timing(
    .untimed(
        reason:
            "the model has the global pool only, not the main queue, whose operations run only when the main thread lets them"
    )
)
.checks { measurement, _ in
    let spans = MainUnderlying.closures.compactMap(measurement.span)
    return [
        Check(
            "nothing ran while the main thread was busy",
            passed: measurement.outcome[MainUnderlying.whileBusy]?.stringArray == ["operationCount: 2", "executing: 0"]),
        Check(
            "both closures ran on the main thread",
            passed: measurement.outcome[MainUnderlying.seenInside]?.stringArray
                == MainUnderlying.closures.map { "\($0): isMainThread true" }),
        Check(
            "one after the other, as the serial main queue runs them",
            passed: spans.count == 2 && Overlap.maximum(of: spans.map { ($0.start, $0.end) }) == 1),
    ]
}

/// Labels and instants of the underlying-main-queue experiment.
enum MainUnderlying {
    static let closures = ["closure 1", "closure 2"]
    static let whileBusy = "while the main thread was busy"
    static let seenInside = "seen from inside"
    static let busyUntil = 0.5
    /// Long enough for both closures, 0.5 s each, with a quarter to spare.
    static let runLoopSeconds = 1.25
}
