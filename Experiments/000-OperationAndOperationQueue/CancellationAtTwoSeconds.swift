import ExperimentKit

/// ArraySumOperation checking `isCancelled` before each sum, cancelled at 2 s (article 000).
let cancellationAtTwoSeconds = Experiment("cancellation-at-2s", source: ArraySumCancellation.source) { context in
    let sumOperation = ArraySumOperation(
        input: Summing.cancellationPairs(context.parameters[.pairs]), checksCancellation: true)
    let queue = OperationQueue()
    queue.addOperation(sumOperation)
    context.sleep(untilArticleSeconds: context.parameters[.cancelAt])
    print("cancel()")
    sumOperation.cancel()
    queue.waitUntilAllOperationsAreFinished()
    context.record("outputArray", Summing.value(sumOperation.outputArray))
}
.title("cancel() on a loop that checks isCancelled")
.summary(
    "ArraySumOperation again, now checking isCancelled before each one-second sum. The article cancels at 2 s, the very instant the third sum begins, a race of fractions of a millisecond; here cancel() comes a quarter of a sum earlier, at 1.75 s, so the result cannot flip."
)
.claim(
    "We stopped a little later than 2 seconds and managed to get 2 sums, and when we were going to get the third sum, we received a signal to destroy the operation and stopped receiving further sums.",
    seconds: 2
)
.expectedOutcome("[3, 7]: the loop finishes the sum under way, sees the flag before the third, and stops at 2 s.")
.platformDifference("One loop on one thread runs the same on every platform.")
// The knobs and check are ArraySumCancellation's, as cancellation-ignored's; the
// loop is the article's second design, which checks `isCancelled` before each sum: a
// cancel stops it before the next one.
.parameters(ArraySumCancellation.parameters(articleInstant: 2, clearOfTheRace: true))
.checks { measurement, prediction in [ArraySumCancellation.sumsMatchPrediction(measurement, prediction)] }
.namingOutcomes(ArraySumCancellation.naming)
