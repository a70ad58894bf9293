import Foundation

/// The asynchronous operation base class of the 2017 playground
/// (BestKora/Operation_OperatioQueue, AsyncOperations.playground),
/// re-created with its two latent bugs for the "pitfalls" experiment.
///
/// **Do not use it for real work: use ``AsyncOperation``.**
///
/// Like ``AsyncOperation`` it keeps a `state` (`ready`, `executing`,
/// `finished`) whose changes send `willChangeValue(forKey:)` /
/// `didChangeValue(forKey:)` for the old and new keys, and it reports
/// `isReady`, `isExecuting` and `isFinished` from it. Subclasses set
/// `state = .finished` themselves when their work ends, as the playground's
/// `SumOperation` and `ImageLoadOperation` did. It works as long as the work
/// really ends after `main()` has returned. Two places are wrong:
///
/// 1. **`start()` calls `main()` first and sets `.executing` afterwards.**
///    If the work ends synchronously inside `main()` (a cache hit, a guard
///    that bails out, an error thrown before anything is dispatched) and sets
///    `.finished` there, `start()` then overwrites it with `.executing`. The
///    operation reports `isExecuting == true`, `isFinished == false` for
///    ever, and `waitUntilFinished()` called afterwards never returns.
///    Whoever was already waiting (`waitUntilFinished()`, an
///    `OperationQueue`'s `waitUntilAllOperationsAreFinished()`) is woken by
///    the brief `.finished` and usually hangs too: it returns only if it
///    re-checks in the instant before `start()` overwrites the state, a race.
///    On Linux the queue itself saw `"isFinished"` go true once, so it has
///    already started the dependents and dropped the operation.
///    ``AsyncOperation/start()`` sets `.executing` before calling `main()`
///    and refuses to leave `.finished`.
///
/// 2. **`cancel()` sets `.finished` and does not call `super.cancel()`.**
///    `isCancelled` stays `false`, so work that checks it never stops; the
///    operation is reported finished while that work may still be running,
///    so dependents start early; and the `isCancelled` check in `start()` is
///    dead code: a "cancelled" operation that is started anyway runs `main()`
///    (and `start()` moves it from `.finished` back to `.executing`). On a
///    queue, finishing an operation the queue has not started yet is also
///    reported by corelibs Foundation ("went isFinished=YES without being
///    started by the queue it is in"). ``AsyncOperation/cancel()`` calls
///    `super.cancel()` and leaves finishing to the work.
///
/// The original also stored `state` in a plain variable written from several
/// threads (a data race, the point of article 001's "thread-safe state
/// property"). This copy guards the stored value with a lock so that the
/// experiment shows the two logic bugs above and not undefined behaviour;
/// every state change and notification otherwise happens as in the
/// original, with no transition checks.
///
/// `@unchecked Sendable`: `_state`, the only mutable stored property, is
/// read and written only under `stateLock`, which is never held while
/// notifications are sent.
class PlaygroundAsyncOperation: Operation, @unchecked Sendable {

    /// The playground's three states and their keys are the fixed class's:
    /// `ready`, `executing`, `finished`, each driving `"isReady"`,
    /// `"isExecuting"`, `"isFinished"`. The bugs on show are not in them but
    /// in what is done with them: this class never asks the fixed class's
    /// transition table (``AsyncOperation/State/canTransition(to:isCancelled:)``),
    /// anyone may set any state, and `start()` and `cancel()` below set the
    /// wrong one at the wrong time, as the 2017 playground did.
    public typealias State = AsyncOperation.State

    /// Guards `_state` only.
    private let stateLock = NSLock()

    /// Read and written only under `stateLock`.
    private var _state: State = .ready

    public override init() {
        super.init()
    }

    /// The state. As in the playground, anyone may set it to anything; each
    /// assignment notifies `willChange(new)`, `willChange(old)`,
    /// `didChange(old)`, `didChange(new)`, even when nothing changes.
    open var state: State {
        get { stateLock.withLock { _state } }
        set {
            let old = stateLock.withLock { _state }
            willChangeValue(forKey: newValue.keyPath)
            willChangeValue(forKey: old.keyPath)
            stateLock.withLock { _state = newValue }
            didChangeValue(forKey: old.keyPath)
            didChangeValue(forKey: newValue.keyPath)
        }
    }

    /// Dependencies (`super.isReady`) and `state == .ready`, as in the playground.
    open override var isReady: Bool {
        super.isReady && state == .ready
    }

    /// `state == .executing`.
    open override var isExecuting: Bool {
        state == .executing
    }

    /// `state == .finished`.
    open override var isFinished: Bool {
        state == .finished
    }

    /// `true`, as in the playground.
    open override var isAsynchronous: Bool {
        true
    }

    /// **Bug 1**: calls `main()` *before* setting `.executing`, so a
    /// `.finished` set synchronously inside `main()` is overwritten.
    /// (The `isCancelled` branch cannot be taken: see bug 2.)
    open override func start() {
        if isCancelled {
            state = .finished
            return
        }
        main()
        state = .executing
    }

    /// **Bug 2**: sets `.finished` and never calls `super.cancel()`, so
    /// `isCancelled` stays `false`.
    open override func cancel() {
        state = .finished
    }
}
