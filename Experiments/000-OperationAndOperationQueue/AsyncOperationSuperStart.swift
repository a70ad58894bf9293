import ExperimentKit
import Foundation
import Synchronization

/// An asynchronous operation whose `start()` calls `super.start()`, which article 000 warns
/// against ("Asynchronous operation").
let asyncOperationSuperStart = Experiment(
    "async-operation-super-start", article: "000_d66eefb2b922d5e0.txt",
    section: "Asynchronous operation (AsyncOperations.playground)"
) { context in
    let additionQueue = OperationQueue()
    let sumOperation = SuperStartingSum(input: SuperStart.pair, context: context)
    sumOperation.name = Summing.label(SuperStart.pair)
    let dependent = BlockOperation { print(SuperStart.dependent) }
    dependent.addDependency(sumOperation)
    additionQueue.addOperation(sumOperation)
    additionQueue.addOperation(dependent)
    additionQueue.waitUntilAllOperationsAreFinished()
    context.record(SuperStart.mainReturnedAt, sumOperation.mainReturnedAt.map { .number($0) } ?? .null)
    context.record("result", sumOperation.result.map { .number(Double($0)) } ?? .null)
}
.title("An asynchronous operation whose start() calls super.start(): it still waits for its callback")
.summary(
    "The AsyncOperations playground's SumOperation for (1, 5), on its AsyncOperation (a state whose changes send willChangeValue/didChangeValue for the old and new keys, isExecuting and isFinished read from it), with the one change the article warns against: start() calls super.start() where the article calls main(), then sets .executing. main() hands a 1 s asyncAdd to an addition queue, whose callback stores the sum and sets .finished. A BlockOperation that depends on it records when it starts; the experiment waits for both."
)
.claim(
    "It is very important to remember that in the case of an ASYNCHRONOUS function, we cannot use in the method a start() call to a similar method for superclass- super.start(), since this would mean a synchronous start of the function main(), but we need exactly the opposite.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote: "…since this would mean a synchronous start of the function main(), but we need exactly the opposite.",
        here:
            "super.start() does call main() on the thread that starts the operation, and returns when main() returns, as the article's own start(), which calls main() itself, does too: neither is an asynchronous start. The operation still finishes only when its callback sets .finished, a second after main() returned (the run's checks): swift-corelibs-foundation's start() marks its own state finished when main() returns, but the queue and waitUntilFinished() read isFinished, which this class overrides."
    )
)
.expectedOutcome(
    "super.start() runs main(), which returns at once; the operation stays unfinished until asyncAdd's callback at 1 s, and its dependent starts only then: 1 s in all, the sum 6."
)
.platformDifference(
    "An operation that overrides isFinished is finished when it says so; what Apple's start() does beyond calling main() is not measured here."
)
.checks { measurement, _ in
    let mainReturnedAt = measurement.outcome[SuperStart.mainReturnedAt]?.numberValue ?? .infinity
    let addition = measurement.span(Summing.workerLabel(SuperStart.pair))
    let dependent = measurement.span(SuperStart.dependent)
    return [
        Check(
            "main() returned (at \(Format.seconds(mainReturnedAt))) before the addition's work had ended",
            passed: addition.map { mainReturnedAt < $0.end - Overlap.touchingSeconds } == true),
        Check(
            "the dependent started only once the addition's callback had come, not when main() returned",
            passed: dependent.flatMap { dependent in
                addition.map { dependent.start >= $0.end - Overlap.touchingSeconds }
            } == true),
        Check(
            "the sum is \(SuperStart.pair.0 + SuperStart.pair.1)",
            passed: measurement.outcome["result"] == .number(Double(SuperStart.pair.0 + SuperStart.pair.1))),
    ]
}

/// The playground's SumOperation on an AsyncOperation whose `start()` calls `super.start()`:
/// the state and its notifications as the article's AsyncOperation has them.
///
/// `@unchecked Sendable`: `state`, the sum and the instant `main()` returned live in a `Mutex`;
/// `inputPair` and `context` are constants.
final class SuperStartingSum: Operation, ModelledOperation, @unchecked Sendable {
    typealias State = AsyncOperation.State

    let inputPair: (Int, Int)
    private let context: RunContext
    private let stored = Mutex<(state: State, result: Int?, mainReturnedAt: Double?)>((.ready, nil, nil))

    init(input: (Int, Int), context: RunContext) {
        inputPair = input
        self.context = context
        super.init()
    }

    var result: Int? { stored.withLock { $0.result } }
    /// When `main()` returned, in seconds on the run's clock.
    var mainReturnedAt: Double? { stored.withLock { $0.mainReturnedAt } }

    /// Each change notifies the old and the new key, as the article's `willSet`/`didSet` do.
    var state: State {
        get { stored.withLock { $0.state } }
        set {
            let old = state
            willChangeValue(forKey: newValue.keyPath)
            willChangeValue(forKey: old.keyPath)
            stored.withLock { $0.state = newValue }
            didChangeValue(forKey: old.keyPath)
            didChangeValue(forKey: newValue.keyPath)
        }
    }

    override var isReady: Bool { super.isReady && state == .ready }
    override var isExecuting: Bool { state == .executing }
    override var isFinished: Bool { state == .finished }
    override var isAsynchronous: Bool { true }

    override func start() {
        if isCancelled {
            state = .finished
            return
        }
        super.start() // the article: main()
        state = .executing
    }

    override func main() {
        asyncWork { workEnded in
            asyncAdd(inputPair) { sum in
                self.stored.withLock { $0.result = sum }
                workEnded()
                self.state = .finished
            }
        }
        let now = context.timeline.now()
        stored.withLock { $0.mainReturnedAt = now }
    }

    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: asyncAddSeconds, work: .handedToPool(.default))
    }
}

/// Labels of the async-operation-super-start experiment.
enum SuperStart {
    /// The AsyncOperations playground's first pair.
    static let pair = Summing.asyncPairs[0]
    static let dependent = "dependent of the sum"
    static let mainReturnedAt = "main() returned at (s)"
}
