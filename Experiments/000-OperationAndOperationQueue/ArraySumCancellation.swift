import ExperimentKit
import Foundation

/// What the ArraySumOperation experiments share besides their code, which each file holds as the
/// article's Cancellation.playground writes it around its operation (article 000, "Destruction of
/// operations on OperationQueue"): the source, the knobs, and the check of the sums against the
/// cancel's instant.
enum ArraySumCancellation {
    static let source = ArticleSource(
        file: "000_d66eefb2b922d5e0.txt",
        section: "Destruction of operations on OperationQueue (Cancellation.playground)")

    /// The knobs: when the cancel comes (`articleInstant` is the article's; the default moves a
    /// quarter of a sum earlier when that falls on a sum's end), and how many pairs are summed.
    static func parameters(articleInstant: Double, clearOfTheRace: Bool) -> [ParameterSpec] {
        let cancelAt =
            clearOfTheRace
            ? StandardParameters.cancelAt(
                Summing.instantClearOfSums(articleInstant),
                origin: .chosen(
                    "the article's \(articleInstant.decimalText) s less a quarter of a sum, clear of the race",
                    insteadOf: articleInstant)
            )
            : StandardParameters.cancelAt(articleInstant)
        return [cancelAt, StandardParameters.pairs(Summing.cancellationPairs.count, 1...10)]
    }

    /// The outputArray is the first n sums, n being what the model derives from the cancel's instant.
    static func sumsMatchPrediction(_ measurement: MeasuredRun, _ prediction: Prediction) -> Check {
        sumsMatchPrediction(measurement.outcome["outputArray"].flatMap(intArray) ?? [], prediction)
    }

    /// The same, of the sums `measured` (those a task printed).
    static func sumsMatchPrediction(_ measured: [Int], _ prediction: Prediction) -> Check {
        let expected = prediction.stepsCompleted(0).sorted().map(Summing.cancellationSums)
        let text = expected.map { "[" + $0.map(String.init).joined(separator: ", ") + "]" }.joined(separator: " or ")
        return Check("outputArray is \(text), as the cancel's instant predicts", passed: expected.contains(measured))
    }

    /// A race between the cancel and a sum's end is told by the outputArray: `[3, 7]` or `[3, 7, 11]`.
    static let naming = OutcomeNaming(
        predicted: { branch, _ in
            OutcomeText.describe(Summing.value(Summing.cancellationSums(branch.spans[0]?.stepsCompleted ?? 0)))
        },
        measured: { $0.outcome["outputArray"].map(OutcomeText.describe) }
    )

    static func intArray(_ value: JSONValue) -> [Int]? {
        guard case .array(let items) = value else { return nil }
        return items.compactMap { $0.numberValue.map { Int($0) } }
    }
}
