import ExperimentKit
import Foundation

// swift-format-ignore
// Article 000, “Experiment 1. Creating an OperationQueue and Adding Closures”: "Let's turn the
// printerQueue to serial (serial) by setting the maxConcurrentOperationCount property to 1".
let serialQueue = Experiment("serial-queue", article: PrinterQueue.article, section: PrinterQueue.section) { context in
    let printerQueue = OperationQueue()
    printerQueue.maxConcurrentOperationCount = context.width(1)
    printerQueue.addOperation { print("Каждый 🍎"); sleep(2) }
    printerQueue.addOperation { print("Охотник 🍊"); sleep(2) }
    printerQueue.addOperation { print("Желает 🍋"); sleep(2) }
    printerQueue.addOperation { print("Знать 🍏"); sleep(2) }
    printerQueue.addOperation { print("Где 💎"); sleep(2) }
    printerQueue.addOperation { print("Сидит 🚙"); sleep(2) }
    printerQueue.addOperation { print("Фазан 🍆"); sleep(2) }
    let concatenationOperation = BlockOperation { print("-------💧☂️"); sleep(2) }
    concatenationOperation.qualityOfService = context.qualityOfService(.userInitiated)
    printerQueue.addOperation(concatenationOperation)
    printerQueue.waitUntilAllOperationsAreFinished()
}
.title("maxConcurrentOperationCount = 1: one after another")
.summary("The seven closures and the .userInitiated concatenation on a serial queue (width 1).")
.claim(
    "We see that in this case, operations are performed sequentially, one after another, priorities do not work and the total time for performing all operations increases to 16 seconds.",
    seconds: 16
)
.expectedOutcome("Operations run one at a time in the order added: the .userInitiated one runs last, because a queue of width 1 ignores the priority its qualityOfService would give it (a queuePriority set on an operation still decides there, as queue-priority-order measures).")
.platformDifference("A serial queue runs one operation at a time on every platform, so Linux matches the article.")
.parameters(PrinterQueue.parameters(width: 1, withConcatenation: true))
.checks { measurement, prediction in
    // On a queue of width 1 the priority a qualityOfService would give is ignored: the order of adding wins.
    let added = prediction.workload.operations.map(\.label)
    let serial = prediction.workload.queues[0].maxConcurrentOperationCount == 1
    return [PrinterQueue.printedEveryWord(measurement, prediction.workload)]
        + (serial ? [Check("operations started in the order they were added, '\(PrinterQueue.concatenation)' last", passed: measurement.startOrder == added)] : [])
}
