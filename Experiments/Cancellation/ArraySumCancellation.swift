import ExperimentKit
import Foundation

/// What the ArraySumOperation experiments share (article 000, "Destruction of operations on
/// OperationQueue", Cancellation.playground): one loop of five slow additions on a queue, and a
/// `cancel()` from the experiment's thread at an instant.
enum ArraySumCancellation {
    static let source = ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Destruction of operations on OperationQueue (Cancellation.playground)")

    /// The knobs: when the cancel comes (`articleInstant` is the article's; the default moves a
    /// quarter of a sum earlier when that falls on a sum's end), and how many pairs are summed.
    static func parameters(articleInstant: Double, clearOfTheRace: Bool) -> [ParameterSpec] {
        let instant = clearOfTheRace ? Summing.instantClearOfSums(articleInstant) : articleInstant
        let why = clearOfTheRace ? "the article's \(Format.number(articleInstant)) s less a quarter of a sum, clear of the race" : "the article's"
        return [StandardParameters.cancelAt(instant, article: articleInstant, why: why), StandardParameters.pairs(Summing.cancellationPairs.count, 1...10)]
    }

    /// The loop as the model sees it: one-second steps, one per pair, checking `isCancelled` or not.
    static func workload(_ values: Parameters, label: String, checksCancellation: Bool) -> Workload {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
        let loop = workload.add(PlannedOperation(
            label: label, articleSeconds: Summing.secondsPerSum, executor: .queue(queue),
            steps: values.count("pairs"), checksCancellation: checksCancellation
        ))
        workload.cancel(.operation(loop), atArticleSeconds: values.seconds("cancel-at"))
        return workload
    }

    /// The pairs the workload's loop sums.
    static func input(_ workload: Workload) -> [(Int, Int)] {
        Summing.cancellationPairs(workload.operations[0].steps)
    }

    /// Adds `operation` to a queue, cancels it at the workload's instant, waits, and reports
    /// the sums it produced and when the cancel came.
    static func run(_ operation: Operation, sums: @escaping () -> [Int], context: RunContext, workload: Workload) -> Outcome {
        let queue = OperationQueue()
        context.timeline.timeEnqueueing { queue.addOperation(operation) }
        context.sleep(untilArticleSeconds: workload.cancellations[0].atArticleSeconds)
        context.print("cancel()")
        let cancelledAt = context.timeline.now()
        operation.cancel()
        queue.waitUntilAllOperationsAreFinished()
        return Outcome([
            Outcome.Field("outputArray", Summing.value(sums())),
            Outcome.Field("cancelledAtSeconds", .number(cancelledAt)),
        ])
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
