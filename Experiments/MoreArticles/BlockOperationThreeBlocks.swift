import ExperimentKit
import Foundation

/// A BlockOperation with three execution blocks and a completion block, added to a queue
/// (article 002, "Understanding BlockOperation").
let blockOperationThreeBlocks = Experiment(
    name: "block-operation-three-blocks",
    title: "A queued BlockOperation with three execution blocks",
    source: ArticleSource(file: "002_207e8afa59e11a7d.txt", section: "Understanding BlockOperation"),
    summary: "One BlockOperation holds three execution blocks, each printing \"Task n\" and sleeping 2 s, and a completion block printing \"All tasks are complete.\"; it is added to an OperationQueue, which runs it on a worker of its pool.",
    claim: ArticleClaim(
        quote: "Multiple Blocks: You can add multiple blocks to a single BlockOperation, and they will execute concurrently.",
        seconds: nil
    ),
    expectedOutcome: "Task 1, Task 2, Task 3, then \"All tasks are complete.\"; here the blocks run one after another on one thread, 6 s in all.",
    platformDifference: "swift-corelibs-foundation's BlockOperation runs its blocks one after another on the thread that runs the operation, where Apple's runs them concurrently.",
    workload: {
        var workload = Workload()
        // The model's `.blockOperationBlock` is a block run by `start()` on the experiment's own
        // thread; here a worker of the queue's pool calls `start()`. The timing is the same
        // (one thread runs the blocks in turn under linux, the pool runs them at once under
        // apple, and the experiment's thread only waits), but the predicted rows show thread 0
        // where the run shows a worker.
        let blocks = ThreeBlocks.tasks.map {
            workload.add(PlannedOperation(label: $0, articleSeconds: ThreeBlocks.seconds, executor: .blockOperationBlock))
        }
        workload.add(PlannedOperation(label: ThreeBlocks.completion, articleSeconds: 0, executor: .globalQueue(.default), dependencies: blocks))
        return workload
    },
    run: { context, workload in
        let blockOperation = BlockOperation()
        for planned in workload.operations(executedBy: .blockOperationBlock) {
            blockOperation.addExecutionBlock {
                context.timeline.operation(planned.label) {
                    context.print(planned.label)
                    context.sleep(articleSeconds: planned.articleSeconds)
                    return false
                }
            }
        }
        // The queue lets go of the operation before its completion block runs (on another
        // thread): the semaphore lets the experiment wait for that too.
        let completed = DispatchSemaphore(value: 0)
        blockOperation.completionBlock = {
            context.timeline.operation(ThreeBlocks.completion) {
                context.print(ThreeBlocks.completion)
                return false
            }
            completed.signal()
        }
        let operationQueue = OperationQueue()
        context.timeline.timeEnqueueing {
            operationQueue.addOperation(blockOperation)
        }
        completed.wait()
        var outcome = context.timeline.scheduleOutcome()
        outcome.set("blocks ran on", .string(ThreadObservation.describe(ThreeBlocks.tasks, in: context.timeline.measurement())))
        return outcome
    },
    checks: { measurement, prediction in
        let completion = measurement.span(ThreeBlocks.completion)
        let lastBlockEnd = ThreeBlocks.tasks.compactMap { measurement.span($0)?.end }.max() ?? .infinity
        return [
            PrinterQueue.printedEveryWord(measurement, prediction.workload),
            Check("\"\(ThreeBlocks.completion)\" was printed after the last block ended", passed: completion.map { $0.start >= lastBlockEnd } ?? false),
        ]
    }
)

/// Labels and durations of article 002's BlockOperation.
enum ThreeBlocks {
    static let tasks = ["Task 1", "Task 2", "Task 3"]
    static let completion = "All tasks are complete."
    /// Each block's `sleep(2)`.
    static let seconds = 2.0
}
