import ExperimentKit
import Foundation
import Synchronization

/// The synchronous SumOperation of article 000's CancellationGroup playground (named apart
/// from the asynchronous ``SumOperation``): if not cancelled, one slow addition.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants and
/// its result lives in a `Mutex`.
final class GroupSumOperation: Operation, @unchecked Sendable {
    let pair: (Int, Int)
    private let context: RunContext
    private let storedResult = Mutex<Int?>(nil)

    init(_ pair: (Int, Int), context: RunContext) {
        self.pair = pair
        self.context = context
        super.init()
        name = Summing.label(pair)
    }

    var result: Int? {
        storedResult.withLock { $0 }
    }

    override func main() {
        guard !isCancelled else { return }
        let sum = slowAdd(pair, in: context)
        storedResult.withLock { $0 = sum }
    }
}

/// GroupAdd ("Pattern 1: a group of independent operations"): a "complex operation" that owns
/// a private queue, created suspended with two operations at a time, and a serial append queue.
/// Each sum's completion block appends `(l, r, sum)` through the append queue, so the output
/// array has one writer. `start()`, `cancel()` and `wait()` act on the whole group.
final class GroupAdd: Sendable {
    private let queue = OperationQueue()
    private let appendQueue = OperationQueue()
    /// Entered per operation, left by its completion block (which Foundation runs on another
    /// thread after the operation finishes, cancelled or not), so `wait()` sees every append.
    private let completions = DispatchGroup()
    private let output = LockedArray<(Int, Int, Int)>()

    /// `width` is the private queue's maxConcurrentOperationCount (the article's is 2; nil keeps the default).
    init(input: [(Int, Int)], width: Int? = 2, context: RunContext) {
        queue.isSuspended = true
        queue.maxConcurrentOperationCount = width ?? OperationQueue.defaultMaxConcurrentOperationCount
        appendQueue.maxConcurrentOperationCount = 1
        for pair in input {
            let operation = GroupSumOperation(pair, context: context)
            completions.enter()
            operation.completionBlock = { [appendQueue, output, completions, unowned operation] in
                if let sum = operation.result {
                    appendQueue.addOperation {
                        output.append((pair.0, pair.1, sum))
                    }
                }
                completions.leave()
            }
            queue.addOperation(operation)
        }
    }

    /// The tuples appended so far, in the order they arrived.
    var outputArray: [(Int, Int, Int)] {
        output.elements
    }

    func start() {
        queue.isSuspended = false
    }

    func cancel() {
        queue.cancelAllOperations()
    }

    /// Waits for every sum, every completion block and every append.
    func wait() {
        queue.waitUntilAllOperationsAreFinished()
        completions.wait()
        appendQueue.waitUntilAllOperationsAreFinished()
    }
}
