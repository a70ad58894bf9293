import ExperimentKit
import Foundation

// swift-format-ignore
// Article 002, “Understanding BlockOperation”: the multiPrinter of article 000's Operation.playground.
let blockOperationMultiPrinter = Experiment(
    "block-operation-multi-printer", article: "002_207e8afa59e11a7d.txt",
    section: "Understanding BlockOperation (multiPrinter of article 000's Operation.playground)"
) { context in
    let multiPrinter = BlockOperation()
    // Foundation runs the completion block on a global queue after the operation finishes;
    // the experiment waits for it, where the playground simply kept running.
    let completed = DispatchSemaphore(value: 0)
    multiPrinter.completionBlock = {
        print("Finished multiPrinting!")
        completed.signal()
    }
    multiPrinter.addExecutionBlock { print("Каждый 🍎"); sleep(2) }
    multiPrinter.addExecutionBlock { print("Охотник 🍊"); sleep(2) }
    multiPrinter.addExecutionBlock { print("Желает 🍋"); sleep(2) }
    multiPrinter.addExecutionBlock { print("Знать 🍏"); sleep(2) }
    multiPrinter.addExecutionBlock { print("Где 💎"); sleep(2) }
    multiPrinter.addExecutionBlock { print("Сидит 🚙"); sleep(2) }
    multiPrinter.addExecutionBlock { print("Фазан 🍆"); sleep(2) }
    multiPrinter.start()
    context.record("startReturnedSeconds", .number(context.timeline.now()))
    completed.wait()
}
.title("One BlockOperation, seven execution blocks")
.summary("One BlockOperation holds the seven words as execution blocks, each printing its word and sleeping 2 s; it is started with start() on the experiment's own thread, and its completion block prints \"Finished multiPrinting!\".")
.claim("BlockOperation is a concrete subclass of Operation that allows you to execute one or more blocks concurrently.", seconds: nil)
.expectedOutcome("Every block prints once; the completion block runs after the last block.")
.platformDifference("swift-corelibs-foundation's BlockOperation runs its blocks one after another on the thread that called start(), where Apple's runs them concurrently.")
.checks { measurement, prediction in
    let lastBlockEnd = measurement.operations.filter { $0.label != MultiPrinter.completion }.map(\.end).max() ?? .infinity
    let completion = measurement.span(MultiPrinter.completion)
    return [
        PrinterQueue.printedEveryWord(measurement, prediction.workload),
        Check("the completion block ran after the last block ended", passed: completion.map { $0.start >= lastBlockEnd } ?? false),
    ]
}

enum MultiPrinter {
    static let completion = "Finished multiPrinting!"
}
