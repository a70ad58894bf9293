import ExperimentKit
import Foundation

/// `maxConcurrentOperationCount = 2` with three operations (article 002, "Operation Queues").
let maxTwoThreeOperations = Experiment(
    name: "max-2-three-operations",
    title: "Three operations, maxConcurrentOperationCount = 2",
    source: ArticleSource(file: "002_207e8afa59e11a7d.txt", section: "Operation Queues"),
    summary: "Three BlockOperations, each printing \"Operation n\" and sleeping 2 s, on a queue limited to two operations at a time.",
    claim: ArticleClaim(
        quote: "maxConcurrentOperationCount: Controls the maximum number of concurrent operations.",
        seconds: nil
    ),
    expectedOutcome: "Operations 1 and 2 start together; operation 3 starts when one of them has ended: 4 s in all.",
    platformDifference: "The queue's width of 2 is the bottleneck on every platform, and Linux's pool starts with two workers, so Linux matches.",
    workload: {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "operationQueue", maxConcurrentOperationCount: 2))
        for label in MaxTwo.labels {
            workload.add(PlannedOperation(label: label, articleSeconds: MaxTwo.seconds, executor: .queue(queue)))
        }
        return workload
    },
    run: { context, workload in
        QueueWorkloadRunner(context: context, workload: workload).runPrintingOperations()
    },
    checks: { measurement, prediction in
        let firstEnd = MaxTwo.labels.prefix(2).compactMap { measurement.span($0)?.end }.min() ?? .infinity
        let third = measurement.span(MaxTwo.labels[2])
        return [
            PrinterQueue.printedEveryWord(measurement, prediction.workload),
            Check("'\(MaxTwo.labels[2])' started only when one of the first two had ended",
                  passed: third.map { $0.start >= firstEnd - Overlap.touchingSeconds } ?? false),
        ]
    }
)

/// Labels and duration of article 002's width-2 queue.
enum MaxTwo {
    static let labels = ["Operation 1", "Operation 2", "Operation 3"]
    /// Each operation's `sleep(2)`.
    static let seconds = 2.0
}
