import ExperimentKit
import Foundation
import Synchronization

/// ArraySumOperation of article 000 ("Destruction of operations"): sums each pair of its input
/// in a loop, one slow addition after another, in `main()`. The article shows it twice: first
/// without looking at `isCancelled` (a cancel changes nothing), then checking it before each
/// sum (a cancel stops the loop); `checksCancellation` chooses which.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants and
/// its output lives in a `Mutex`.
final class ArraySumOperation: Operation, @unchecked Sendable {
    static let label = "ArraySumOperation"
    private let input: [(Int, Int)]
    private let checksCancellation: Bool
    private let context: RunContext
    private let output = Mutex<[Int]>([])

    init(input: [(Int, Int)], checksCancellation: Bool, context: RunContext) {
        self.input = input
        self.checksCancellation = checksCancellation
        self.context = context
        super.init()
    }

    /// The sums computed so far.
    var outputArray: [Int] {
        output.withLock { $0 }
    }

    override func main() {
        context.timeline.operation(Self.label) {
            for pair in input {
                if checksCancellation && isCancelled { break }
                let sum = slowAdd(pair, in: context)
                output.withLock { $0.append(sum) }
            }
            return isCancelled
        }
    }
}

/// AnotherArraySumOperation of article 000: the loop lives in `slowAddArray`, outside the
/// operation, so the operation reaches it only through the progress closure, which prints how
/// much is done and answers whether to go on (`!isCancelled`).
///
/// `@unchecked Sendable`: as ``ArraySumOperation``.
final class AnotherArraySumOperation: Operation, @unchecked Sendable {
    static let label = "AnotherArraySumOperation"
    private let input: [(Int, Int)]
    private let context: RunContext
    private let output = Mutex<[Int]>([])

    init(input: [(Int, Int)], context: RunContext) {
        self.input = input
        self.context = context
        super.init()
    }

    var outputArray: [Int] {
        output.withLock { $0 }
    }

    override func main() {
        context.timeline.operation(Self.label) {
            let sums = slowAddArray(input, in: context) { progress in
                self.context.print("\(Int((progress * 100).rounded()))% of the array processed")
                return !self.isCancelled
            }
            output.withLock { $0 = sums }
            return isCancelled
        }
    }
}

/// Sums the pairs one slow addition at a time; after each, reports the fraction done to
/// `progress`, and stops when it answers false.
func slowAddArray(_ input: [(Int, Int)], in context: RunContext, progress: (Double) -> Bool) -> [Int] {
    var results: [Int] = []
    for pair in input {
        results.append(slowAdd(pair, in: context))
        if !progress(Double(results.count) / Double(input.count)) { break }
    }
    return results
}
