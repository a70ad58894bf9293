import ExperimentKit
import Foundation
import Synchronization

/// The Cancellation playground's `slowAdd`: one second's sleep, then the sum (a row of its own
/// in the timeline, inside its operation's).
func slowAdd(_ input: (Int, Int)) -> Int {
    row(Summing.label(input)) { sleep(slowAddSeconds) }
    return input.0 + input.1
}

/// How long one `slowAdd` sleeps, in article seconds.
let slowAddSeconds = 1.0

/// ArraySumOperation of article 000 ("Destruction of operations"): sums each pair of its
/// `inputArray` in a loop, one `slowAdd` after another, in `main()`. The article shows it twice:
/// first without looking at `isCancelled` (a cancel changes nothing), then checking it before
/// each sum (a cancel stops the loop); `checksCancellation` chooses which.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants and
/// its output lives in a `Mutex`.
class ArraySumOperation: Operation, @unchecked Sendable {
    let inputArray: [(Int, Int)]
    let checksCancellation: Bool
    private let output = Mutex<[Int]>([])

    init(input: [(Int, Int)], checksCancellation: Bool) {
        inputArray = input
        self.checksCancellation = checksCancellation
        super.init()
        name = "ArraySumOperation"
    }

    /// The sums computed so far.
    var outputArray: [Int] {
        output.withLock { $0 }
    }

    override func main() {
        for pair in inputArray {
            if checksCancellation && isCancelled { return }
            let sum = slowAdd(pair)
            output.withLock { $0.append(sum) }
        }
    }
}

/// AnotherArraySumOperation of article 000: the loop lives in `slowAddArray`, outside the
/// operation, so the operation reaches it only through the progress closure, which prints how
/// much is done and answers whether to go on (`!isCancelled`).
///
/// A class of its own, as in the article, which presents the two as separate designs, each
/// class whole: a reader compares their `main()`s, the loop inside the operation against the
/// loop outside it.
///
/// `@unchecked Sendable`: as ``ArraySumOperation``.
final class AnotherArraySumOperation: Operation, @unchecked Sendable {
    let inputArray: [(Int, Int)]
    private let output = Mutex<[Int]>([])

    init(input: [(Int, Int)]) {
        inputArray = input
        super.init()
        name = "AnotherArraySumOperation"
    }

    var outputArray: [Int] {
        output.withLock { $0 }
    }

    override func main() {
        let sums = slowAddArray(inputArray) { progress in
            print("\(Int((progress * 100).rounded()))% of the array processed")
            return !self.isCancelled
        }
        output.withLock { $0 = sums }
    }
}

/// Sums the pairs one `slowAdd` at a time; after each, reports the fraction done to `progress`,
/// and stops when it answers false.
func slowAddArray(_ input: [(Int, Int)], progress: (Double) -> Bool) -> [Int] {
    var results: [Int] = []
    for pair in input {
        results.append(slowAdd(pair))
        if !progress(Double(results.count) / Double(input.count)) { break }
    }
    return results
}
