import ExperimentKit

/// The same seven closures, two at a time (article 000, Experiment 1).
let printerQueueMaxTwo = Experiment(
    name: "printer-queue-max-2",
    title: "Seven closures, maxConcurrentOperationCount = 2",
    source: PrinterQueue.source,
    summary: "The seven closures again, on a queue limited to two operations at a time.",
    claim: ArticleClaim(
        quote: "We see that it takes a very short time to put all operations on the printerQueue, and a little more than 8 seconds to perform all operations, since they start in pairs and the last 7th operation starts alone in the fourth “pair”.",
        seconds: 8
    ),
    expectedOutcome: "Pairs start every 2 s; the seventh word runs alone in the fourth pair.",
    platformDifference: "The queue's width of 2 is the bottleneck on every platform, so Linux matches the article.",
    parameters: PrinterQueue.parameters(width: 2, withConcatenation: false),
    code: { context in
        let knobs = context.parameters
        let printerQueue = OperationQueue()
        printerQueue.maxConcurrentOperationCount = knobs[.width].maxConcurrentOperationCount
        PrinterQueue.addClosures(with: printerQueue.addOperation)
        printerQueue.waitUntilAllOperationsAreFinished()
    },
    checks: { measurement, prediction in
        // "Alone in the fourth pair": the seventh starts after all six others have started, a
        // round later than the fifth and sixth (their ends and its start may touch by a few
        // milliseconds on a busy machine, so the check is on starts, not on exact overlap).
        let last = PrinterQueue.words[6]
        let otherStarts = measurement.operations.filter { $0.label != last }.map(\.start)
        let alone = measurement.span(last).map { seventh in
            otherStarts.count == 6 && otherStarts.allSatisfy { $0 < seventh.start }
        } ?? false
        // The article's claim holds for its own seven words and width 2.
        return [PrinterQueue.printedEveryWord(measurement, prediction.workload)]
            + (prediction.parameters.isArticleSetting ? [Check("the 7th operation, '\(last)', ran alone in the fourth pair", passed: alone)] : [])
    }
)
