import ExperimentKit
import Foundation
import Synchronization

/// The articles' slow addition: blocks the calling thread for one sum's duration, then adds.
func slowAdd(_ pair: (Int, Int), in context: RunContext, articleSeconds: Double = Summing.secondsPerSum) -> Int {
    context.timeline.operation(Summing.label(pair)) {
        context.sleep(articleSeconds: articleSeconds)
    }
    return pair.0 + pair.1
}

/// Labels and durations shared by the summing experiments of article 000.
enum Summing {
    /// Every slow addition sleeps 1 article second (`sleep(1)` in the playgrounds).
    static let secondsPerSum = 1.0
    /// The Cancellation and CancellationGroup playgrounds' input: (1, 2) (3, 4) (5, 6) (7, 8)
    /// (9, 10), continued in the same way when `pairs` asks for more.
    static func cancellationPairs(_ count: Int) -> [(Int, Int)] {
        (0..<count).map { (2 * $0 + 1, 2 * $0 + 2) }
    }

    static let cancellationPairs = cancellationPairs(5)
    /// The AsyncOperations playground's input.
    static let asyncPairs = [(1, 5), (5, 8), (6, 1), (3, 9), (6, 12), (1, 0)]

    /// `1 + 5`: the row of one sum in a timeline.
    static func label(_ pair: (Int, Int)) -> String {
        "\(pair.0) + \(pair.1)"
    }

    /// `1 + 5 · asyncAdd`: the row of the pool worker that sleeps for an asynchronous sum.
    static func workerLabel(_ pair: (Int, Int)) -> String {
        "\(label(pair)) · asyncAdd"
    }

    /// Where the experiments cancel, for an article instant that falls on the boundary between
    /// two sums (every cancel in the articles does): a quarter of a sum earlier. At the article's
    /// instant the cancel and the next sum's start land within a millisecond of each other, so
    /// either may come first; a quarter of a sum away, the order cannot flip at any time scale
    /// (a quarter of 0.05 s is more than the model's 10 ms cancel window).
    static func instantClearOfSums(_ articleInstant: Double) -> Double {
        articleInstant - secondsPerSum / 4
    }

    /// The first `count` sums of the cancellation playgrounds' input.
    static func cancellationSums(_ count: Int) -> [Int] {
        cancellationPairs(count).map { $0.0 + $0.1 }
    }

    /// Sums as an outcome value.
    static func value(_ sums: [Int]) -> JSONValue {
        .array(sums.map { .number(Double($0)) })
    }
}

/// The asynchronous SumOperation of article 000 ("Asynchronous operation"): `main()` calls
/// `asyncAdd`, which sleeps on an addition queue of its own and calls back; the callback stores
/// the sum and finishes the operation. Built on ``AsyncOperation``, so the queue (and anything
/// that depends on it) waits for the callback, not for `main()`.
///
/// `@unchecked Sendable` (required of every Operation subclass): its input is a constant and
/// its result lives in a `Mutex`.
final class SumOperation: AsyncOperation, ModelledOperation, FollowOnCompletion, @unchecked Sendable {
    let inputPair: (Int, Int)
    private let storedResult = Mutex<Int?>(nil)

    init(input: (Int, Int)) {
        inputPair = input
        super.init()
        name = Summing.label(input)
    }

    /// The sum, once the operation has finished.
    var result: Int? {
        storedResult.withLock { $0 }
    }

    override func main() {
        asyncWork { workEnded in
            asyncAdd(inputPair) { sum in
                self.storedResult.withLock { $0 = sum }
                workEnded()
                self.finish()
            }
        }
    }

    /// One `asyncAdd`: its sleep runs on a new OperationQueue of default width and QoS, whose
    /// operations run on the default pool, as a block sent to the default global queue does.
    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: asyncAddSeconds, work: .handedToPool(.default))
    }

    /// The completion block prints the result, which only the run has: follow-on work.
    override var completionBlock: (@Sendable () -> Void)? {
        get { super.completionBlock }
        set { super.completionBlock = followingOn(newValue) }
    }
}

/// How long one `asyncAdd` sleeps on its worker, in article seconds: said here, beside it, and
/// read by ``SumOperation`` when it tells the model its work.
let asyncAddSeconds = 1.0

/// Adds on an OperationQueue of its own after a sleep and calls back with the sum, as the
/// author's playground does (AsyncOperations.playground, `SlowSum.swift`: a new
/// `additionQueue` and one `addOperation { sleep(1); callback(lhs + rhs) }`). The sleep is a row
/// of its own, drawn from the worker that sleeps, so the timeline shows which pool thread each
/// addition held and when, apart from the operation that handed it over.
func asyncAdd(_ input: (Int, Int), completion: @escaping @Sendable (Int) -> Void) {
    // Foundation's own queue: its operation is the SumOperation's declared work, which the
    // lab's queue would take for an operation added from inside an operation's main(), and
    // `Lab.handingOver` records the sleep into that work, as a block sent to a global queue does.
    let additionQueue = Foundation.OperationQueue()
    additionQueue.addOperation(
        Lab.handingOver {
            row(Summing.workerLabel(input)) { sleep(asyncAddSeconds) }
            completion(input.0 + input.1)
        })
}
