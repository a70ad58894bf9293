import ExperimentKit

/// A `.userInitiated` operation added last to the width-2 queue (article 000, Experiment 1).
let qosOrdering = Experiment(
    name: "qos-ordering",
    title: "A .userInitiated operation jumps the width-2 queue",
    source: PrinterQueue.source,
    summary: "The seven closures on a width-2 queue, plus the concatenation operation with qualityOfService .userInitiated, added last. The queue derives a higher priority from its QoS.",
    claim: ArticleClaim(
        quote: "At the first opportunity an operation with a higher priority is performed before the others, while the total time for performing all operations practically does not change - just over 8 seconds.",
        seconds: 8
    ),
    expectedOutcome: "The concatenation starts in the first free slot (with the third word), before the remaining words.",
    platformDifference: "Both platforms start the higher-priority operation at the first free slot and the width of 2 sets the pace, so Linux matches the article.",
    workload: { PrinterQueue.workload(width: 2, withConcatenation: true) },
    run: PrinterQueue.run,
    checks: { measurement, prediction in
        let order = measurement.startOrder
        let position = order.firstIndex(of: PrinterQueue.concatenation).map { $0 + 1 }
        return [
            PrinterQueue.printedEveryWord(measurement, prediction.workload),
            Check(
                "'\(PrinterQueue.concatenation)', added 8th, started \(position.map { "\($0)" } ?? "never") of \(order.count): in the first free slot, before words 4–7",
                passed: position.map { $0 <= 3 } ?? false
            ),
        ]
    }
)
