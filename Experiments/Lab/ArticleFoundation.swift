import ExperimentKit
// Re-exported, so a learner's experiment (the module of `Experiments/Playground/`) imports
// Foundation through this module and no other way: where Foundation is imported directly beside
// it, the names below and Foundation's are equally near, and every use of one is ambiguous.
@_exported import Foundation

// The names the articles' code uses, as the experiments' code uses them: `OperationQueue`,
// `Operation`, `BlockOperation`, `DispatchQueue` (`init(label:)`, `async`, `asyncAfter`,
// `concurrentPerform`), `DispatchWorkItem`, `DispatchGroup`, `DispatchSemaphore`, `print`,
// `debugPrint`, `sleep`, `usleep`, `Thread.sleep` and `Thread.detachNewThread` in this module are
// Foundation's, Dispatch's and the standard library's, instrumented, with their signatures. They
// shadow the originals here (a module's own declarations win over imported ones) and, public, in
// the learner's module, which imports Foundation through this one, so an experiment's file
// reads like the article's playground.
//
// Outside a lab session (see ``Lab``) every one behaves exactly as the original. In a session:
// - in the rehearsal, the queue holds what is added (nothing starts, waits return at once,
//   nothing runs on Dispatch), each operation's blocks (or, for an `Operation` subclass, its
//   `main()`) and each block sent to a queue are called once with `sleep` recording instead of
//   waiting, and the objects are read for the model's plan;
// - in the run, everything is Foundation's own behaviour; each operation's work is recorded as a
//   timeline row, `print` goes into the timeline, `sleep` and `asyncAfter`'s
//   deadline last their article seconds times the time scale, and the work is compared with the plan.

/// Foundation's `OperationQueue`, reporting what is added to it to the lab.
///
/// `@unchecked Sendable`, as its superclass: it adds no stored state.
open class OperationQueue: Foundation.OperationQueue, @unchecked Sendable {
    open override func addOperation(_ operation: Foundation.Operation) {
        guard let lab = Lab.current else { return super.addOperation(operation) }
        guard lab.adding(operation, to: self) else { return }
        super.addOperation(operation)
        lab.added()
    }

    /// As Foundation does (a BlockOperation with the queue's QoS), with the instrumented BlockOperation.
    open override func addOperation(_ block: @escaping @Sendable () -> Void) {
        let operation = BlockOperation(block: block)
        operation.qualityOfService = qualityOfService
        addOperation(operation)
    }

    open override func addOperations(_ operations: [Foundation.Operation], waitUntilFinished wait: Bool) {
        guard let lab = Lab.current else { return super.addOperations(operations, waitUntilFinished: wait) }
        let added = operations.filter { lab.adding($0, to: self) }
        if !added.isEmpty {
            super.addOperations(added, waitUntilFinished: false)
            lab.added()
        }
        if wait, !lab.skipsWaiting(for: operations) { added.forEach { $0.waitUntilFinished() } }
    }

    open override func waitUntilAllOperationsAreFinished() {
        if Lab.current?.skipsWaiting(forQueue: self) == true { return }
        super.waitUntilAllOperationsAreFinished()
    }

    open override var isSuspended: Bool {
        get { super.isSuspended }
        set {
            Lab.current?.settingSuspended(newValue, on: self)
            super.isSuspended = newValue
        }
    }

    open override func cancelAllOperations() {
        Lab.current?.cancellingAll(on: self)
        super.cancelAllOperations()
    }

    /// Foundation's `addBarrierBlock`: a block that waits for all before it, and holds back all
    /// after it, which the lab plans (``Lab/addingBarrier(_:to:add:)``).
    open override func addBarrierBlock(_ barrier: @escaping @Sendable () -> Void) {
        guard let lab = Lab.current else { return super.addBarrierBlock(barrier) }
        lab.addingBarrier(barrier, to: self) { block in Lab.followOn { super.addBarrierBlock(block) } }
    }

    /// Foundation's `OperationQueue.main`, of this class, as an article's code types it
    /// (`let queue: OperationQueue = .main`): a queue as Foundation's is on Linux (width 1, its
    /// operations run by the main thread on Dispatch's main queue). In a lab session it is made
    /// once per session, and the lab sees its adds and waits (see ``Lab/mainQueue(_:)``);
    /// outside one, once per process, as Foundation's own, which is not of this class, is.
    open override class var main: OperationQueue {
        Lab.current?.mainQueue(madeAsFoundationsMain) ?? outsideALab
    }

    private static let outsideALab = madeAsFoundationsMain()

    private static func madeAsFoundationsMain() -> OperationQueue {
        let queue = OperationQueue()
        queue.name = "main"
        queue.maxConcurrentOperationCount = 1
        queue.underlyingQueue = .main
        return queue
    }

    /// Foundation's `OperationQueue.current`, of this class, which the lab is told of (see
    /// ``Lab/readingCurrentQueue(_:)``). Foundation's answer on the main thread, its own main
    /// queue, is this class's `main`; a queue of Foundation's own class has no answer here.
    open override class var current: OperationQueue? {
        Lab.readingCurrentQueue {
            let current = super.current
            return current === Foundation.OperationQueue.main ? main : current
        } as? OperationQueue
    }
}

/// Foundation's `Operation`, reporting to the lab: what an article's `Operation` subclass
/// inherits from here. A synchronous subclass's work is its `main()`: the rehearsal calls it once
/// (its prints name it, its sleeps time it, its looks at `isCancelled` say whether a cancel
/// stops it), and in a run its `start()` is its timeline row. A subclass whose work cannot be
/// learned by calling it (a timer, work handed to another thread) declares it
/// (``ModelledOperation``) and records it itself. `BlockOperation` below inherits it all: its
/// work is its blocks.
///
/// `@unchecked Sendable`, as its superclass: it adds no stored state.
open class Operation: Foundation.Operation, ReportsToLab, @unchecked Sendable {
    open override func start() {
        guard let lab = Lab.current else { return super.start() }
        lab.start(self) { super.start() }
    }

    open override var isCancelled: Bool {
        Lab.lookingAtCancellation(of: self) ?? super.isCancelled
    }

    open override var completionBlock: (@Sendable () -> Void)? {
        get { super.completionBlock }
        set {
            Lab.current?.settingCompletion(of: self)
            super.completionBlock = instrumented(completion: newValue, of: self)
        }
    }

    open override func waitUntilFinished() {
        if Lab.current?.skipsWaiting(for: self) == true { return }
        super.waitUntilFinished()
    }

    open override func cancel() {
        Lab.current?.cancelling(self)
        super.cancel()
    }

    open override func removeDependency(_ operation: Foundation.Operation) {
        Lab.current?.removingDependency(operation, of: self)
        super.removeDependency(operation)
    }
}

/// Foundation's `BlockOperation`, whose blocks report their work to the lab. It is an
/// `Operation` of this module, as Foundation's is one of Foundation's (`[Operation]` holds both
/// kinds, as an article's code writes it), and its blocks are held and run by one of
/// Foundation's own, whose `main()` is this one's: they run as Foundation runs them.
///
/// `@unchecked Sendable`, as its superclass: its one stored property is a constant, itself
/// thread-safe.
open class BlockOperation: Operation, ExecutesBlocks, @unchecked Sendable {
    private let foundationBlocks = Foundation.BlockOperation()

    /// As Foundation defines it: an empty operation, then the block added to it.
    public convenience init(block: @escaping @Sendable () -> Void) {
        self.init()
        addExecutionBlock(block)
    }

    /// Each block, when it runs in a lab, is the planned operation it stands for: the block of
    /// an operation started with `start()`, or of a queued one with several blocks; a queued
    /// operation's one block is recorded in `main()`. Added once the operation started, a block
    /// traps, as corelibs makes it.
    open func addExecutionBlock(_ block: @escaping @Sendable () -> Void) {
        if isExecuting || isFinished {
            fatalError("blocks cannot be added after the operation has started executing or finished")
        }
        let index = foundationBlocks.executionBlocks.count
        foundationBlocks.addExecutionBlock { [unowned self] in
            guard let lab = Lab.current, let planned = lab.plannedIndex(ofBlock: index, of: self) else {
                return block()
            }
            lab.perform(planned, cancelled: { self.isCancelled }, block)
        }
    }

    open var executionBlocks: [@Sendable () -> Void] {
        foundationBlocks.executionBlocks
    }

    open override func main() {
        guard let lab = Lab.current, let planned = lab.plannedIndex(ofQueued: self) else {
            if Lab.current?.runsHandedOff(self, foundationBlocks.main) != true { foundationBlocks.main() }
            return
        }
        lab.perform(planned, cancelled: { isCancelled }) { foundationBlocks.main() }
    }
}

/// An operation's completion block, which, when it runs in a lab, is the planned operation it
/// stands for.
private func instrumented(completion block: (@Sendable () -> Void)?, of operation: Foundation.Operation) -> (
    @Sendable () -> Void
)? {
    guard let block else { return nil }
    // An operation of a rehearsal runs its completion block only as the rehearsal calls it: one
    // Foundation sends when the rehearsal finishes an asynchronous operation is not run.
    let setInARehearsal = Lab.current?.mode == .rehearsing
    return { [unowned operation] in
        if setInARehearsal, !Lab.isRecordingWork { return }
        guard let lab = Lab.current else { return block() }
        defer { lab.completionEnded(of: operation) }
        guard let planned = lab.plannedCompletion(of: operation) else { return block() }
        lab.perform(planned, cancelled: { false }, block)
    }
}

extension Foundation.Operation {
    /// The work of one of the articles' `Operation` subclasses that declares its work
    /// (``ModelledOperation``; the body of its `main()`): in a lab run, the planned operation's
    /// timeline row, its sleeps compared with what the class declares; outside one, just `body`.
    /// The work of any other instrumented operation is recorded without asking.
    func work(_ body: () -> Void) {
        // Inside the row the instrumented `Operation`'s `start()` already records, just `body`.
        guard let lab = Lab.current, !Lab.isRecordingWork,
            let planned = lab.plannedIndex(ofQueued: self) ?? lab.plannedIndex(ofStarted: self)
        else { return body() }
        lab.perform(planned, cancelled: { isCancelled }, body)
    }
}

extension Foundation.Operation {
    /// The work of an article subclass that goes on after `main()` returns (an
    /// ``AsyncOperation``'s): `body` is the body of `main()`, and calls `workEnded` where the
    /// work really ends (in its callback, before `finish()`). In a lab run, the planned
    /// operation's row runs from `main()` to `workEnded`, and the sleeps made on the way, on
    /// any thread a closure was sent to with `DispatchQueue.async`, are compared with what the
    /// class declares; outside one, just `body`. The same holds for an operation the experiment
    /// starts by hand (``Lab/startedByHand(_:)``): in a rehearsal, where a queue starts nothing,
    /// that is the only way `main()` runs, and there the work is planned, not run, and an
    /// ``AsyncOperation`` finishes at once, as every wait returns at once in a rehearsal.
    func asyncWork(_ body: (_ workEnded: @escaping @Sendable () -> Void) -> Void) {
        guard let lab = Lab.current else { return body {} }
        guard let planned = lab.plannedIndex(ofQueued: self) ?? lab.startedByHand(self) else {
            if lab.mode == .rehearsing { (self as? AsyncOperation)?.finish() } else { body {} }
            return
        }
        lab.beginWork(planned) { pending in
            body { [unowned self] in lab.endWork(pending, cancelled: isCancelled) }
        }
    }
}

extension DispatchQueue {
    /// Dispatch's `DispatchQueue(label:…)`, telling the lab of the queue and whether it is serial
    /// (Dispatch's default, without `.concurrent`): a DispatchQueue cannot be asked whether it
    /// is, an OperationQueue whose `underlyingQueue` is serial runs one operation at a time,
    /// whatever its width, and what the code sends to the queue is planned on it.
    public convenience init(
        label: String, qos: DispatchQoS = .unspecified, attributes: Attributes = [],
        autoreleaseFrequency: AutoreleaseFrequency = .inherit, target: DispatchQueue? = nil
    ) {
        self.init(
            dispatchLabel: label, qos: qos, attributes: attributes, autoreleaseFrequency: autoreleaseFrequency,
            target: target)
        Lab.current?.madeQueue(self, serial: !attributes.contains(.concurrent))
        if attributes.contains(.initiallyInactive) {
            Lab.current?.unmodelled("DispatchQueue .initiallyInactive", why: Self.heldBack)
        }
    }

    static let heldBack = "the model does not plan a queue held back until it is resumed or activated"
}

extension DispatchQueue {
    /// Dispatch's `async`, telling the lab: a block the experiment's thread sends to a global
    /// queue is an operation of the plan (``Lab/dispatching(_:to:group:barrier:submit:)``); one sent from
    /// inside an operation's work is that work's, wherever it runs.
    public func async(
        group: DispatchGroup? = nil, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        guard let lab = Lab.current else { return dispatchAsync(group: group, qos: qos, flags: flags, execute: work) }
        lab.dispatching(work, to: self, group: group, barrier: flags.contains(.barrier)) {
            dispatchAsync(group: group, qos: qos, flags: flags, execute: $0)
        }
    }

    /// Dispatch's `sync`, its block held in the plan as the calling thread's work while it
    /// takes no time (see ``Lab/synchronising(_:)``).
    public func sync(execute block: () -> Void) {
        sync(flags: [], execute: block)
    }

    /// Dispatch's `sync` of a value, as `sync(execute:)`.
    public func sync<T>(execute work: () throws -> T) rethrows -> T {
        try sync(flags: [], execute: work)
    }

    /// Dispatch's `sync` with flags (a barrier), as `sync(execute:)`.
    public func sync<T>(flags: DispatchWorkItemFlags, execute work: () throws -> T) rethrows -> T {
        if Lab.rehearsesInPlace(syncOn: self) { return try work() }
        Lab.current?.waitingForOwnQueue(self, barrier: flags.contains(.barrier))
        return try Lab.synchronising { try dispatchSync(flags: flags, execute: work) }
    }

    /// Dispatch's `sync` of a work item, which the model does not plan yet.
    public func sync(execute workItem: DispatchWorkItem) {
        Lab.current?.unmodelled("DispatchWorkItem", why: DispatchWorkItem.unplanned)
        if Lab.rehearsesUnplanned({ workItem.dispatchPerform() }) { return }
        dispatchSync(execute: workItem)
    }

    /// Dispatch's `asyncAfter`: a timer, whose block the lab plans where it can
    /// (``Lab/delaying(_:on:until:submit:)``). Its deadline is article seconds from now, which a
    /// run scales by the time scale (``Lab/timer(until:row:queueMayHoldTheBlock:_:)``).
    public func asyncAfter(
        deadline: DispatchTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        if Lab.holds(work, handedOff: .timer(articleSeconds: Lab.articleSeconds(until: deadline))) { return }
        guard let lab = Lab.current else {
            return dispatchAsyncAfter(deadline: deadline, qos: qos, flags: flags, execute: work)
        }
        lab.delaying(work, on: self, until: deadline, barrier: flags.contains(.barrier)) {
            dispatchAsyncAfter(deadline: $0, qos: qos, flags: flags, execute: $1)
        }
    }

    /// Dispatch's `asyncAfter` of a work item, which the model does not plan yet, its deadline
    /// scaled as `asyncAfter`'s of a block.
    public func asyncAfter(deadline: DispatchTime, execute workItem: DispatchWorkItem) {
        Lab.current?.unmodelled("DispatchQueue.asyncAfter", why: DispatchWorkItem.unplanned)
        if Lab.current?.sendingUnplanned(workItem) == true { return }
        dispatchAsyncAfter(deadline: Lab.timer(until: deadline), execute: workItem)
    }

    /// Dispatch's `asyncAfter` at a wall-clock deadline, named: the run does not scale it.
    public func asyncAfter(
        wallDeadline: DispatchWallTime, qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        Lab.current?.unmodelled("DispatchQueue.asyncAfter(wallDeadline:)", why: DispatchWallTime.unscaled)
        if Lab.rehearsesUnplanned(work) { return }
        dispatchAsyncAfter(
            wallDeadline: wallDeadline, qos: qos, flags: flags,
            execute: Lab.tracked(work, row: "asyncAfter(wallDeadline:)"))
    }

    /// Dispatch's `asyncAfter` of a work item at a wall-clock deadline, named as the block's.
    public func asyncAfter(wallDeadline: DispatchWallTime, execute workItem: DispatchWorkItem) {
        Lab.current?.unmodelled("DispatchQueue.asyncAfter(wallDeadline:)", why: DispatchWallTime.unscaled)
        if Lab.current?.sendingUnplanned(workItem) == true { return }
        dispatchAsyncAfter(wallDeadline: wallDeadline, execute: workItem)
    }

    /// Dispatch's `async` of a work item: its block is planned as a block sent so, with the
    /// item's flags (``Lab/dispatching(_:to:group:submit:)``).
    public func async(execute workItem: DispatchWorkItem) {
        guard let lab = Lab.current else { return dispatchAsync(execute: workItem) }
        lab.dispatching(workItem, to: self) { dispatchAsync(group: nil, qos: $0, flags: $1, execute: $2) }
    }

    /// Dispatch's `async` of a work item into a group, planned as `async(execute:)`'s, the
    /// item's block a member of the group.
    public func async(group: DispatchGroup, execute workItem: DispatchWorkItem) {
        guard let lab = Lab.current else { return dispatchAsync(group: group, execute: workItem) }
        lab.dispatching(workItem, to: self, group: group) {
            dispatchAsync(group: group, qos: $0, flags: $1, execute: $2)
        }
    }

    /// Dispatch's `concurrentPerform`: the iterations spread over the calling thread and the
    /// pool, each planned as an operation of the call (``Lab/performingConcurrently(iterations:_:perform:)``).
    public class func concurrentPerform(iterations: Int, execute work: (Int) -> Void) {
        guard let lab = Lab.current else { return dispatchConcurrentPerform(iterations: iterations, execute: work) }
        lab.performingConcurrently(iterations: iterations, work) {
            dispatchConcurrentPerform(iterations: iterations, execute: $0)
        }
    }
}

extension DispatchWallTime {
    static let unscaled =
        "a wall-clock deadline, which the run does not scale by the time scale and the model does not plan"
}

extension DispatchObject {
    /// Dispatch's `suspend()`; on a DispatchQueue, named: the model does not plan a queue held back.
    public func suspend() {
        if self is DispatchQueue { Lab.current?.unmodelled("DispatchQueue.suspend()", why: DispatchQueue.heldBack) }
        dispatchSuspend()
    }

    /// Dispatch's `resume()`; on a DispatchQueue, named as `suspend()` is.
    public func resume() {
        if self is DispatchQueue { Lab.current?.unmodelled("DispatchQueue.resume()", why: DispatchQueue.heldBack) }
        dispatchResume()
    }

    /// Dispatch's `activate()`; on a DispatchQueue, named as `suspend()` is.
    public func activate() {
        if self is DispatchQueue { Lab.current?.unmodelled("DispatchQueue.activate()", why: DispatchQueue.heldBack) }
        dispatchActivate()
    }
}

extension DispatchSource {
    /// Dispatch's `makeTimerSource`, named: the model does not plan its handler, and the run
    /// does not scale the deadlines the code schedules it at.
    public class func makeTimerSource(flags: TimerFlags = [], queue: DispatchQueue? = nil) -> DispatchSourceTimer {
        Lab.current?.unmodelled(
            "DispatchSource.makeTimerSource",
            why: "the model does not plan a timer source's handler, and the run does not scale its deadlines")
        return dispatchMakeTimerSource(flags: flags, queue: queue)
    }
}

extension DispatchWorkItem {
    static let unplanned = "the model does not plan work items yet"

    /// Dispatch's `DispatchWorkItem(qos:flags:block:)`, its QoS and flags told to the lab
    /// (``Lab/madeWorkItem(_:qos:flags:)``), which sends them with the item's block.
    public convenience init(
        qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [],
        block: @escaping @convention(block) () -> Void
    ) {
        self.init(dispatchQoS: qos, flags: flags, block: block)
        Lab.current?.madeWorkItem(self, qos: qos, flags: flags)
    }

    /// Dispatch's `perform()`: the item's block, on the calling thread, its sleeps that
    /// thread's (the experiment's own, or the work it is part of).
    public func perform() {
        Lab.current?.performing(self)
        dispatchPerform()
    }

    /// Dispatch's `cancel()`: before the item is sent, it never runs; after, named
    /// (``Lab/cancelling(_:)``).
    public func cancel() {
        Lab.current?.cancelling(self)
        dispatchCancel()
    }

    /// Dispatch's `wait()`: the experiment's thread waits for the item's planned block.
    public func wait() {
        if Lab.current?.skipsWaiting(forWorkItem: self) == true { return }
        dispatchWait()
    }

    /// Dispatch's `wait(timeout:)`: which comes first, the timeout or the item's end, the plan
    /// cannot tell. The timeout is article seconds from now, which a run scales (``Lab/timer(until:)``).
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        Lab.current?.unmodelled(
            "DispatchWorkItem.wait(timeout:)",
            why: "the plan cannot tell which comes first, the timeout or the item's end")
        return Lab.current?.mode == .rehearsing ? .success : dispatchWait(timeout: Lab.timer(until: timeout))
    }

    /// Dispatch's `notify`: a block run when the item is done, planned as a group's notify is,
    /// after the item's block (``Lab/notifying(_:of:on:submit:)``).
    public func notify(
        qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
        execute: @escaping @convention(block) () -> Void
    ) {
        guard let lab = Lab.current else {
            return dispatchNotify(qos: qos, flags: flags, queue: queue, execute: execute)
        }
        lab.notifying(execute, of: self, on: queue) {
            dispatchNotify(qos: qos, flags: flags, queue: queue, execute: $0)
        }
    }
}

extension DispatchGroup {
    /// Dispatch's `enter()`, counted by the lab (in a rehearsal, only counted: nothing waits on
    /// the group there, and one left entered would trap when it is freed).
    public func enter() {
        if Lab.current?.synchronising(self, .entered) == true { return }
        dispatchEnter()
    }

    /// Dispatch's `leave()`: by the work the lab is recording, or the experiment's thread.
    public func leave() {
        if Lab.current?.synchronising(self, .left) == true { return }
        dispatchLeave()
    }

    /// Dispatch's `wait()`: the experiment's thread waits for the planned work that leaves the group.
    public func wait() {
        if Lab.current?.skipsWaiting(forGroup: self) == true { return }
        dispatchWait()
    }

    /// Dispatch's `wait(timeout:)`: which comes first, the timeout or the group, the plan cannot
    /// tell. The timeout is article seconds from now, which a run scales (``Lab/timer(until:)``).
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        Lab.current?.unmodelled(
            "DispatchGroup.wait(timeout:)",
            why: "the plan cannot tell which comes first, the timeout or the group's end")
        return Lab.current?.mode == .rehearsing ? .success : dispatchWait(timeout: Lab.timer(until: timeout))
    }

    /// Dispatch's `notify`: a block that runs when the group is done, which the lab plans
    /// where it can (``Lab/notifying(_:of:on:submit:)``).
    public func notify(
        qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], queue: DispatchQueue,
        execute work: @escaping @convention(block) () -> Void
    ) {
        guard let lab = Lab.current else { return dispatchNotify(qos: qos, flags: flags, queue: queue, execute: work) }
        lab.notifying(work, of: self, on: queue) { dispatchNotify(qos: qos, flags: flags, queue: queue, execute: $0) }
    }

    /// Dispatch's `notify` of a work item, which the model does not plan yet.
    public func notify(queue: DispatchQueue, work workItem: DispatchWorkItem) {
        Lab.current?.unmodelled("DispatchGroup.notify(queue:work:)", why: DispatchWorkItem.unplanned)
        if Lab.current?.sendingUnplanned(workItem) == true { return }
        dispatchNotify(queue: queue, work: workItem)
    }
}

extension DispatchSemaphore {
    /// Dispatch's `DispatchSemaphore(value:)`, its permits told to the lab.
    public convenience init(value: Int) {
        self.init(permits: value)
        Lab.current?.madeSemaphore(self, value: value)
    }

    /// Dispatch's `signal()`: by the work the lab is recording, or the experiment's thread.
    @discardableResult
    public func signal() -> Int {
        if Lab.current?.synchronising(self, .signalled) == true { return 0 }
        return dispatchSignal()
    }

    /// Dispatch's `wait()`: the experiment's thread waits for the planned work that signals it.
    public func wait() {
        if Lab.current?.skipsWaiting(forSemaphore: self) == true { return }
        dispatchWait()
    }

    /// Dispatch's `wait(timeout:)`: which comes first, the timeout or the signal, the plan cannot
    /// tell. The timeout is article seconds from now, which a run scales (``Lab/timer(until:)``).
    public func wait(timeout: DispatchTime) -> DispatchTimeoutResult {
        Lab.current?.unmodelled(
            "DispatchSemaphore.wait(timeout:)", why: "the plan cannot tell which comes first, the timeout or the signal"
        )
        return Lab.current?.mode == .rehearsing ? .success : dispatchWait(timeout: Lab.timer(until: timeout))
    }
}

/// A ``FollowOnCompletion`` class's completion block, as its `completionBlock` setter stores it:
/// what it does runs as follow-on work (``Lab/followOn(_:)``).
func followingOn(_ block: (@Sendable () -> Void)?) -> (@Sendable () -> Void)? {
    guard let block else { return nil }
    return { Lab.followOn(block) }
}

/// A piece of an operation's work (one sum of a loop) as a row of its own in a lab run's
/// timeline; outside a run, just `body`.
func row(_ label: String, _ body: () -> Void) {
    guard let lab = Lab.current, !lab.context.isRehearsal else { return body() }
    lab.context.timeline.operation(label, body)
}

/// The articles' `print`: one line of the experiment's output, with its time and thread.
public func print(_ text: String) {
    Lab.print(text)
}

/// The standard library's `print` of any items (`print(42)`, `print("sum", x)`, `print(array)`):
/// one line of the experiment's output, the items written as `print` writes them. A terminator
/// other than a line break stays at the end of the line it closes.
public func print(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Lab.print(items.map { String(describing: $0) }.joined(separator: separator) + lineEnd(terminator))
}

/// The standard library's `debugPrint`, recorded as `print` is.
public func debugPrint(_ items: Any..., separator: String = " ", terminator: String = "\n") {
    Lab.print(items.map { String(reflecting: $0) }.joined(separator: separator) + lineEnd(terminator))
}

/// What of a terminator shows on the recorded line: all but its trailing line break.
private func lineEnd(_ terminator: String) -> String {
    terminator.hasSuffix("\n") ? String(terminator.dropLast()) : terminator
}

/// The articles' `sleep(2)`: blocks the calling thread for that many article seconds (times the
/// time scale).
public func sleep(_ seconds: Int) {
    Lab.sleep(articleSeconds: Double(seconds))
}

/// `sleep` with a knob's value or a fraction of a second, in article seconds.
public func sleep(_ seconds: Double) {
    Lab.sleep(articleSeconds: seconds)
}

/// The C library's `sleep(UInt32)`, as `sleep(2)`; nothing interrupts it, so it returns 0.
@discardableResult
public func sleep(_ seconds: UInt32) -> UInt32 {
    Lab.sleep(articleSeconds: Double(seconds))
    return 0
}

/// The C library's `usleep`: that many article microseconds (times the time scale); returns 0.
@discardableResult
public func usleep(_ microseconds: UInt32) -> Int32 {
    Lab.sleep(articleSeconds: Double(microseconds) / 1_000_000)
    return 0
}

extension Foundation.Thread {
    /// Foundation's `Thread.detachNewThread`: a thread of the code's own, which the plan does not hold.
    public class func detachNewThread(_ block: @escaping @Sendable () -> Void) {
        Lab.current?.unmodelled(
            "Thread.detachNewThread", why: "the plan holds the queues' threads only, not one of the code's own")
        if Lab.rehearsesUnplanned(block) { return }
        foundationDetachNewThread(Lab.tracked(block, row: "Thread.detachNewThread"))
    }

    /// Foundation's `Thread.sleep(forTimeInterval:)`, as `sleep`: article seconds times the time scale.
    public class func sleep(forTimeInterval interval: TimeInterval) {
        Lab.sleep(articleSeconds: max(0, interval))
    }

    /// Foundation's `Thread.sleep(until:)`: the article seconds the code asked `date` to lie after
    /// the moment it made it, as `sleep` (``Lab/articleSeconds(remaining:)``, as a deadline's).
    public class func sleep(until date: Date) {
        Lab.sleep(articleSeconds: Lab.articleSeconds(remaining: date.timeIntervalSinceNow))
    }
}

extension QualityOfService {
    /// Foundation's class for the model's name of it.
    init(_ serviceClass: ServiceClass) {
        switch serviceClass {
        case .userInteractive: self = .userInteractive
        case .userInitiated: self = .userInitiated
        case .default: self = .default
        case .utility: self = .utility
        case .background: self = .background
        }
    }
}
