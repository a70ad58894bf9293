import ExperimentKit

/// ArraySumOperation without an `isCancelled` check, cancelled at 2 s (article 000).
let cancellationIgnored = Experiment("cancellation-ignored", source: ArraySumCancellation.source) { context in
    let sumOperation = ArraySumOperation(
        input: Summing.cancellationPairs(context.parameters[.pairs]), checksCancellation: false)
    let queue = OperationQueue()
    queue.addOperation(sumOperation)
    context.sleep(untilArticleSeconds: context.parameters[.cancelAt])
    print("cancel()")
    sumOperation.cancel()
    queue.waitUntilAllOperationsAreFinished()
    context.record("outputArray", Summing.value(sumOperation.outputArray))
}
.title("cancel() on a loop that never looks")
.summary(
    "ArraySumOperation adds the pairs (1,2) (3,4) (5,6) (7,8) (9,10) with a one-second slowAdd each, in a loop that never reads isCancelled. The experiment's thread calls cancel() at 2 s."
)
// Its 5 s is the run before any cancel; of the cancelled run it says only that it completed.
.claim(
    "So, the operation sumOperation takes a little more than 5 seconds. Now we will try to destroy this operation, 2 seconds after the start, calling the method cancel (): We got an unexpected result - the operation was sumOperation completed, no operation was destroyed. What is the matter? But the fact is that the method cancel () only sets the property isCancelled to true…",
    seconds: nil
)
.expectedOutcome("All five sums, [3, 7, 11, 15, 19], in about 5 s: cancel() only sets a flag that nobody reads.")
.platformDifference("One loop on one thread runs the same on every platform.")
.parameters(ArraySumCancellation.parameters(articleInstant: 2, clearOfTheRace: false))
.checks { measurement, prediction in [ArraySumCancellation.sumsMatchPrediction(measurement, prediction)] }
