import ExperimentKit
import Foundation

/// `maxConcurrentOperationCount = 2` with three operations (article 002, "Operation Queues").
let maxTwoThreeOperations = Experiment(
    "max-2-three-operations", article: "002_207e8afa59e11a7d.txt", section: "Operation Queues"
) { _ in
    let operationQueue = OperationQueue()
    operationQueue.maxConcurrentOperationCount = 2

    let operation1 = BlockOperation {
        print("Operation 1")
        sleep(2)
    }

    let operation2 = BlockOperation {
        print("Operation 2")
        sleep(2)
    }

    let operation3 = BlockOperation {
        print("Operation 3")
        sleep(2)
    }

    operationQueue.addOperations([operation1, operation2, operation3], waitUntilFinished: false)
    // The article's example ends here; the experiment waits for what it started.
    operationQueue.waitUntilAllOperationsAreFinished()
}
.title("Three operations, maxConcurrentOperationCount = 2")
.summary(
    "Three BlockOperations, each printing \"Operation n\" and sleeping 2 s, on a queue limited to two operations at a time."
)
.claim("maxConcurrentOperationCount: Controls the maximum number of concurrent operations.", seconds: nil)
.expectedOutcome("Operations 1 and 2 start together; operation 3 starts when one of them has ended: 4 s in all.")
.platformDifference(
    "The queue's width of 2 is the bottleneck on every platform, and Linux's pool starts with two workers, so Linux matches."
)
.checks { measurement, prediction in
    let firstEnd = MaxTwo.labels.prefix(2).compactMap { measurement.span($0)?.end }.min() ?? .infinity
    let third = measurement.span(MaxTwo.labels[2])
    return [
        PrinterQueue.printedEveryWord(measurement, prediction.workload),
        Check(
            "'\(MaxTwo.labels[2])' started only when one of the first two had ended",
            passed: third.map { $0.start >= firstEnd - Overlap.touchingSeconds } ?? false),
    ]
}

/// The labels of article 002's width-2 queue, for its checks.
enum MaxTwo {
    static let labels = ["Operation 1", "Operation 2", "Operation 3"]
}
