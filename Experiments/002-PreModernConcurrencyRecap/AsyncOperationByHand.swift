import ExperimentKit
import Foundation

// swift-format-ignore
/// An AsyncOperation started by hand: `start()` returns at once and the caller goes on while the
/// work runs elsewhere (article 002, "Synchronous vs. Asynchronous Operations"; 000,
/// "Asynchronous operation").
let asyncOperationByHand = Experiment(
    "async-operation-by-hand", article: "002_207e8afa59e11a7d.txt",
    section: "Synchronous vs. Asynchronous Operations; 000 “Asynchronous operation”"
) { context in
    let sumOperation = SumOperation(input: ByHand.pair)
    sumOperation.start()
    context.record(ByHand.returnedAt, .number(context.timeline.now()))
    context.record("right after start() returned", .string(Semantics.describe(sumOperation)))

    let anotherTask = BlockOperation { print(ByHand.anotherTask); sleep(0.5) }
    anotherTask.start()
    sumOperation.waitUntilFinished()
    context.record("result", sumOperation.result.map { .number(Double($0)) } ?? .null)
}
.title("An AsyncOperation's start() by hand returns at once; the caller goes on")
.summary("Article 000's SumOperation for (1, 5), an AsyncOperation whose main() hands a 1 s asyncAdd to an addition queue of its own, is started by hand with start(), without a queue. The experiment records when start() returns and the operation's state then, then, on the experiment's own thread, starts another task by hand, a BlockOperation that prints and sleeps 0.5 s, and finally waits for the sum with waitUntilFinished(). The timeline draws the operation from start() to its finish on the thread that called start(), and asyncAdd's sleep on the pool worker that holds it.")
.claim(
    "Asynchronous operations run independently of the current thread, allowing it to continue executing while the operation runs in the background.",
    seconds: nil
)
.expectedOutcome("start() returns at once with the operation still executing; the other task runs on the experiment's thread from then until 0.5 s while asyncAdd sleeps on a pool thread; the sum, 6, arrives at 1 s.")
.platformDifference("An AsyncOperation started by hand behaves the same on every platform.")
.checks { measurement, _ in
    let returnedAt = measurement.outcome[ByHand.returnedAt]?.numberValue ?? .infinity
    let addition = measurement.span(Summing.workerLabel(ByHand.pair))
    let another = measurement.span(ByHand.anotherTask)
    return [
        Check("start() returned (at \(Format.seconds(returnedAt))) before the addition's work had ended",
              passed: addition.map { returnedAt < $0.end - Overlap.touchingSeconds } == true),
        Check("the operation was executing, not finished, when start() returned",
              passed: measurement.outcome["right after start() returned"]?.stringValue == "executing"),
        Check("the other task ran on the experiment's thread while the addition slept on another",
              passed: another.flatMap { another in addition.map { addition in
                  another.thread == StartThread.experimentThread && addition.thread != StartThread.experimentThread
                      && another.start < addition.end && addition.start < another.end
              } } == true),
        Check("the sum is \(ByHand.pair.0 + ByHand.pair.1)", passed: measurement.outcome["result"] == .number(Double(ByHand.pair.0 + ByHand.pair.1))),
    ]
}

/// Labels of the async-operation-by-hand experiment.
enum ByHand {
    /// The AsyncOperations playground's first pair.
    static let pair = Summing.asyncPairs[0]
    static let anotherTask = "another task on the caller's thread"
    static let returnedAt = "start() returned at (s)"
}
