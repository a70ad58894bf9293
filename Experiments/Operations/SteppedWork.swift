import ExperimentKit
import Foundation
import Synchronization

/// A loop of half-second steps on a global queue that stops when `isCancelled` answers true: the
/// work the pitfalls experiment gives both AsyncOperation versions, so only their base class differs.
final class SteppedLoop: Sendable {
    static let steps = 4
    static let stepSeconds = 0.5

    private let completed = Mutex(0)
    private let ended = DispatchSemaphore(value: 0)

    /// For the model: the steps sleep on a worker of the default global queue, the loop looks
    /// at `isCancelled` before each.
    static let modelledWork = ModelledWork(
        articleSeconds: stepSeconds, steps: steps, work: .handedToPool(.default), checksCancellation: true)

    /// The `main()` of both stepped operations: starts the loop on a global queue, looking at
    /// `operation`'s `isCancelled` before each step; when the loop has ended, the operation's row
    /// ends and `finish` tells its base class so, each in its own way (the 2017 one sets
    /// `state = .finished`, the fixed one calls `finish()`): the one line in which they differ.
    func start(in operation: Operation, finish: @escaping @Sendable () -> Void) {
        operation.asyncWork { workEnded in
            DispatchQueue.global().async { [self, unowned operation] in
                var steps = 0
                while steps < Self.steps, !operation.isCancelled {
                    sleep(Self.stepSeconds)
                    steps += 1
                }
                completed.withLock { $0 = steps }
                workEnded()
                finish()
                ended.signal()
            }
        }
    }

    /// The steps the loop completed, once it has ended.
    var stepsCompleted: Int {
        completed.withLock { $0 }
    }

    /// Waits until the loop has ended (the operation may say it finished before: the 2017
    /// `cancel()` does). In a rehearsal, where nothing runs, it returns at once.
    func waitUntilEnded() {
        if Lab.current?.skipsWaiting(for: []) == true { return }
        ended.wait()
    }
}

/// The pitfalls experiment's loop on the broken 2017 base class.
/// `@unchecked Sendable` (required of every Operation subclass): its one property is `Sendable`.
final class PlaygroundSteppedOperation: PlaygroundAsyncOperation, ModelledOperation, @unchecked Sendable {
    let loop = SteppedLoop()

    override func main() {
        loop.start(in: self) { [self] in state = .finished }
    }

    var modelledWork: ModelledWork { SteppedLoop.modelledWork }
}

/// The same loop on ``AsyncOperation``. `@unchecked Sendable`: as ``PlaygroundSteppedOperation``.
final class FixedSteppedOperation: AsyncOperation, ModelledOperation, @unchecked Sendable {
    let loop = SteppedLoop()

    override func main() {
        loop.start(in: self) { [self] in finish() }
    }

    var modelledWork: ModelledWork { SteppedLoop.modelledWork }
}

/// Work that is over before `main()` returns (a cache hit, an early exit), on the 2017 base
/// class. Its row in the timeline begins in `main()` and ends when ``recordEnd()`` is called
/// after waiting for the operation: never, if the wait never returns.
/// `@unchecked Sendable`: the row's end lives in a `Mutex`.
final class PlaygroundInstantOperation: PlaygroundAsyncOperation, ModelledOperation, @unchecked Sendable {
    private let rowEnd = Mutex<(@Sendable () -> Void)?>(nil)

    override func main() {
        asyncWork { workEnded in
            rowEnd.withLock { $0 = workEnded }
            state = .finished
        }
    }

    func recordEnd() {
        rowEnd.withLock { $0 }?()
    }

    /// For the model: `start()` overwrites `.finished` with `.executing`, so it never finishes.
    var modelledWork: ModelledWork { ModelledWork(articleSeconds: 0, work: .neverFinishes) }
}

/// The same instant work on ``AsyncOperation``: its row ends as it finishes, in `main()`.
/// `@unchecked Sendable`: no stored state of its own.
final class FixedInstantOperation: AsyncOperation, ModelledOperation, @unchecked Sendable {
    override func main() {
        work { finish() }
    }

    /// For the model: it finishes inside `main()`, at once.
    var modelledWork: ModelledWork { ModelledWork(articleSeconds: 0) }
}
