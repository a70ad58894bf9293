import ExperimentKit
import Foundation
import Synchronization

/// A loop of timed steps on a global queue that stops when `isCancelled` answers true: the work
/// the pitfalls experiment gives both AsyncOperation versions, so only their base class differs.
struct SteppedWork: Sendable {
    let label: String
    let steps: Int
    let articleSecondsPerStep: Double
    let context: RunContext

    /// Starts the loop on a global queue; `done` gets the number of steps completed.
    func start(isCancelled: @escaping @Sendable () -> Bool, done: @escaping @Sendable (Int) -> Void) {
        let span = context.timeline.begin(label)
        DispatchQueue.global().async { [self] in
            var completed = 0
            while completed < steps, !isCancelled() {
                context.sleep(articleSeconds: articleSecondsPerStep)
                completed += 1
            }
            context.timeline.end(span, cancelled: isCancelled())
            done(completed)
        }
    }
}

/// The pitfalls experiment's operations, on the broken 2017 base class and on the fixed one.
/// `@unchecked Sendable` (required of every Operation subclass): inputs are constants; the
/// step count is written once, before `finished` is signalled, and read after.
final class PlaygroundSteppedOperation: PlaygroundAsyncOperation, @unchecked Sendable {
    let work: SteppedWork
    let finished = DispatchSemaphore(value: 0)
    nonisolated(unsafe) private(set) var stepsCompleted = 0

    init(_ work: SteppedWork) {
        self.work = work
        super.init()
    }

    override func main() {
        work.start(isCancelled: { [unowned self] in isCancelled }) { [self] steps in
            stepsCompleted = steps
            state = .finished
            finished.signal()
        }
    }
}

/// The same work on ``AsyncOperation``. `@unchecked Sendable`: as ``PlaygroundSteppedOperation``.
final class FixedSteppedOperation: AsyncOperation, @unchecked Sendable {
    let work: SteppedWork
    let finished = DispatchSemaphore(value: 0)
    nonisolated(unsafe) private(set) var stepsCompleted = 0

    init(_ work: SteppedWork) {
        self.work = work
        super.init()
    }

    override func main() {
        work.start(isCancelled: { [unowned self] in isCancelled }) { [self] steps in
            stepsCompleted = steps
            finish()
            finished.signal()
        }
    }
}

/// Work that is over before `main()` returns (a cache hit, an early exit), on the 2017 base
/// class. Its row in the timeline begins in `main()` and ends when ``recordEnd()`` is called
/// after waiting for the operation: never, if the wait never returns.
/// `@unchecked Sendable`: the open row lives in a `Mutex`.
final class PlaygroundInstantOperation: PlaygroundAsyncOperation, @unchecked Sendable {
    private let row: InstantRow

    init(label: String, context: RunContext) {
        row = InstantRow(label: label, context: context)
        super.init()
    }

    override func main() {
        row.begin()
        state = .finished
    }

    func recordEnd() {
        row.end()
    }
}

/// The same instant work on ``AsyncOperation``: its row ends as it finishes, in `main()`.
/// `@unchecked Sendable`: as above.
final class FixedInstantOperation: AsyncOperation, @unchecked Sendable {
    private let row: InstantRow

    init(label: String, context: RunContext) {
        row = InstantRow(label: label, context: context)
        super.init()
    }

    override func main() {
        row.begin()
        finish()
        row.end()
    }
}

/// A timeline row begun on one thread and ended on another.
final class InstantRow: Sendable {
    private let label: String
    private let context: RunContext
    private let open = Mutex<Timeline.OpenSpan?>(nil)

    init(label: String, context: RunContext) {
        self.label = label
        self.context = context
    }

    func begin() {
        let span = context.timeline.begin(label)
        open.withLock { $0 = span }
    }

    func end() {
        if let span = open.withLock({ $0 }) { context.timeline.end(span) }
    }
}
