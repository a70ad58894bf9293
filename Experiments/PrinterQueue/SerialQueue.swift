import ExperimentKit
import Foundation

/// All eight operations on a queue of width 1 (article 000, Experiment 1).
let serialQueue = Experiment(
    name: "serial-queue",
    title: "maxConcurrentOperationCount = 1: one after another",
    source: PrinterQueue.source,
    summary: "The seven closures and the .userInitiated concatenation on a serial queue (width 1).",
    claim: ArticleClaim(
        quote: "We see that in this case, operations are performed sequentially, one after another, priorities do not work and the total time for performing all operations increases to 16 seconds.",
        seconds: 16
    ),
    articleCorrections: [
        ArticleCorrection(
            quote: "In a serial queue the Operation, which enters Ready state first, will be executed first, even though it might be at position 9 within the queue. If there are multiple operations entering Ready state at the same time, the priority will decide.",
            file: "004_75652ba8307bb273.txt",
            here: "an operation's qualityOfService does not decide on a serial queue: the .userInitiated concatenation, ready like the others, runs last, as this article (000) saw on Apple's Foundation. Only a queuePriority set on the operation decides, as queue-priority-order runs it: six operations made ready at one instant on a width-1 queue start in the order of the queuePriority set on five of them, and the sixth, given only qualityOfService .userInteractive, starts among the normal ones in the order added (swift-corelibs-foundation files an operation with no queuePriority under normal priority on a width-1 queue, `__actualMaxNumOps == 1 ? nil : __propertyQoS`)."
        ),
    ],
    expectedOutcome: "Operations run one at a time in the order added: the .userInitiated one runs last, because a queue of width 1 ignores priorities.",
    platformDifference: "A serial queue runs one operation at a time on every platform, so Linux matches the article.",
    parameters: PrinterQueue.parameters(width: 1, withConcatenation: true),
    // "Let's turn the printerQueue to serial (serial) by setting the maxConcurrentOperationCount
    // property to 1": the article keeps qos-ordering's code (QoSOrdering.swift) and changes that
    // one value, the width knob's default here.
    code: PrinterQueue.sevenClosuresThenConcatenation,
    checks: { measurement, prediction in
        // On a queue of width 1 priorities are ignored, whatever the other values: the order of adding wins.
        let added = prediction.workload.operations.map(\.label)
        let serial = prediction.workload.queues[0].maxConcurrentOperationCount == 1
        return [PrinterQueue.printedEveryWord(measurement, prediction.workload)]
            + (serial ? [Check("operations started in the order they were added, '\(PrinterQueue.concatenation)' last", passed: measurement.startOrder == added)] : [])
    }
)
