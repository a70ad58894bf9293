// Work that outlives the code that starts it: a learner's pending work, asynchronous operations' work, follow-on work.

import ExperimentModel
import Foundation

extension Lab {
    /// A learner's code returned: the work it started (the operations of the queues it added
    /// to, their completion blocks, the blocks it sent to Dispatch) ends before the run does,
    /// so that what it prints is shown, as a playground that runs on does. The main queues'
    /// work is run meanwhile, as a playground's run loop runs it, on the main thread. What never
    /// ends, the watchdog stops. A built-in experiment's code waits for its own work but its
    /// tasks, which the run waits for, as a learner's page that is a `Task { … }` and nothing
    /// after it needs.
    func waitForWhatTheCodeStarted() {
        guard isLearners else { return unfinished.wait() }
        let queues = lock.withLock { queuesUsed }
        // A queue left suspended holds its operations for good: nothing is waited for there.
        while queues.contains(where: { $0.operationCount > 0 && !$0.isSuspended })
            || unfinished.wait(timeout: .now()) == .timedOut
        {
            if Thread.isMainThread {
                RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.005))
            } else {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// In a run of a learner's code, an operation added to `queue` (or started by hand): the
    /// queue, and its completion block, are work the run waits for before it ends. Called under `lock`.
    func startedWork(on queue: OperationQueue?, completing operation: Operation) {
        guard isLearners else { return }
        if let queue, !queuesUsed.contains(where: { $0 === queue }) { queuesUsed.append(queue) }
        if operation.completionBlock != nil, pendingCompletions.insert(ObjectIdentifier(operation)).inserted {
            unfinished.enter()
        }
    }

    /// An operation's completion block has ended (see `startedWork(on:completing:)`).
    package func completionEnded(of operation: Operation) {
        lock.withLock {
            if pendingCompletions.remove(ObjectIdentifier(operation)) != nil { unfinished.leave() }
        }
    }

    /// `block`, handed to Dispatch or a thread by a learner's code in a run: among the work the
    /// run waits for before it ends (`waitForWhatTheCodeStarted()`), and, given a `row`, work
    /// the plan does not have, drawn as a timeline row of that label (the construct that sent
    /// it); elsewhere, `block` itself.
    package static func tracked(_ block: @escaping @Sendable () -> Void, row: String? = nil) -> @Sendable () -> Void {
        current?.tracked(block, row: row) ?? block
    }

    func tracked(_ block: @escaping @Sendable () -> Void, row: String? = nil) -> @Sendable () -> Void {
        guard mode == .running, isLearners else { return block }
        unfinished.enter()
        return { [self] in
            defer { unfinished.leave() }
            runUnplanned(block, row: row)
        }
    }

    /// ``tracked(_:row:)`` for a block Dispatch does not require to be `Sendable` (`notify`'s).
    package static func tracked(notified block: @escaping () -> Void, row: String?) -> () -> Void {
        guard let lab = current, lab.mode == .running, lab.isLearners else { return block }
        lab.unfinished.enter()
        return {
            defer { lab.unfinished.leave() }
            lab.runUnplanned(block, row: row)
        }
    }

    /// Runs `block`, as a timeline row labelled `row` when one is given, its sleeps its own (see ``unplanned(_:)``).
    private func runUnplanned(_ block: () -> Void, row: String?) {
        guard let row else { return block() }
        context.timeline.operation(row) { Lab.unplanned(block) }
    }

    /// A work item a learner's code sent to a queue, in a run: among the work the run waits for.
    package func tracked(_ workItem: DispatchWorkItem) {
        guard mode == .running, isLearners else { return }
        unfinished.enter()
        workItem.notify(queue: .global()) { [unfinished] in unfinished.leave() }
    }

    /// `OperationQueue.main` in a session: a queue of width 1 whose operations the main thread
    /// runs (as Foundation's is on Linux), made with `make` once per session, so that what is
    /// added to it and waited for is seen. In a learner's code it is named once, where the code
    /// first uses it: its work runs once the code returns, which the plan does not have. In an
    /// article's code the plan holds its operations (`queueIndex(_:)`) and a wait for it is a
    /// wait for them.
    package func mainQueue<Queue: OperationQueue>(_ make: () -> Queue) -> Queue {
        if let made = lock.withLock({ mainQueueStandIn }) as? Queue { return made }
        if isLearners, !Lab.readingCurrent { unmodelled("OperationQueue.main", why: Self.mainThreadRuns) }
        let made = make()
        lock.withLock { mainQueueStandIn = made }
        return made
    }

    static let mainThreadRuns =
        "its work runs on the main thread once the code returns, as a playground's run loop runs it, which the model does not plan yet"

    // MARK: Work that outlives main()

    /// A planned operation's work under way after its `main()` returned (an asynchronous
    /// operation's): its timeline row is open, and its sleeps, wherever they are made, are
    /// recorded into `recorded`. `@unchecked Sendable`: every property is a constant (`recorded`
    /// is itself thread-safe), and ``endWork(_:cancelled:)`` may be called from any thread.
    public final class PendingWork: @unchecked Sendable {
        let index: Int
        let span: Timeline.OpenSpan
        let recorded = RecordedWork()

        init(index: Int, span: Timeline.OpenSpan) {
            self.index = index
            self.span = span
        }
    }

    /// Opens the planned operation `index`'s row and runs `body` (its `main()`) recording its
    /// sleeps; the work goes on until ``endWork(_:cancelled:)``.
    package func beginWork(_ index: Int, _ body: (PendingWork) -> Void) {
        guard let plan, plan.operations.indices.contains(index) else { return }
        let pending = PendingWork(index: index, span: context.timeline.begin(plan.operations[index].label))
        Lab.$work.withValue(pending.recorded) { body(pending) }
    }

    /// The work begun with ``beginWork(_:_:)`` has ended (its callback came): its row closes,
    /// and what it slept, on whichever thread, is compared with the plan.
    package func endWork(_ pending: PendingWork, cancelled: Bool) {
        guard let planned = plan?.operations[pending.index] else { return }
        context.timeline.end(pending.span, cancelled: cancelled)
        if planned.work != .timer {
            compareSleeps(pending.recorded.totalSeconds, with: planned, cancelled: { cancelled })
        }
    }

    /// `block`, about to be handed to another thread (`DispatchQueue.global().async`), records
    /// its sleeps into the work being recorded on this one: the task-local recording does not
    /// cross Dispatch by itself.
    public static func handingOver(_ block: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        guard let work else { return block }
        return { $work.withValue(work, operation: block) }
    }

    // MARK: Follow-on work

    /// True while a ``FollowOnCompletion`` block runs: what it adds to queues is outside the plan.
    @TaskLocal static var followingOn = false

    /// Runs the completion block of a ``FollowOnCompletion`` operation: what it adds to a queue
    /// runs as Foundation runs it, is neither planned nor matched with the plan, and draws no row.
    package static func followOn(_ block: () -> Void) {
        $followingOn.withValue(true, operation: block)
    }

    /// An add made by follow-on work: in a run the operation is known to the lab as outside the
    /// plan (so its start is not taken for an unplanned one); a rehearsal holds it.
    func followingOn(_ operation: Operation, to queue: OperationQueue) -> Bool {
        guard mode == .running else { return false }
        lock.withLock {
            registered[ObjectIdentifier(operation)] = Workload.Registration(
                kind: .queued(queue: queueIndex(queue)), operations: [], completion: nil)
        }
        return true
    }

    /// The rehearsal calls a ``FollowOnCompletion`` operation's completion block once, when the
    /// operation is added, so what the experiment waits on (a `DispatchGroup` the block leaves)
    /// is released as in the run; what it prints or sleeps is not planned.
    /// Returns what it recorded: the groups it leaves and semaphores it signals, as the
    /// operation ends.
    static func rehearseFollowOn(of operation: Operation) -> RecordedWork? {
        guard operation is FollowOnCompletion, let block = operation.completionBlock else { return nil }
        let work = RecordedWork()
        $work.withValue(work) { followOn(block) }
        return work
    }
}
