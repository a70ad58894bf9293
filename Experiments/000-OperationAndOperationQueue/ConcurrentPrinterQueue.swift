import ExperimentKit

// swift-format-ignore
// Article 000, “Experiment 1. Creating an OperationQueue and Adding Closures”: the printer queue.
let concurrentPrinterQueue = Experiment("concurrent-printer-queue", article: PrinterQueue.article, section: PrinterQueue.section) { context in
    let printerQueue = OperationQueue()
    // The article leaves the width at its default; `--set width=N` sets one.
    printerQueue.maxConcurrentOperationCount = context.width(OperationQueue.defaultMaxConcurrentOperationCount)
    printerQueue.addOperation { print("Каждый 🍎"); sleep(2) }
    printerQueue.addOperation { print("Охотник 🍊"); sleep(2) }
    printerQueue.addOperation { print("Желает 🍋"); sleep(2) }
    printerQueue.addOperation { print("Знать 🍏"); sleep(2) }
    printerQueue.addOperation { print("Где 💎"); sleep(2) }
    printerQueue.addOperation { print("Сидит 🚙"); sleep(2) }
    printerQueue.addOperation { print("Фазан 🍆"); sleep(2) }
    printerQueue.waitUntilAllOperationsAreFinished()
}
.title("Seven closures on a default-width queue")
.summary("Seven closures each print a word and block their thread with sleep(2) on an OperationQueue whose maxConcurrentOperationCount is left at its default.")
.claim(
    "The total execution time of all 7 operations is slightly more than 2 seconds and corresponds to the execution time of the sleep(2) operator, therefore, printerQueue runs all 7 operations simultaneously on many threads.",
    seconds: 2
)
.expectedOutcome("All seven words print; as many run at once as the platform's thread pool allows.")
.platformDifference("Linux's Dispatch starts with one worker per CPU and adds only one more per second while all of them sleep, so the seven sleeping closures queue for threads instead of all starting at once.")
.parameters(PrinterQueue.parameters(width: nil, withConcatenation: false))
.checks { measurement, prediction in [PrinterQueue.printedEveryWord(measurement, prediction.workload)] }
