import ExperimentKit
import Foundation

/// A BlockOperation with three execution blocks and a completion block, added to a queue
/// (article 002, "Understanding BlockOperation").
let blockOperationThreeBlocks = Experiment(
    "block-operation-three-blocks", article: "002_207e8afa59e11a7d.txt",
    section: "Understanding BlockOperation"
) { context in
    let blockOperation = BlockOperation()

    blockOperation.addExecutionBlock {
        print("Task 1")
        sleep(2)
    }

    blockOperation.addExecutionBlock {
        print("Task 2")
        sleep(2)
    }

    blockOperation.addExecutionBlock {
        print("Task 3")
        sleep(2)
    }

    // The queue lets go of the operation before its completion block runs, on another
    // thread: the semaphore lets the experiment wait for that too. (The rehearsal calls the
    // completion block once as the operation is added, so there the wait returns at once.)
    let completed = DispatchSemaphore(value: 0)
    blockOperation.completionBlock = {
        print("All tasks are complete.")
        completed.signal()
    }

    let operationQueue = OperationQueue()
    operationQueue.addOperation(blockOperation)
    completed.wait()
    context.record(
        "blocks ran on", .string(ThreadObservation.describe(ThreeBlocks.tasks, in: context.timeline.measurement())))
}
.title("A queued BlockOperation with three execution blocks")
.summary(
    "One BlockOperation holds three execution blocks, each printing \"Task n\" and sleeping 2 s, and a completion block printing \"All tasks are complete.\"; it is added to an OperationQueue, which runs it on a worker of its pool."
)
.claim(
    "Multiple Blocks: You can add multiple blocks to a single BlockOperation, and they will execute concurrently.",
    seconds: nil
)
.expectedOutcome(
    "Task 1, Task 2, Task 3, then \"All tasks are complete.\"; here the blocks run one after another on one thread, 6 s in all."
)
.platformDifference(
    "swift-corelibs-foundation's BlockOperation runs its blocks one after another on the thread that runs the operation, where Apple's runs them concurrently."
)
.checks { measurement, prediction in
    let completion = measurement.span(ThreeBlocks.completion)
    let lastBlockEnd = ThreeBlocks.tasks.compactMap { measurement.span($0)?.end }.max() ?? .infinity
    return [
        PrinterQueue.printedEveryWord(measurement, prediction.workload),
        Check(
            "\"\(ThreeBlocks.completion)\" was printed after the last block ended",
            passed: completion.map { $0.start >= lastBlockEnd } ?? false),
    ]
}

/// What article 002's BlockOperation prints, for the checks.
enum ThreeBlocks {
    static let tasks = ["Task 1", "Task 2", "Task 3"]
    static let completion = "All tasks are complete."
}
