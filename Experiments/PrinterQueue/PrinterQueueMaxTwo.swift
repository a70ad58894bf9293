import ExperimentKit

/// The same seven closures, two at a time (article 000, Experiment 1).
let printerQueueMaxTwo = Experiment(
    name: "printer-queue-max-2",
    title: "Seven closures, maxConcurrentOperationCount = 2",
    source: PrinterQueue.source,
    summary: "The seven closures again, on a queue limited to two operations at a time.",
    claim: ArticleClaim(
        quote: "It takes a very short time to put all operations on the printerQueue, and a little more than 8 seconds to perform all operations, since they start in pairs and the last 7th operation starts alone in the fourth “pair”.",
        seconds: 8
    ),
    expectedOutcome: "Pairs start every 2 s; the seventh word runs alone in the fourth pair.",
    platformDifference: "The queue's width of 2 is the bottleneck on every platform, so Linux matches the article.",
    workload: { PrinterQueue.workload(width: 2, withConcatenation: false) },
    run: PrinterQueue.run,
    checks: { measurement, prediction in
        let last = PrinterQueue.words[6]
        let alone = measurement.span(last).map { seventh in
            !measurement.operations.contains { $0.label != last && $0.start < seventh.end - Overlap.touchingSeconds && seventh.start < $0.end - Overlap.touchingSeconds }
        } ?? false
        return [
            PrinterQueue.printedEveryWord(measurement, prediction.workload),
            Check("the 7th operation, '\(last)', ran alone in the fourth pair", passed: alone),
        ]
    }
)
