import ExperimentKit

// swift-format-ignore
// Article 000, “Experiment 1. Creating an OperationQueue and Adding Closures”: the width set to 2.
let printerQueueMaxTwo = Experiment("printer-queue-max-2", article: PrinterQueue.article, section: PrinterQueue.section) { context in
    let printerQueue = OperationQueue()
    printerQueue.maxConcurrentOperationCount = context.width(2)
    printerQueue.addOperation { print("Каждый 🍎"); sleep(2) }
    printerQueue.addOperation { print("Охотник 🍊"); sleep(2) }
    printerQueue.addOperation { print("Желает 🍋"); sleep(2) }
    printerQueue.addOperation { print("Знать 🍏"); sleep(2) }
    printerQueue.addOperation { print("Где 💎"); sleep(2) }
    printerQueue.addOperation { print("Сидит 🚙"); sleep(2) }
    printerQueue.addOperation { print("Фазан 🍆"); sleep(2) }
    printerQueue.waitUntilAllOperationsAreFinished()
}
.title("Seven closures, maxConcurrentOperationCount = 2")
.summary("The seven closures again, on a queue limited to two operations at a time.")
.claim(
    "We see that it takes a very short time to put all operations on the printerQueue, and a little more than 8 seconds to perform all operations, since they start in pairs and the last 7th operation starts alone in the fourth “pair”.",
    seconds: 8
)
.expectedOutcome("Pairs start every 2 s; the seventh word runs alone in the fourth pair.")
.platformDifference("The queue's width of 2 is the bottleneck on every platform, so Linux matches the article.")
.parameters(PrinterQueue.parameters(width: 2, withConcatenation: false))
.checks { measurement, prediction in
    // "Alone in the fourth pair": the seventh starts after all six others have started, a
    // round later than the fifth and sixth (their ends and its start may touch by a few
    // milliseconds on a busy machine, so the check is on starts, not on exact overlap).
    let last = PrinterQueue.words[6]
    let words = Set(PrinterQueue.printing(prediction.workload).map(\.label))
    let otherStarts = measurement.operations.filter { $0.label != last && words.contains($0.label) }.map(\.start)
    let alone = measurement.span(last).map { seventh in
        otherStarts.count == 6 && otherStarts.allSatisfy { $0 < seventh.start }
    } ?? false
    // The article's claim holds for its own seven words and width 2.
    return [PrinterQueue.printedEveryWord(measurement, prediction.workload)]
        + (prediction.parameters.isArticleSetting ? [Check("the 7th operation, '\(last)', ran alone in the fourth pair", passed: alone)] : [])
}
