import ExperimentKit
import Foundation

/// A `.userInitiated` operation added last to the width-2 queue (article 000, Experiment 1).
let qosOrdering = Experiment(
    name: "qos-ordering",
    title: "A .userInitiated operation jumps the width-2 queue",
    source: PrinterQueue.source,
    summary: "The seven closures on a width-2 queue, plus the concatenation operation with qualityOfService .userInitiated, added last. The queue derives a higher priority from its QoS.",
    claim: ArticleClaim(
        quote: "We see that at the first opportunity an operation with a higher priority is performed before the others, while the total time for performing all operations practically does not change - just over 8 seconds.",
        seconds: 8
    ),
    expectedOutcome: "The concatenation starts in the first free slot (with the third word), before the remaining words.",
    platformDifference: "Both platforms start the higher-priority operation at the first free slot and the width of 2 sets the pace, so Linux matches the article.",
    parameters: PrinterQueue.parameters(width: 2, withConcatenation: true),
    code: PrinterQueue.sevenClosuresThenConcatenation,
    checks: { measurement, prediction in
        // Two threads start the second round at the same instant, so which of the concatenation
        // and the third word records its start first is a matter of microseconds; the article's
        // claim is about rounds: the concatenation runs in the first free slot, before words 4–7.
        let laterWords = PrinterQueue.words[3...].compactMap { measurement.span($0)?.start }
        let firstSlot = measurement.span(PrinterQueue.concatenation).map { concatenation in
            laterWords.count == 4 && laterWords.allSatisfy { concatenation.start < $0 }
        } ?? false
        // The article's claim holds for its own seven words, width 2 and .userInitiated.
        return [PrinterQueue.printedEveryWord(measurement, prediction.workload)]
            + (prediction.parameters.isArticleSetting
                ? [Check("'\(PrinterQueue.concatenation)', added 8th, started in the first free slot, before words 4–7", passed: firstSlot)] : [])
    }
)

extension PrinterQueue {
    /// The article's playground once "another concatenationOperation" is added: qos-ordering runs
    /// it on the width-2 queue, serial-queue on a width-1 one ("Let's turn the printerQueue to
    /// serial by setting the maxConcurrentOperationCount property to 1": the article changes that
    /// one value, which each experiment's width knob sets, and keeps the code).
    static let sevenClosuresThenConcatenation: @Sendable (RunContext) -> Void = { context in
        let knobs = context.parameters
        let printerQueue = OperationQueue()
        printerQueue.maxConcurrentOperationCount = knobs[.width].maxConcurrentOperationCount
        addClosures(with: printerQueue.addOperation)
        addConcatenationOperation(to: printerQueue, qualityOfService: QualityOfService(knobs[.qos]))
        printerQueue.waitUntilAllOperationsAreFinished()
    }

    /// "Now add another concatenationOperation operation with an increased qualityOfService equal
    /// to .userInitiated" (article 000): the step this experiment adds to printer-queue-max-2's
    /// code. serial-queue adds it too, as the article keeps it when it next sets the width to 1.
    static func addConcatenationOperation(to printerQueue: OperationQueue, qualityOfService: QualityOfService) {
        let concatenationOperation = BlockOperation { print("-------💧☂️"); sleep(2) }
        concatenationOperation.qualityOfService = qualityOfService
        printerQueue.addOperation(concatenationOperation)
    }
}
