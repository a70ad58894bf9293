import ExperimentKit
import Foundation

/// Where an operation whose `isAsynchronous` answers true runs when started by hand: on the
/// caller's thread (article 001).
let isAsynchronousThread = Experiment(
    "is-asynchronous-thread", article: "001_9c3f48ba8c79e11b.txt",
    section: "Concurrency in Swift (Custom Operations Part 4): isAsynchronous"
) { context in
    let threads = LockedArray<String>()
    let operation = SaysAsynchronousOperation {
        print(StartThread.byHand)
        threads.append("isMainThread: \(Thread.isMainThread)")
        sleep(0.25)
    }
    context.record("isAsynchronous", .bool(operation.isAsynchronous))
    context.record("the caller's thread", .string("isMainThread: \(Thread.isMainThread)"))
    operation.start()
    context.record("finished when start() returned", .bool(operation.isFinished))
    context.record("inside the operation", .strings(threads.elements))
}
.title("isAsynchronous moves nothing: started by hand, it runs on the caller's thread")
.summary(
    "An operation whose isAsynchronous answers true, as article 001's AsyncOperation's does (the one start-thread adds to a queue), is started by hand with start() on the experiment's thread, the process's main thread. It prints, reads Thread.isMainThread and sleeps 0.25 s."
)
.claim(
    "When implementing async operation object you must implment isAsynchronous property and return true. This property is only used if you run the operation manually outside of an operation queue.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote: "It ensures the operation runs off the main thread.",
        here:
            "the operation, whose isAsynchronous answers true, ran on the thread that called start(), the main thread (the run's checks read Thread.isMainThread inside it and the thread its row ran on), and start() returned only when it had finished. isAsynchronous only tells a caller that the work may go on after start() returns; Foundation's start() runs main() on the calling thread whatever it answers, so an asynchronous operation must move its work itself, as AsyncOperation's main() hands it to a global queue (async-operation-by-hand)."
    )
)
.expectedOutcome(
    "The operation runs on the experiment's own thread, the main thread, and start() returns when it has finished: 0.25 s."
)
.platformDifference(
    "start() runs main() on the calling thread on every platform, whatever isAsynchronous answers, so Linux matches."
)
.checks { measurement, _ in
    [
        Check(
            "it ran on the thread that called start(), the main thread, not off it",
            passed: measurement.span(StartThread.byHand)?.thread == StartThread.experimentThread
                && measurement.outcome["the caller's thread"]?.stringValue == "isMainThread: true"
                && measurement.outcome["inside the operation"]?.stringArray == ["isMainThread: true"]),
        Check(
            "start() returned when the operation had finished",
            passed: measurement.outcome["finished when start() returned"] == .bool(true)),
    ]
}
