import ExperimentKit
import Foundation
import TestSupport
import Testing

@testable import Experiments

// Behaviour tests for AsyncOperation (the class a learner copies) and for
// PlaygroundAsyncOperation (the 2017 original with its two bugs).
//
// Nothing here can hang, even if AsyncOperation regresses into a deadlock
// (for example a lock held while notifying, which corelibs' OperationQueue
// re-enters):
// - AsyncOperation's lifecycle calls (`start()`, `finish()`, `cancel()`) run
//   on another thread through `completes` / `onAnotherThread`, which give up
//   after a timeout;
// - queued work is awaited with `eventually`, whose conditions read only the
//   tests' own event logs, never the operation (its state lock could be the
//   one that is stuck);
// - a timeout ends the test at once (`try #require`), before anything reads
//   the operation again.
// `eventually` sleeps with `Task.sleep` instead of blocking on a semaphore:
// on Linux the tests' tasks and the operations' work may share libdispatch's
// thread pool, and a blocked waiter could keep the work it waits for from
// getting a thread until the pool grows (once a second).
// PlaygroundAsyncOperation is started by hand on the test thread and never
// waited for on a queue: its bug leaves it executing, such a wait never ends.
// (`addOperations(_:waitUntilFinished:)` is unavailable in async functions,
// even with `false`: the tests add operations one at a time.)

// MARK: - Helpers

/// A thread-safe, append-only list of events.
private final class EventLog<Element: Sendable>: @unchecked Sendable {
    // `storage` is only touched under `lock`.
    private let lock = NSLock()
    private var storage: [Element] = []

    func append(_ element: Element) {
        lock.withLock { storage.append(element) }
    }

    var events: [Element] {
        lock.withLock { storage }
    }
}

extension EventLog where Element: Equatable {
    func contains(_ element: Element) -> Bool {
        events.contains(element)
    }
}

/// Waits, without blocking a thread, until `condition` is true.
/// Returns `false` if it is still false after `timeout`.
private func eventually(
    within timeout: Duration = .seconds(2),
    _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + timeout
    while !condition() {
        if clock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return true
}

/// Runs `body` on a new thread and returns its result, or `nil` if it has not
/// returned within `timeout` (the stuck thread is then left behind).
private func onAnotherThread<T: Sendable>(
    within timeout: Duration = .seconds(2),
    _ body: @escaping @Sendable () -> T
) async -> T? {
    let result = EventLog<T>()
    Thread.foundationDetachNewThread { result.append(body()) }
    guard await eventually(within: timeout, { !result.events.isEmpty }) else { return nil }
    return result.events.first
}

/// `true` if `body`, run on a new thread, returned within `timeout`.
private func completes(
    within timeout: Duration = .seconds(2),
    _ body: @escaping @Sendable () -> Void
) async -> Bool {
    let returned: Void? = await onAnotherThread(within: timeout, body)
    return returned != nil
}

/// Calls `finish()` on another thread and returns its result; ends the test
/// (throws) if it has not returned within `timeout`.
private func finishOnAnotherThread(
    _ operation: AsyncOperation,
    within timeout: Duration = .seconds(2)
) async throws -> Bool {
    let result = await onAnotherThread(within: timeout) { operation.finish() }
    try #require(result != nil, "finish() did not return within the time limit")
    return result ?? false
}

/// Records every change notification and every call of `main()`;
/// finishes inside `main()` only if asked to.
private final class RecordingOperation: AsyncOperation, @unchecked Sendable {
    let notifications = EventLog<KeyValueNotification>()
    let mainCalls = EventLog<Int>()
    let finishesInsideMain: Bool

    init(finishesInsideMain: Bool = false) {
        self.finishesInsideMain = finishesInsideMain
        super.init()
    }

    override func main() {
        mainCalls.append(1)
        if finishesInsideMain { finish() }
    }

    override func willSend(_ notification: KeyValueNotification) {
        notifications.append(notification)
    }
}

/// Its work ends `delay` after `main()` has returned, on a global queue.
/// Its completion block logs "completed".
private final class DelayedOperation: AsyncOperation, LogsCompletion, @unchecked Sendable {
    let log: EventLog<String>
    let notifications = EventLog<KeyValueNotification>()
    let delay: DispatchTimeInterval

    init(log: EventLog<String>, delay: DispatchTimeInterval = .milliseconds(50)) {
        self.log = log
        self.delay = delay
        super.init()
        loggingCompletion()
    }

    override func main() {
        log.append("main")
        DispatchQueue.global().dispatchAsyncAfter(deadline: .now() + delay, qos: .unspecified, flags: []) { [self] in
            log.append("work ended")
            finish()
        }
    }

    override func willSend(_ notification: KeyValueNotification) {
        notifications.append(notification)
    }
}

/// A test operation that logs what it does; its completion block, once set by
/// ``loggingCompletion()``, logs "completed" there. One protocol for operations of the two
/// classes under test (AsyncOperation and the 2017 PlaygroundAsyncOperation), which share no
/// superclass of their own to put it in.
private protocol LogsCompletion: Foundation.Operation {
    var log: EventLog<String> { get }
}

extension LogsCompletion {
    /// Sets the completion block that logs "completed" in `log`; returns the operation.
    @discardableResult
    func loggingCompletion() -> Self {
        completionBlock = { [log] in log.append("completed") }
        return self
    }
}

/// Works in small steps on a global queue, checks `isCancelled` before each,
/// and finishes when it sees it (or gives up after about a second).
private final class PollingOperation: AsyncOperation, LogsCompletion, @unchecked Sendable {
    let log = EventLog<String>()

    override func main() {
        log.append("started")
        step(remaining: 500)
    }

    private func step(remaining: Int) {
        if isCancelled {
            log.append("saw cancellation")
            finish()
            return
        }
        if remaining == 0 {
            log.append("gave up")
            finish()
            return
        }
        DispatchQueue.global().dispatchAsyncAfter(deadline: .now() + .milliseconds(2), qos: .unspecified, flags: []) {
            [self] in
            step(remaining: remaining - 1)
        }
    }
}

/// Reads its own state from inside the notification hook, as corelibs'
/// OperationQueue does from inside `didChangeValue(forKey:)`.
private final class ReentrantOperation: AsyncOperation, @unchecked Sendable {
    let seen = EventLog<String>()

    override func main() {}

    override func willSend(_ notification: KeyValueNotification) {
        seen.append("\(notification) \(state.rawValue)")
    }
}

/// The notifications for one change of state, in the order they are sent.
private func notifications(
    from old: AsyncOperation.State,
    to new: AsyncOperation.State
) -> [AsyncOperation.KeyValueNotification] {
    [
        .willChange(old.keyPath), .willChange(new.keyPath),
        .didChange(old.keyPath), .didChange(new.keyPath),
    ]
}

// MARK: - AsyncOperation

@Suite("AsyncOperation", .serialized, .oneAtATime)
struct AsyncOperationTests {

    @Test("State key paths are \"is\" + capitalised raw value")
    func stateKeyPaths() {
        #expect(AsyncOperation.State.ready.keyPath == "isReady")
        #expect(AsyncOperation.State.executing.keyPath == "isExecuting")
        #expect(AsyncOperation.State.finished.keyPath == "isFinished")
    }

    @Test("Transition table", arguments: AsyncOperation.State.allCases, AsyncOperation.State.allCases)
    func transitionTable(from old: AsyncOperation.State, to new: AsyncOperation.State) {
        let allowedAlways: Set<String> = ["ready>executing", "executing>finished"]
        let allowedWhenCancelled = allowedAlways.union(["ready>finished"])
        let key = "\(old.rawValue)>\(new.rawValue)"
        #expect(old.canTransition(to: new, isCancelled: false) == allowedAlways.contains(key))
        #expect(old.canTransition(to: new, isCancelled: true) == allowedWhenCancelled.contains(key))
    }

    @Test("A new operation is ready, asynchronous, neither executing nor finished")
    func initialState() {
        let operation = RecordingOperation()
        #expect(operation.isAsynchronous)
        #expect(operation.state == .ready)
        #expect(operation.isReady)
        #expect(!operation.isExecuting)
        #expect(!operation.isFinished)
        #expect(operation.notifications.events.isEmpty)
    }

    @Test("A dependent operation starts only after the asynchronous work has finished")
    func dependentWaitsForAsynchronousWork() async throws {
        let log = EventLog<String>()
        let queue = Foundation.OperationQueue()
        let download = DelayedOperation(log: log)
        let dependent = Foundation.BlockOperation { log.append("dependent") }
        dependent.addDependency(download)
        queue.addOperation(download)
        queue.addOperation(dependent)

        let done = await eventually { log.contains("dependent") && log.contains("completed") }
        try #require(done, "the dependent operation did not run within the time limit")
        let order = log.events.filter { $0 != "completed" } // the completion block runs concurrently
        #expect(order == ["main", "work ended", "dependent"])
        #expect(download.isFinished)
        #expect(!download.isExecuting)
        #expect(download.state == .finished)
    }

    @Test("Stays executing after main() returns, until finish() is called")
    func executingUntilFinish() async throws {
        let operation = RecordingOperation()
        try #require(await completes { operation.start() })
        #expect(operation.mainCalls.events.count == 1)
        #expect(operation.state == .executing)
        #expect(operation.isExecuting)
        #expect(!operation.isFinished)
        #expect(!operation.isReady)

        let finished = try await finishOnAnotherThread(operation)
        #expect(finished)
        #expect(operation.state == .finished)
        #expect(!operation.isExecuting)
        #expect(operation.isFinished)
    }

    @Test("Work that finishes synchronously inside main() stays finished")
    func synchronousFinishInsideMain() async throws {
        let operation = RecordingOperation(finishesInsideMain: true)
        try #require(await completes { operation.start() })
        #expect(operation.isFinished)
        #expect(!operation.isExecuting)
        #expect(
            operation.notifications.events
                == notifications(from: .ready, to: .executing) + notifications(from: .executing, to: .finished))
    }

    @Test("Change notifications name the old and new keys, in order")
    func notificationOrderOnQueue() async throws {
        let log = EventLog<String>()
        let queue = Foundation.OperationQueue()
        let operation = DelayedOperation(log: log, delay: .milliseconds(20))
        queue.addOperation(operation)

        let done = await eventually { log.contains("completed") }
        try #require(done, "the operation did not finish within the time limit")
        #expect(
            operation.notifications.events == [
                .willChange("isReady"), .willChange("isExecuting"),
                .didChange("isReady"), .didChange("isExecuting"),
                .willChange("isExecuting"), .willChange("isFinished"),
                .didChange("isExecuting"), .didChange("isFinished"),
            ])
    }

    @Test("Cancelled before start: start() finishes it without running main()")
    func cancelBeforeStart() async throws {
        let operation = RecordingOperation()
        try #require(await completes { operation.cancel() })
        #expect(operation.isCancelled)
        #expect(!operation.isFinished, "cancel() alone must not finish the operation")

        try #require(await completes { operation.start() })
        #expect(operation.mainCalls.events.isEmpty)
        #expect(operation.isFinished)
        #expect(!operation.isExecuting)
        // It never went through `executing`: no notification names that key.
        #expect(operation.notifications.events == notifications(from: .ready, to: .finished))
    }

    @Test("Cancelled before start on a queue: main() never runs, dependents still run")
    func cancelBeforeStartOnQueue() async throws {
        let log = EventLog<String>()
        let queue = Foundation.OperationQueue()
        queue.isSuspended = true
        let operation = RecordingOperation()
        let dependent = Foundation.BlockOperation { log.append("dependent") }
        dependent.addDependency(operation)
        queue.addOperation(operation)
        queue.addOperation(dependent)
        try #require(await completes { operation.cancel() })
        queue.isSuspended = false

        let done = await eventually { log.contains("dependent") }
        try #require(done, "the dependent operation did not run within the time limit")
        #expect(operation.isFinished)
        #expect(operation.isCancelled)
        #expect(operation.mainCalls.events.isEmpty)
        #expect(operation.notifications.events == notifications(from: .ready, to: .finished))
    }

    @Test("Cancelled while executing: the work sees isCancelled and finishes")
    func cancelWhileExecuting() async throws {
        let queue = Foundation.OperationQueue()
        let operation = PollingOperation().loggingCompletion()
        queue.addOperation(operation)

        let started = await eventually { operation.log.contains("started") }
        try #require(started, "the operation did not start within the time limit")
        try #require(await completes { operation.cancel() })
        #expect(operation.isCancelled)

        let done = await eventually { operation.log.contains("completed") }
        try #require(done, "the operation did not finish within the time limit")
        #expect(operation.log.events == ["started", "saw cancellation", "completed"])
        #expect(operation.isFinished)
        #expect(!operation.isExecuting)
    }

    @Test("cancel() does not finish an executing operation by itself")
    func cancelDoesNotFinish() async throws {
        let operation = RecordingOperation()
        try #require(
            await completes {
                operation.start(); operation.cancel()
            })
        #expect(operation.isCancelled)
        #expect(operation.isExecuting)
        #expect(!operation.isFinished)

        let finished = try await finishOnAnotherThread(operation)
        #expect(finished)
        #expect(operation.isFinished)
    }

    @Test("finish() twice is harmless: one transition, one set of notifications")
    func finishTwice() async throws {
        let operation = RecordingOperation()
        try #require(await completes { operation.start() })
        let first = try await finishOnAnotherThread(operation)
        let second = try await finishOnAnotherThread(operation)
        #expect(first)
        #expect(!second)
        #expect(operation.isFinished)
        #expect(!operation.isExecuting)
        #expect(
            operation.notifications.events
                == notifications(from: .ready, to: .executing) + notifications(from: .executing, to: .finished))
    }

    @Test("finish() from many threads at once finishes exactly once")
    func concurrentFinish() async throws {
        let operation = RecordingOperation()
        try #require(await completes { operation.start() })
        let wins = EventLog<Bool>()
        let returned = await completes {
            DispatchQueue.dispatchConcurrentPerform(iterations: 16) { _ in
                wins.append(operation.finish())
            }
        }
        try #require(returned)
        #expect(wins.events.count == 16)
        #expect(wins.events.filter { $0 }.count == 1)
        #expect(operation.isFinished)
        // A thread that lost the race may have begun notifying; it still sends
        // each `didChange` it announced with a `willChange`.
        let events = operation.notifications.events
        let willFinish = events.filter { $0 == .willChange("isFinished") }.count
        let didFinish = events.filter { $0 == .didChange("isFinished") }.count
        #expect(willFinish >= 1)
        #expect(willFinish == didFinish)
    }

    @Test("finish() is refused before start unless cancelled")
    func finishBeforeStartRefused() async throws {
        let operation = RecordingOperation()
        let refused = try await finishOnAnotherThread(operation)
        #expect(!refused)
        #expect(operation.state == .ready)
        #expect(operation.notifications.events.isEmpty)

        try #require(await completes { operation.cancel() })
        let accepted = try await finishOnAnotherThread(operation)
        #expect(accepted)
        #expect(operation.state == .finished)
        #expect(operation.mainCalls.events.isEmpty)
    }

    @Test("start() a second time does nothing")
    func startTwice() async throws {
        let operation = RecordingOperation()
        try #require(
            await completes {
                operation.start(); operation.start()
            })
        #expect(operation.mainCalls.events.count == 1)
        #expect(operation.isExecuting)
        try #require(
            await completes {
                operation.finish(); operation.start()
            })
        #expect(operation.mainCalls.events.count == 1)
        #expect(operation.isFinished)
    }

    @Test("No lock is held while notifying; willChange sees the old state, didChange the new")
    func notificationsSentOutsideTheLock() async throws {
        let operation = ReentrantOperation()
        let returned = await completes {
            operation.start(); operation.finish()
        }
        try #require(returned, "start()/finish() did not return: is a lock held while notifying?")
        #expect(
            operation.seen.events == [
                "willChange(isReady) ready", "willChange(isExecuting) ready",
                "didChange(isReady) executing", "didChange(isExecuting) executing",
                "willChange(isExecuting) executing", "willChange(isFinished) executing",
                "didChange(isExecuting) finished", "didChange(isFinished) finished",
            ])
    }
}

// MARK: - PlaygroundAsyncOperation

/// Finishes synchronously inside `main()`, as a cache hit or an early exit would.
private final class SynchronousPlaygroundOperation: PlaygroundAsyncOperation, @unchecked Sendable {
    let mainCalls = EventLog<Int>()

    override func main() {
        mainCalls.append(1)
        state = .finished
    }
}

/// Finishes from a global queue after `main()` has returned.
private final class DelayedPlaygroundOperation: PlaygroundAsyncOperation, LogsCompletion, @unchecked Sendable {
    let log = EventLog<String>()

    override func main() {
        DispatchQueue.global().dispatchAsyncAfter(deadline: .now() + .milliseconds(20), qos: .unspecified, flags: []) {
            [self] in
            state = .finished
        }
    }
}

@Suite("PlaygroundAsyncOperation (the 2017 bugs)", .serialized, .oneAtATime)
struct PlaygroundAsyncOperationTests {

    // Started by hand on the test thread, never on a queue that the test
    // waits for: that wait would never end.
    @Test("Bug 1: work that finishes inside main() is overwritten by .executing")
    func synchronousFinishIsOverwritten() {
        let operation = SynchronousPlaygroundOperation()
        operation.start()
        #expect(operation.mainCalls.events.count == 1)
        #expect(operation.state == .executing)
        #expect(operation.isExecuting)
        #expect(!operation.isFinished)
    }

    @Test("Bug 2: cancel() finishes without setting isCancelled")
    func cancelLeavesIsCancelledFalse() {
        let operation = SynchronousPlaygroundOperation()
        operation.cancel()
        #expect(!operation.isCancelled)
        #expect(operation.isFinished)
    }

    @Test("Bug 2: a 'cancelled' operation that is started still runs main()")
    func cancelledOperationStillRuns() {
        let operation = SynchronousPlaygroundOperation()
        operation.cancel()
        operation.start()
        #expect(operation.mainCalls.events.count == 1)
        #expect(operation.isExecuting, "start() moved it from .finished back to .executing")
    }

    @Test("The bugs are latent: work that ends after main() returns finishes normally")
    func asynchronousFinishWorks() async throws {
        let operation = DelayedPlaygroundOperation().loggingCompletion()
        operation.start()
        #expect(operation.isExecuting)
        let done = await eventually { operation.log.contains("completed") }
        try #require(done, "the operation did not finish within the time limit")
        #expect(operation.isFinished)
        #expect(!operation.isExecuting)
    }
}
