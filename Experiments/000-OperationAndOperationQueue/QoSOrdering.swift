import ExperimentKit
import Foundation

// swift-format-ignore
// Article 000, “Experiment 1. Creating an OperationQueue and Adding Closures”: a .userInitiated
// concatenationOperation added last to the width-2 queue.
let qosOrdering = Experiment("qos-ordering", article: PrinterQueue.article, section: PrinterQueue.section) { context in
    let printerQueue = OperationQueue()
    printerQueue.maxConcurrentOperationCount = context.width(2)
    printerQueue.addOperation { print("Каждый 🍎"); sleep(2) }
    printerQueue.addOperation { print("Охотник 🍊"); sleep(2) }
    printerQueue.addOperation { print("Желает 🍋"); sleep(2) }
    printerQueue.addOperation { print("Знать 🍏"); sleep(2) }
    printerQueue.addOperation { print("Где 💎"); sleep(2) }
    printerQueue.addOperation { print("Сидит 🚙"); sleep(2) }
    printerQueue.addOperation { print("Фазан 🍆"); sleep(2) }
    // "Now add another concatenationOperation operation with an increased qualityOfService equal to .userInitiated"
    let concatenationOperation = BlockOperation { print("-------💧☂️"); sleep(2) }
    concatenationOperation.qualityOfService = context.qualityOfService(.userInitiated)
    printerQueue.addOperation(concatenationOperation)
    printerQueue.waitUntilAllOperationsAreFinished()
}
.title("A .userInitiated operation jumps the width-2 queue")
.summary("The seven closures on a width-2 queue, plus the concatenation operation with qualityOfService .userInitiated, added last. The queue derives a higher priority from its QoS.")
.claim(
    "We see that at the first opportunity an operation with a higher priority is performed before the others, while the total time for performing all operations practically does not change - just over 8 seconds.",
    seconds: 8
)
.expectedOutcome("The concatenation starts in the first free slot (with the third word), before the remaining words.")
.platformDifference("Both platforms start the higher-priority operation at the first free slot and the width of 2 sets the pace, so Linux matches the article.")
.parameters(PrinterQueue.parameters(width: 2, withConcatenation: true))
.checks { measurement, prediction in
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
