import ExperimentKit

/// AnotherArraySumOperation with its progress closure, cancelled at `articleInstant` (article 000).
func cancellationProgressExperiment(articleInstant: Double, percent: Int, sums: String) -> Experiment {
    let instant = Summing.instantClearOfSums(articleInstant)
    return Experiment("cancellation-progress-at-\(Int(articleInstant))s", source: ArraySumCancellation.source) {
        context in
        let sumOperation = AnotherArraySumOperation(input: Summing.cancellationPairs(context.parameters[.pairs]))
        let queue = OperationQueue()
        queue.addOperation(sumOperation)
        context.sleep(untilArticleSeconds: context.parameters[.cancelAt])
        print("cancel()")
        sumOperation.cancel()
        queue.waitUntilAllOperationsAreFinished()
        context.record("outputArray", Summing.value(sumOperation.outputArray))
    }
    .title("Progress closure, cancelled at \(Int(articleInstant)) s")
    .summary(
        "AnotherArraySumOperation hands its loop to slowAddArray, whose progress closure prints how much is done and returns !isCancelled. The article cancels at \(Int(articleInstant)) s, the instant a sum ends and the closure is asked; here cancel() comes a quarter of a sum earlier, at \(instant) s, so the answer cannot flip."
    )
    // The article states when it cancels, not how long the run took: its instant is the
    // cancel-at setting, and no figure is the article's total.
    .claim(
        articleInstant == 2
            ? "Interrupting the operation after 2 seconds, we got the same result - we managed to process only 2 array elements out of 5-ti, that is, 40%, before the operation was destroyed."
            : "Set the interrupt delay of the operation 4 seconds: 4 elements of the array of 5 were processed, that is, 80%, before the operation was destroyed.",
        seconds: nil
    )
    .expectedOutcome("Progress lines up to \(percent) %, then the closure answers false: \(sums).")
    .platformDifference("One loop on one thread runs the same on every platform.")
    .parameters(ArraySumCancellation.parameters(articleInstant: articleInstant, clearOfTheRace: true))
    .checks { measurement, prediction in
        let completed = prediction.stepsCompleted(0).sorted()
        let pairs = prediction.workload.operations[0].steps
        let expectedLines = completed.map { count in
            (1...max(count, 1)).map { "\(Int((Double($0) * 100 / Double(pairs)).rounded()))% of the array processed" }
        }
        let printed = measurement.output.map(\.text).filter { $0.hasSuffix("processed") }
        return [
            ArraySumCancellation.sumsMatchPrediction(measurement, prediction),
            Check(
                "progress printed up to \(completed.map { "\(Int((Double($0) * 100 / Double(pairs)).rounded())) %" }.joined(separator: " or "))",
                passed: expectedLines.contains(printed)),
        ]
    }
    .namingOutcomes(ArraySumCancellation.naming)
}

let cancellationProgressAtTwoSeconds = cancellationProgressExperiment(articleInstant: 2, percent: 40, sums: "[3, 7]")
let cancellationProgressAtFourSeconds = cancellationProgressExperiment(
    articleInstant: 4, percent: 80, sums: "[3, 7, 11, 15]")
