import ExperimentKit
import Foundation

/// What the ArraySumOperation experiments share (article 000, "Destruction of operations on
/// OperationQueue", Cancellation.playground): the playground's code around its operation, the
/// knobs, and the check of the sums against the cancel's instant.
enum ArraySumCancellation {
    /// The playground's code, the same for each of its operations: add `sumOperation` to a
    /// queue, `cancel()` it at the `cancel-at` instant, wait, and show its `outputArray`.
    static func code(_ sumOperation: @escaping @Sendable (_ inputArray: [(Int, Int)]) -> any ArraySumming) -> @Sendable (RunContext) -> Void {
        { context in
            let sumOperation = sumOperation(Summing.cancellationPairs(context.parameters[.pairs]))
            let queue = OperationQueue()
            queue.addOperation(sumOperation)
            context.sleep(untilArticleSeconds: context.parameters[.cancelAt])
            print("cancel()")
            sumOperation.cancel()
            queue.waitUntilAllOperationsAreFinished()
            context.record("outputArray", Summing.value(sumOperation.outputArray))
        }
    }

    static let source = ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Destruction of operations on OperationQueue (Cancellation.playground)")

    /// The knobs: when the cancel comes (`articleInstant` is the article's; the default moves a
    /// quarter of a sum earlier when that falls on a sum's end), and how many pairs are summed.
    static func parameters(articleInstant: Double, clearOfTheRace: Bool) -> [ParameterSpec] {
        let cancelAt = clearOfTheRace
            ? StandardParameters.cancelAt(
                Summing.instantClearOfSums(articleInstant),
                origin: .chosen("the article's \(articleInstant.decimalText) s less a quarter of a sum, clear of the race", insteadOf: articleInstant)
            )
            : StandardParameters.cancelAt(articleInstant)
        return [cancelAt, StandardParameters.pairs(Summing.cancellationPairs.count, 1...10)]
    }

    /// The outputArray is the first n sums, n being what the model derives from the cancel's instant.
    static func sumsMatchPrediction(_ measurement: MeasuredRun, _ prediction: Prediction) -> Check {
        let measured = measurement.outcome["outputArray"].flatMap(intArray) ?? []
        let expected = prediction.stepsCompleted(0).sorted().map(Summing.cancellationSums)
        let text = expected.map { "[" + $0.map(String.init).joined(separator: ", ") + "]" }.joined(separator: " or ")
        return Check("outputArray is \(text), as the cancel's instant predicts", passed: expected.contains(measured))
    }

    /// A race between the cancel and a sum's end is told by the outputArray: `[3, 7]` or `[3, 7, 11]`.
    static let naming = OutcomeNaming(
        predicted: { branch, _ in OutcomeText.describe(Summing.value(Summing.cancellationSums(branch.spans[0]?.stepsCompleted ?? 0))) },
        measured: { $0.outcome["outputArray"].map(OutcomeText.describe) }
    )

    static func intArray(_ value: JSONValue) -> [Int]? {
        guard case .array(let items) = value else { return nil }
        return items.compactMap { $0.numberValue.map { Int($0) } }
    }
}
