import ExperimentModel
import Foundation

/// What a piece of work printed and how long it slept, in article seconds, how often it looked at
/// `isCancelled`, and what it did to groups and semaphores.
///
/// `@unchecked Sendable`: every property that changes is read and written only while `lock` is
/// held; `owner` is a constant.
public final class RecordedWork: @unchecked Sendable {
    /// The operation whose work it is, if any: its looks at `isCancelled` are recorded.
    private let owner: ObjectIdentifier?
    private let lock = NSLock()
    private var lines: [String] = []
    private var sleeps: [Double] = []
    /// How many times the work had looked at `isCancelled` when each sleep began.
    private var checksBeforeSleep: [Int] = []
    private var checks = 0
    /// The work's suspensions in `Task.sleep`, in article seconds: timers, which hold no thread.
    private var suspensions: [Double] = []
    /// Its sleeps and suspensions in the order it made them.
    private var waitsInOrder: [Wait] = []

    /// A sleep, which holds the thread, or a suspension in `Task.sleep`, which holds none; in a
    /// body with `async let`s, with the stack that made it, which places it beside them.
    struct Wait {
        var holdsAThread: Bool
        var articleSeconds: Double
        var stack: CallSite.Stack? = nil
    }

    /// The `async let` children of the task whose body this is, told apart from the body by
    /// their task: what one of them does is its own work's (``AsyncLetChildren``).
    private var children: AsyncLetChildren?

    /// Rehearsal: the body of a task starts here, in the task that runs it; what another task
    /// that inherits this work does (an `async let`'s child) is that child's.
    func beginsATasksBody() {
        let children = AsyncLetChildren()
        lock.withLock { self.children = children }
    }

    /// The children its body's `async let`s started, if it is a task's body.
    var asyncLetChildren: AsyncLetChildren? {
        lock.withLock { children }
    }

    /// The work of the `async let` child running here, if one is.
    private var childHere: RecordedWork? {
        lock.withLock { children }?.workHere()
    }

    func print(_ text: String) {
        if let child = childHere { return child.print(text) }
        lock.withLock { lines.append(text) }
    }

    func sleep(_ seconds: Double) {
        if let child = childHere { return child.sleep(seconds) }
        let stack = placedStack
        lock.withLock {
            sleeps.append(seconds)
            checksBeforeSleep.append(checks)
            waitsInOrder.append(Wait(holdsAThread: true, articleSeconds: seconds, stack: stack))
        }
    }

    func suspend(_ seconds: Double) {
        if let child = childHere { return child.suspend(seconds) }
        let stack = placedStack
        lock.withLock {
            suspensions.append(seconds)
            waitsInOrder.append(Wait(holdsAThread: false, articleSeconds: seconds, stack: stack))
        }
    }

    /// The stack of a wait of a task's body, which places it beside the body's `async let`s.
    private var placedStack: CallSite.Stack? {
        lock.withLock { children } == nil ? nil : CallSite.Stack.capture()
    }

    /// Its sleeps and suspensions, in order.
    var waits: [Wait] {
        lock.withLock { waitsInOrder }
    }

    /// How long the work was suspended in `Task.sleep`, in article seconds.
    var suspendedSeconds: Double {
        lock.withLock { suspensions.reduce(0, +) }
    }

    /// Whether the work suspended in `Task.sleep` at all.
    var suspends: Bool {
        lock.withLock { !suspensions.isEmpty }
    }

    /// Whether it is a task's body (or a child's), whose looks at `Task.isCancelled` are its
    /// looks at its cancel; another work's are Swift's own answer.
    let isATasks: Bool

    init(owner: Operation? = nil, isATasks: Bool = false) {
        self.owner = owner.map(ObjectIdentifier.init)
        self.isATasks = isATasks
    }

    func isOwned(by operation: Operation) -> Bool {
        owner == ObjectIdentifier(operation)
    }

    /// How many looks at `isCancelled` a rehearsed work makes before it is taken for a loop that
    /// only a cancel ends (`while !isCancelled { sleep(1) }`): far more than any loop over an
    /// article's input.
    static let loopBound = 10_000

    /// The work looked at `isCancelled`; returns what the rehearsal answers: `false`, until the
    /// work is a loop that only a cancel ends.
    func checkedCancellation() -> Bool {
        if let child = childHere { return child.checkedCancellation() }
        return lock.withLock {
            checks += 1
            return checks > Self.loopBound
        }
    }

    private var looksAtNoTasksCancel = 0

    /// A work that is no task's looked at `Task.isCancelled`, which Swift answers (`answer`):
    /// `false` in a loop whose work runs in no task, which nothing ends; returns whether this look
    /// is the one that takes it for such a loop, answered `true` to end the rehearsal.
    func lookedAtNoTasksCancel(answer: Bool) -> (answer: Bool, endless: Bool) {
        lock.withLock {
            guard !answer else { return (true, false) }
            looksAtNoTasksCancel += 1
            return (looksAtNoTasksCancel > Self.loopBound, looksAtNoTasksCancel == Self.loopBound + 1)
        }
    }

    /// Whether the work is a loop outside any task that waits for `Task.isCancelled`, which
    /// nothing sets.
    var loopsWithNothingToEndIt: Bool {
        lock.withLock { looksAtNoTasksCancel > Self.loopBound }
    }

    /// Whether the work went on looking at `isCancelled` until the rehearsal answered `true`.
    var loopsUntilCancelled: Bool {
        lock.withLock { checks > Self.loopBound }
    }

    /// What a work does to a `DispatchGroup` or `DispatchSemaphore`.
    public enum SynchronisingEvent: Sendable {
        case entered, left, signalled
    }

    private var synchronisingEvents: [(object: AnyObject, event: SynchronisingEvent, waitsBefore: Int)] = []

    /// In a task's body, the stack of each of its events, which places it beside its `async let`s.
    private var synchronisingStacks: [CallSite.Stack?] = []

    func synchronised(_ object: AnyObject, _ event: SynchronisingEvent) {
        if let child = childHere { return child.synchronised(object, event) }
        let stack = placedStack
        lock.withLock {
            synchronisingEvents.append((object, event, waitsInOrder.count))
            synchronisingStacks.append(stack)
        }
    }

    /// The stacks of the events of a task's body (nil for another work's).
    var synchronisingStacksOfABody: [CallSite.Stack?] {
        lock.withLock { synchronisingStacks }
    }

    /// The groups and semaphores the work entered, left or signalled, in order, each with how
    /// many sleeps and suspensions it had made by then.
    var synchronising: [(object: AnyObject, event: SynchronisingEvent, waitsBefore: Int)] {
        lock.withLock { synchronisingEvents }
    }

    /// How many sleeps and suspensions it made: an event after all of them is at its end.
    var waitCount: Int {
        lock.withLock { waitsInOrder.count }
    }

    /// Whether the work looks at `isCancelled` before each of its steps (after the first, a look
    /// between each two; before a lone step, one before it): a cancel then stops it at the next.
    var checksCancellation: Bool {
        lock.withLock {
            guard let first = checksBeforeSleep.first else { return false }
            return checksBeforeSleep.count == 1
                ? first > 0 : zip(checksBeforeSleep, checksBeforeSleep.dropFirst()).allSatisfy { $0 < $1 }
        }
    }

    /// The work as the model takes it.
    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: articleSecondsPerStep, steps: steps, checksCancellation: checksCancellation)
    }

    var printed: [String] {
        lock.withLock { lines }
    }

    var totalSeconds: Double {
        lock.withLock { sleeps.reduce(0, +) }
    }

    /// Equal sleeps are steps (a loop of `sleep(1)`); unequal ones are one step of their sum. A
    /// loop that nothing ends, named as it is rehearsed, is one step, so the run's watchdog
    /// comes soon.
    var steps: Int {
        lock.withLock { Set(sleeps).count == 1 && looksAtNoTasksCancel <= Self.loopBound ? sleeps.count : 1 }
    }

    var articleSecondsPerStep: Double {
        if loopsWithNothingToEndIt { return lock.withLock { sleeps.first ?? 0 } }
        return totalSeconds / Double(steps)
    }
}
