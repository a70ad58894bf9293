import ExperimentModel
import Testing

@testable import ExperimentKit
// Foundation through the instrumented module only, as a learner's file has it (see LabTimerTests).
@testable import Experiments

/// Article 000's AsyncOperation as a learner writes it, with a `main()` that hands its work off
/// as `handOff` says. `@unchecked Sendable`: a test's operation, its state written by the work
/// it hands off, as the article's is.
private final class LearnersAsyncOperation: Operation, @unchecked Sendable {
    enum HandOff: Sendable {
        /// `DispatchQueue.global().async { sleep(2); finish }`.
        case globalQueue
        /// `asyncAfter(deadline: .now() + 2) { finish }`.
        case timer
        /// An operation of another queue of this width sleeps 1 s and calls back, which finishes.
        case otherQueue(width: Int)
        /// `DispatchQueue.global().async { sleep(1) }`, and no finish.
        case forgetsTheFinish
        /// The finish inside `main()`, which the article's `start()` overwrites with `.executing`.
        case finishesInsideMain
        /// A timer, then a block that sleeps before it finishes.
        case timerThenSleep
        /// A start that sets `.executing` before `main()`, which finishes at once (a cache hit).
        case finishesInsideAFixedStart
    }

    enum State: String {
        case ready, executing, finished
        var keyPath: String { "is" + rawValue.capitalized }
    }

    let handOff: HandOff
    init(_ handOff: HandOff) {
        self.handOff = handOff
        super.init()
    }

    var state = State.ready {
        willSet {
            willChangeValue(forKey: newValue.keyPath)
            willChangeValue(forKey: state.keyPath)
        }
        didSet {
            didChangeValue(forKey: oldValue.keyPath)
            didChangeValue(forKey: state.keyPath)
        }
    }
    override var isReady: Bool { super.isReady && state == .ready }
    override var isExecuting: Bool { state == .executing }
    override var isFinished: Bool { state == .finished }
    override var isAsynchronous: Bool { true }

    override func start() {
        if case .finishesInsideAFixedStart = handOff {
            state = .executing
            return main()
        }
        if isCancelled {
            state = .finished
            return
        }
        main()
        state = .executing
    }

    override func main() {
        switch handOff {
        case .globalQueue:
            DispatchQueue.global().async {
                sleep(2); self.state = .finished
            }
        case .timer:
            DispatchQueue.global().asyncAfter(deadline: .now() + 2) { self.state = .finished }
        case .otherQueue(let width):
            let other = OperationQueue()
            other.maxConcurrentOperationCount = width
            other.addOperation {
                sleep(1); self.state = .finished
            }
        case .forgetsTheFinish:
            DispatchQueue.global().async { sleep(1) }
        case .finishesInsideMain, .finishesInsideAFixedStart:
            state = .finished
        case .timerThenSleep:
            DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                sleep(1); self.state = .finished
            }
        }
    }
}

/// What the rehearsal plans for a learner's asynchronous operation: the path its handed-off work
/// takes to the finish, read from the code (nothing here runs timed work).
@Suite(.serialized, .oneAtATime) struct AsynchronousOperationPlanTests {
    /// The plan of a queue holding one such operation and a dependent of it that sleeps 1 s.
    fileprivate static func plan(_ handOff: LearnersAsyncOperation.HandOff) -> Workload {
        Lab.rehearse(
            { _ in
                let queue = OperationQueue()
                let asynchronous = LearnersAsyncOperation(handOff)
                asynchronous.name = "asynchronous"
                let dependent = BlockOperation {
                    print("dependent"); sleep(1)
                }
                dependent.addDependency(asynchronous)
                queue.addOperations([asynchronous, dependent], waitUntilFinished: true)
            }, parameters: Parameters([]), isLearners: true)
    }

    @Test(arguments: [
        (LearnersAsyncOperation.HandOff.globalQueue, Work.handedToPool(.default), 2.0),
        (.timer, .timer, 2),
        (.otherQueue(width: OperationQueue.defaultMaxConcurrentOperationCount), .handedToPool(.default), 1),
    ])
    fileprivate func theHandedOffWorkUntilItFinishesIsTheOperations(
        handOff: LearnersAsyncOperation.HandOff, work: Work, seconds: Double
    ) throws {
        let workload = Self.plan(handOff)
        #expect(workload.unmodelled == [])
        let asynchronous = try #require(workload.operations.first)
        #expect(
            asynchronous.label == "asynchronous" && asynchronous.work == work && asynchronous.articleSeconds == seconds)
        // The dependent starts when the handed-off work finishes the operation, not when main() returns.
        let prediction = Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        #expect(prediction.nominal.startsToTheMillisecond == [0, seconds])
    }

    @Test(arguments: [LearnersAsyncOperation.HandOff.forgetsTheFinish, .finishesInsideMain])
    fileprivate func workThatNeverAnnouncesTheFinishNeverFinishes(handOff: LearnersAsyncOperation.HandOff) throws {
        let workload = Self.plan(handOff)
        #expect(workload.unmodelled == [])
        #expect(workload.operations.first?.work == .neverFinishes)
        let prediction = Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        #expect(prediction.nominal.spans[1] == nil, "the dependent never starts")
    }

    @Test func workTheModelDoesNotPlanAsOneOperationIsNamed() {
        let narrow = Self.plan(.otherQueue(width: 1)).unmodelled.map(\.construct)
        #expect(narrow == ["addOperation to a queue of width 1 in an asynchronous operation's work"])
        let mixed = Self.plan(.timerThenSleep).unmodelled.map(\.construct)
        #expect(mixed == ["LearnersAsyncOperation, an asynchronous Operation"])
        let atOnce = Self.plan(.finishesInsideAFixedStart).unmodelled.map(\.construct)
        #expect(atOnce == ["LearnersAsyncOperation, an asynchronous Operation that finishes inside its start()"])
    }
}
