import ExperimentKit
import Foundation
import Synchronization

/// The synchronous SumOperation of article 000's CancellationGroup playground (named apart
/// from the asynchronous ``SumOperation``): if not cancelled, one `slowAdd` of its `inputPair`
/// into `output`.
///
/// `@unchecked Sendable` (required of every Operation subclass): its input is a constant and
/// its output lives in a `Mutex`.
class GroupSumOperation: Operation, FollowOnCompletion, @unchecked Sendable {
    let inputPair: (Int, Int)
    private let storedOutput = Mutex<Int?>(nil)

    init(input: (Int, Int)) {
        inputPair = input
        super.init()
        name = Self.label(input)
    }

    /// `SumOperation 1 + 2`: its row.
    static func label(_ pair: (Int, Int)) -> String {
        "SumOperation \(Summing.label(pair))"
    }

    var output: Int? {
        storedOutput.withLock { $0 }
    }

    override func main() {
        if isCancelled { return }
        let sum = slowAdd(inputPair)
        storedOutput.withLock { $0 = sum }
    }

    /// What the completion block appends depends on `output`, which only the run has: follow-on work.
    override var completionBlock: (@Sendable () -> Void)? {
        get { super.completionBlock }
        set { super.completionBlock = followingOn(newValue) }
    }
}

/// GroupAdd ("Pattern 1: a group of independent operations"): a "complex operation" that owns
/// a private queue, created suspended with two operations at a time, and a serial append queue.
/// Each sum's completion block appends `(l, r, sum)` through the append queue, so the output
/// array has one writer. `start()`, `cancel()` and `wait()` act on the whole group
/// (``ComplexOperation``).
///
/// One departure from the article, for a reason: its `wait()` waits for the queue only, but
/// Foundation runs a completion block on another thread after its operation has finished, so
/// an append could still be on its way; here `wait()` also waits for every completion block
/// (a `DispatchGroup`) and for the append queue.
final class GroupAdd: ComplexOperation, Sendable {
    let queue = OperationQueue()
    private let appendQueue = OperationQueue()
    private let completions = DispatchGroup()
    private let output = LockedArray<(Int, Int, Int)>()

    /// `width` is the private queue's maxConcurrentOperationCount (the article's is 2).
    init(input: [(Int, Int)], width: Int = 2) {
        queue.isSuspended = true
        queue.maxConcurrentOperationCount = width
        appendQueue.maxConcurrentOperationCount = 1
        generateOperations(input)
    }

    private func generateOperations(_ numberArray: [(Int, Int)]) {
        for pair in numberArray {
            let operation = GroupSumOperation(input: pair)
            completions.enter()
            operation.completionBlock = { [appendQueue, output, completions, unowned operation] in
                defer { completions.leave() }
                guard let result = operation.output else { return }
                appendQueue.addOperation {
                    output.append((pair.0, pair.1, result))
                }
            }
            queue.addOperation(operation)
        }
    }

    /// The tuples appended so far, in the order they arrived.
    var outputArray: [(Int, Int, Int)] {
        output.elements
    }

    func wait() {
        queue.waitUntilAllOperationsAreFinished()
        completions.wait()
        appendQueue.waitUntilAllOperationsAreFinished()
    }
}
