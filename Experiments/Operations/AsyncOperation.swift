import Foundation

/// An `Operation` whose work may go on after `main()` has returned, and that
/// tells its queue when that work has really ended.
///
/// ## Why this class exists
/// A plain `Operation` is finished the moment `main()` returns. That is right
/// for synchronous work, but wrong for work that `main()` only *starts*: a
/// download, a `DispatchQueue.async` block, a callback-based API. `main()`
/// returns at once, the queue marks the operation finished, dependent
/// operations start without the result they wait for, and the queue forgets
/// an operation whose work is still running ("the dependency did not wait").
///
/// `AsyncOperation` keeps its own `state` (`ready → executing → finished`)
/// and reports `isExecuting` / `isFinished` from it, so the operation stays
/// executing until its subclass calls ``finish()``. Each change of state is
/// announced with `willChangeValue(forKey:)` / `didChangeValue(forKey:)` for
/// the old and the new key (`"isReady"`, `"isExecuting"`, `"isFinished"`):
/// that is how an `OperationQueue` learns that the operation has finished.
///
/// ## How to use it
/// Subclass it and override `main()` (do not call `super.main()`, do not
/// override `start()`):
///
/// ```swift
/// final class SumOperation: AsyncOperation, @unchecked Sendable {
///     override func main() {
///         asyncAdd((2, 3)) { sum in              // returns at once; sleeps on an
///             self.store(sum)                     // addition queue, calls back later
///             self.finish()                       // now dependents may start
///         }
///     }
/// }
/// ```
///
/// Rules for subclasses:
/// - Call ``finish()`` once the asynchronous work has ended, on every path
///   (success, failure, cancellation). Forgetting it leaves the operation
///   executing forever and whoever waits for it waits forever. Calling it
///   again is harmless.
/// - Look at `isCancelled` whenever the work can stop early; when it is
///   `true`, stop and call ``finish()``. `cancel()` does not finish the
///   operation by itself (see `cancel()` for why).
/// - Subclasses with their own mutable state must protect it themselves and
///   restate `@unchecked Sendable` (Swift asks every subclass of `Operation`
///   to restate it).
///
/// ## Thread safety (why `@unchecked Sendable` is sound here)
/// The queue reads the state from its own threads while the work that calls
/// ``finish()`` runs on another one. The only mutable stored property,
/// `_state`, is read and written only while holding `stateLock`, one `NSLock`
/// that guards nothing else. The lock is never held while calling out of this
/// class: not while sending change notifications (corelibs' `OperationQueue`
/// reacts to `didChangeValue(forKey: "isFinished")` synchronously, on the
/// notifying thread, and calls back into `isFinished`, `isReady` and others,
/// which take the lock: holding it would deadlock), not while reading
/// `isCancelled`, not while running `main()` or the ``willSend(_:)`` hook.
/// A change of state is a compare-and-swap under the lock, so two threads
/// can never both make the same transition (see ``finish()``).
///
/// ## On Linux (swift-corelibs-foundation)
/// There is no `addObserver(_:forKeyPath:options:context:)`, and
/// `willChangeValue(forKey:)` / `didChangeValue(forKey:)` are declared in an
/// extension of `Operation`, so a subclass cannot override them to watch the
/// notifications. ``willSend(_:)`` is the hook this class offers instead.
class AsyncOperation: Operation, @unchecked Sendable {

    /// The three states of an asynchronous operation.
    ///
    /// Each case names the `Operation` property that is `true` in that state;
    /// ``keyPath`` is the key to notify when entering or leaving it.
    public enum State: String, Sendable, CaseIterable {
        case ready
        case executing
        case finished

        /// The key-value key of the `Operation` property this state drives:
        /// `"is"` followed by the capitalised raw value (`"isReady"`,
        /// `"isExecuting"`, `"isFinished"`).
        public var keyPath: String {
            "is" + rawValue.capitalized
        }

        /// The table of allowed transitions.
        ///
        /// - `ready → executing`: `start()` begins the work.
        /// - `executing → finished`: the work ended and called ``AsyncOperation/finish()``.
        /// - `ready → finished`: only when cancelled before the start; the
        ///   operation ends without running `main()`.
        ///
        /// Anything else (going back, staying, leaving `finished`, finishing
        /// an operation that was neither started nor cancelled) is refused.
        public func canTransition(to next: State, isCancelled: Bool) -> Bool {
            switch (self, next) {
            case (.ready, .executing), (.executing, .finished):
                return true
            case (.ready, .finished):
                return isCancelled
            default:
                return false
            }
        }
    }

    /// One half of a key-value change notification, as passed to ``willSend(_:)``.
    public enum KeyValueNotification: Equatable, Sendable, CustomStringConvertible {
        /// `willChangeValue(forKey: key)`.
        case willChange(String)
        /// `didChangeValue(forKey: key)`.
        case didChange(String)

        public var description: String {
            switch self {
            case .willChange(let key): return "willChange(\(key))"
            case .didChange(let key): return "didChange(\(key))"
            }
        }
    }

    /// Guards `_state` and nothing else. Never held while calling out.
    private let stateLock = NSLock()

    /// The state itself. Read and written only under `stateLock`.
    private var _state: State = .ready

    public override init() {
        super.init()
    }

    /// The current state. Read-only: `start()` moves it to `executing` and
    /// ``finish()`` to `finished`, both through the transition table.
    public var state: State {
        stateLock.withLock { _state }
    }

    // MARK: - Operation overrides

    /// `true` when the dependencies allow the start *and* this operation has
    /// not started yet.
    ///
    /// Why: `super.isReady` is Foundation's dependency tracking (and becomes
    /// `true` when the operation is cancelled), so it must be kept. Adding
    /// `state == .ready` makes the `"isReady"` notifications sent on leaving
    /// the `ready` state tell the truth. Override it to add your own
    /// readiness condition, and combine it with `super.isReady`; then call
    /// `didChangeValue(forKey: "isReady")` when that condition becomes true,
    /// or a queue never re-checks it.
    open override var isReady: Bool {
        super.isReady && state == .ready
    }

    /// `true` from the start until ``finish()``, whether or not any thread is
    /// running code for this operation at the moment.
    ///
    /// Why: `Operation`'s own `isExecuting` turns `false` as soon as `main()`
    /// returns; for work that continues elsewhere it has to come from
    /// `state`.
    public final override var isExecuting: Bool {
        state == .executing
    }

    /// `true` once ``finish()`` has run (or a cancelled operation was started).
    ///
    /// Why: this is what dependencies and `waitUntilFinished()` wait for and
    /// what makes a queue let go of the operation. `Operation`'s own value
    /// would turn `true` when `main()` returns, before the work has ended.
    public final override var isFinished: Bool {
        state == .finished
    }

    /// Always `true`: the operation does not finish when `start()` returns.
    ///
    /// Why: it tells a caller who runs the operation by hand (`start()`
    /// without a queue) that the work goes on after `start()` returns and
    /// that it must wait for `isFinished`. Queues ignore this property.
    public final override var isAsynchronous: Bool {
        true
    }

    /// Starts the operation: moves it to `executing` and calls `main()`.
    ///
    /// - If the operation was cancelled before it started, it goes straight
    ///   to `finished` and `main()` never runs. A cancelled operation must
    ///   still go through `start()` and finish, or nothing that depends on it
    ///   (and no queue holding it) would ever move on.
    /// - The state is `executing` *before* `main()` is called, so work that
    ///   ends synchronously inside `main()` and calls ``finish()`` there moves
    ///   `executing → finished` and stays finished (the 2017 playground did
    ///   it the other way round; see ``PlaygroundAsyncOperation``).
    /// - Calling it on an operation that has already started or finished
    ///   does nothing. (Foundation's own `start()` traps instead.)
    ///
    /// Why it is overridden: `Operation.start()` runs `main()` and marks the
    /// operation finished when `main()` returns, which is what this class
    /// exists to avoid; so it must not call `super.start()`. It is `final`:
    /// put the work in `main()`.
    public final override func start() {
        if isCancelled {
            _ = transition(to: .finished, onlyFrom: .ready)
            return
        }
        guard transition(to: .executing, onlyFrom: .ready) else { return }
        main()
    }

    /// Asks the operation to stop: `isCancelled` becomes `true`. It does not
    /// finish the operation.
    ///
    /// - Before the start: Foundation marks the operation ready (even if its
    ///   dependencies have not finished), a queue then calls `start()`, which
    ///   finishes it without running `main()`.
    /// - While executing: only the work knows when it has actually stopped
    ///   (a download may still call back, a loop may be in mid-step). It
    ///   must check `isCancelled` and call ``finish()`` itself. Finishing here
    ///   would let dependents start and the queue drop the operation while
    ///   that work still runs and still writes its results.
    ///
    /// Why it is overridden: only to document this. Overrides (for example,
    /// one that cancels the operation's own inner operations) must call
    /// `super.cancel()`, or `isCancelled` stays `false`
    /// (see ``PlaygroundAsyncOperation``).
    open override func cancel() {
        super.cancel()
    }

    // MARK: - Finishing

    /// Marks the operation finished: call it when the asynchronous work has
    /// ended, whether it succeeded, failed or stopped because of
    /// cancellation.
    ///
    /// Sends the change notifications that make a queue start dependent
    /// operations, run the completion block and let go of the operation.
    ///
    /// It is idempotent: only the first call that is allowed changes
    /// anything; later calls, even from several threads at once, do nothing
    /// and send nothing. It refuses to finish an operation that is still
    /// `ready` unless it was cancelled (a queue must start what it holds).
    ///
    /// - Returns: `true` if this call finished the operation, `false` if it
    ///   was already finished or may not be finished yet.
    @discardableResult
    public final func finish() -> Bool {
        transition(to: .finished)
    }

    // MARK: - Observation hook

    /// Called just before each change notification this class sends, on the
    /// thread that changes the state, with no lock held. Does nothing unless
    /// overridden.
    ///
    /// For a state change from `old` to `new` the sequence is
    /// `willChange(old.keyPath)`, `willChange(new.keyPath)`,
    /// `didChange(old.keyPath)`, `didChange(new.keyPath)`.
    ///
    /// Why it exists: on Linux nothing else can observe these notifications
    /// (no `addObserver`, and `willChangeValue(forKey:)` cannot be
    /// overridden). Keep overrides short and do not call ``finish()`` from
    /// them. Because it runs *before* the notification is sent, a recorder
    /// has recorded `didChange("isFinished")` before anyone waiting for the
    /// operation is released.
    open func willSend(_ notification: KeyValueNotification) {}

    // MARK: - The state machine

    /// Moves the state to `next` if the transition table allows it.
    ///
    /// The current state is read under the lock; the notifications for the
    /// old and new keys are sent with the lock released; the new state is
    /// stored under the lock only if the state is still the one that was
    /// read (compare-and-swap). If another thread changed it in between, the
    /// notifications already begun are completed (they are paired) and the
    /// attempt is repeated from the new state.
    ///
    /// - Parameter expected: if given, the transition happens only from this state.
    /// - Returns: `true` if this call changed the state.
    private func transition(to next: State, onlyFrom expected: State? = nil) -> Bool {
        while true {
            let current = stateLock.withLock { _state }
            if let expected, current != expected { return false }
            guard current.canTransition(to: next, isCancelled: isCancelled) else { return false }

            sendWillChange(forKey: current.keyPath)
            sendWillChange(forKey: next.keyPath)
            let committed = stateLock.withLock { () -> Bool in
                guard _state == current else { return false }
                _state = next
                return true
            }
            sendDidChange(forKey: current.keyPath)
            sendDidChange(forKey: next.keyPath)

            if committed { return true }
        }
    }

    private func sendWillChange(forKey key: String) {
        willSend(.willChange(key))
        willChangeValue(forKey: key)
    }

    private func sendDidChange(forKey key: String) {
        willSend(.didChange(key))
        didChangeValue(forKey: key)
    }
}
