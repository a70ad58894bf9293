import ExperimentKit
import Foundation

/// The seven words as execution blocks of one BlockOperation, run with `start()`
/// (Operation.playground of article 000; article 002 on BlockOperation).
let blockOperationMultiPrinter = Experiment(
    name: "block-operation-multi-printer",
    title: "One BlockOperation, seven execution blocks",
    source: ArticleSource(file: "002_207e8afa59e11a7d.txt", section: "Understanding BlockOperation (multiPrinter of article 000's Operation.playground)"),
    summary: "One BlockOperation holds the seven words as execution blocks, each printing its word and sleeping 2 s; it is started with start() on the experiment's own thread, and its completion block prints \"Finished multiPrinting!\".",
    claim: ArticleClaim(
        quote: "BlockOperation is a concrete subclass of Operation that allows you to execute one or more blocks concurrently.",
        seconds: nil
    ),
    expectedOutcome: "Every block prints once; the completion block runs after the last block.",
    platformDifference: "swift-corelibs-foundation's BlockOperation runs its blocks one after another on the thread that called start(), where Apple's runs them concurrently.",
    parameters: [StandardParameters.count(PrinterQueue.words.count, of: "execution blocks"), StandardParameters.sleep(PrinterQueue.sleepSeconds, of: "each block sleeps")],
    workload: { values in
        var workload = Workload()
        let blocks = (0..<values.count("count")).map {
            workload.add(PlannedOperation(label: PrinterQueue.word($0), articleSeconds: values.seconds("sleep"), executor: .blockOperationBlock))
        }
        workload.add(PlannedOperation(label: MultiPrinter.completion, articleSeconds: 0, executor: .globalQueue(.default), dependencies: blocks))
        return workload
    },
    run: { context, workload in
        let multiPrinter = BlockOperation()
        for planned in workload.operations(executedBy: .blockOperationBlock) {
            multiPrinter.addExecutionBlock {
                context.timeline.operation(planned.label) {
                    context.print(planned.label)
                    context.sleep(articleSeconds: planned.articleSeconds)
                    return false
                }
            }
        }
        let completed = DispatchSemaphore(value: 0)
        multiPrinter.completionBlock = {
            context.timeline.operation(MultiPrinter.completion) {
                context.print(MultiPrinter.completion)
                return false
            }
            completed.signal()
        }
        multiPrinter.start()
        let startReturned = context.timeline.now()
        completed.wait()
        var outcome = context.timeline.scheduleOutcome()
        outcome.set("startReturnedSeconds", .number(startReturned))
        return outcome
    },
    checks: { measurement, prediction in
        let lastBlockEnd = measurement.operations.filter { $0.label != MultiPrinter.completion }.map(\.end).max() ?? .infinity
        let completion = measurement.span(MultiPrinter.completion)
        return [
            PrinterQueue.printedEveryWord(measurement, prediction.workload),
            Check("the completion block ran after the last block ended", passed: completion.map { $0.start >= lastBlockEnd } ?? false),
        ]
    }
)

enum MultiPrinter {
    static let completion = "Finished multiPrinting!"
}
