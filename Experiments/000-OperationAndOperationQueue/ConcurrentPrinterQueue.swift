import ExperimentKit

/// Seven blocking closures on a queue of default width (article 000, Experiment 1).
let concurrentPrinterQueue = Experiment(
    name: "concurrent-printer-queue",
    title: "Seven closures on a default-width queue",
    source: PrinterQueue.source,
    summary: "Seven closures each print a word and block their thread with sleep(2) on an OperationQueue whose maxConcurrentOperationCount is left at its default.",
    claim: ArticleClaim(
        quote: "The total execution time of all 7 operations is slightly more than 2 seconds and corresponds to the execution time of the sleep(2) operator, therefore, printerQueue runs all 7 operations simultaneously on many threads.",
        seconds: 2
    ),
    expectedOutcome: "All seven words print; as many run at once as the platform's thread pool allows.",
    platformDifference: "Linux's Dispatch starts with one worker per CPU and adds only one more per second while all of them sleep, so the seven sleeping closures queue for threads instead of all starting at once.",
    parameters: PrinterQueue.parameters(width: nil, withConcatenation: false),
    code: { context in
        let knobs = context.parameters
        let printerQueue = OperationQueue()
        printerQueue.maxConcurrentOperationCount = knobs[.width].maxConcurrentOperationCount  // the article leaves it at its default
        // "Add operations in the form of closures to the printerQueue": the article's seven
        // closures, written once in PrinterQueue.swift for all five printer-queue experiments.
        PrinterQueue.addClosures(with: printerQueue.addOperation)
        printerQueue.waitUntilAllOperationsAreFinished()
    },
    checks: { measurement, prediction in [PrinterQueue.printedEveryWord(measurement, prediction.workload)] }
)
