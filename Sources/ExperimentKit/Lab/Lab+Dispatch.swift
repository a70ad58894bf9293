// Blocks the code sends to Dispatch queues, rehearsed as planned operations or named as outside the plan.

import ExperimentModel
import Foundation

extension Lab {
    /// `queue.async { … }`. From the experiment's thread, to a global queue or a DispatchQueue of
    /// the code's own: in a rehearsal the block is a planned operation of that queue, rehearsed
    /// now (on a queue of the code's own, a `barrier` waits for what was sent before it, and
    /// what is sent after waits for it); in a run, its row. In a
    /// run, from inside an asynchronous operation's work (`Operation.asyncWork(_:)`),
    /// its sleeps are that work's, wherever they run. What the plan cannot hold (a queue made
    /// outside the session, a block sent from inside a rehearsed work, which runs beside it) is
    /// named, and rehearsed where it is sent. `submit` hands a block to Dispatch.
    @discardableResult
    package func dispatching(
        _ block: @escaping @Sendable () -> Void, to queue: DispatchQueue, group: DispatchGroup?, barrier: Bool,
        submit: (@escaping @Sendable () -> Void) -> Void
    ) -> Int? {
        let serviceClass = Self.globalServiceClass(of: queue)
        let ownQueue = isOwn(queue)
        if ownQueue, Lab.work == nil, isExperimentThread {
            lock.withLock { _ = ownQueuesSentTo.insert(ObjectIdentifier(queue)) }
        }
        guard mode == .rehearsing else {
            if let handedOff = handOff() {
                submit(tracked(continuing(handedOff, sendable: block)))
                return nil
            }
            if Lab.work != nil {
                submit(tracked(Lab.handingOver(block)))
                return nil
            }
            guard serviceClass != nil || ownQueue, isExperimentThread,
                let index = lock.withLock({ follow(nil, as: .dispatched, queueName: nil)?.operations.first })
            else {
                submit(
                    tracked(
                        block,
                        row: queue.label == DispatchQueue.main.label
                            ? "DispatchQueue.main.async" : "async on '\(queue.label)'"))
                return nil
            }
            submit(tracked { [self] in perform(index, cancelled: { false }, block) })
            return index
        }
        if let serviceClass, Lab.holds(block, handedOff: .pool(serviceClass)) { return nil }
        if Lab.work != nil {
            unmodelled(
                "DispatchQueue.async inside a work",
                why:
                    "the block runs beside the work that sends it (an operation's, a block's, a notify's), at an instant the plan cannot tell (an asynchronous operation that declares its work can hand work off)"
            )
            Self.unplanned(block)
            return nil
        }
        // Dispatch hands out a new object for its main queue each time it is asked.
        if queue.label == DispatchQueue.main.label {
            unmodelled("DispatchQueue.main.async", why: Self.mainThreadRuns)
            Self.unplanned(block)
            return nil
        }
        guard let executor = lock.withLock({ plannedExecutor(of: queue) }) else {
            unmodelled(
                "async on DispatchQueue '\(queue.label)'",
                why:
                    "the queue was made before the experiment's code ran, so the plan does not know whether it is serial"
            )
            Self.unplanned(block)
            return nil
        }
        let index = planDispatched(block, to: queue, executor: executor, barrier: barrier)
        if let group {
            lock.withLock {
                synchronisers[ObjectIdentifier(group), default: Synchroniser()].members.append((index, true))
            }
        }
        return index
    }

    /// `queue.asyncAfter(deadline: .now() + n) { … }`. From the experiment's thread, to a global
    /// queue or one of the code's own, before any wait of the thread: in a rehearsal the block
    /// is a planned operation of that queue, added n article seconds after the thread's instant
    /// (a timer holds no thread meanwhile); in a run, its row, sent when the timer fires, the
    /// timer its own row (``timer(until:row:queueMayHoldTheBlock:_:)``). What the plan cannot hold (a queue made
    /// before the code ran, a timer set inside a work or after a wait, whose start the plan
    /// does not have, the main queue, a barrier on a queue of the code's own, which waits for
    /// what the queue is sent until its timer fires) is named, and rehearsed where it is set.
    /// `submit` hands the deadline and block to Dispatch.
    package func delaying(
        _ block: @escaping @Sendable () -> Void, on queue: DispatchQueue, until deadline: DispatchTime,
        barrier: Bool = false, submit: (DispatchTime, @escaping @Sendable () -> Void) -> Void
    ) {
        // A global queue ignores a barrier.
        let ownBarrier = barrier && isOwn(queue)
        let planned =
            (Self.globalServiceClass(of: queue) != nil || isOwn(queue)) && Lab.handedOff == nil && isExperimentThread
            && !lock.withLock { waited } && !ownBarrier
        guard mode == .rehearsing else {
            let index = planned ? lock.withLock { follow(nil, as: .dispatched, queueName: nil)?.operations.first } : nil
            guard let index else {
                let timer = Lab.timer(until: deadline, row: "DispatchQueue.asyncAfter", block)
                return submit(timer.deadline, timer.block)
            }
            let timer = Lab.timer(
                until: deadline, row: nil, queueMayHoldTheBlock: Self.globalServiceClass(of: queue) == nil
            ) { [self] in perform(index, cancelled: { false }, block) }
            return submit(timer.deadline, timer.block)
        }
        guard planned, let executor = lock.withLock({ plannedExecutor(of: queue) }) else {
            let why =
                if ownBarrier {
                    "the barrier waits for what the queue is sent until its timer fires, and what is sent after waits for it, which the model does not plan yet"
                } else if queue.label == DispatchQueue.main.label {
                    Self.mainThreadRuns
                } else if planned {
                    "the queue was made before the experiment's code ran, so the plan does not know whether it is serial"
                } else {
                    "a timer set inside a work or after a wait starts at an instant the plan does not have"
                }
            unmodelled(ownBarrier ? "DispatchQueue.asyncAfter(flags: .barrier)" : "DispatchQueue.asyncAfter", why: why)
            return Self.unplanned(block)
        }
        let delay = Self.articleSeconds(until: deadline)
        let index = planDispatched(block, to: queue, executor: executor)
        lock.withLock { workload.operations[index].addedAtArticleSeconds = virtualNow + delay }
    }

    /// `group.notify(queue:) { … }`, or a work item's (`construct`). From the experiment's
    /// thread, to a global queue or one of the code's own: in a rehearsal the block is a planned
    /// operation of that queue that waits for what `awaited` finds (the planned operations that
    /// empty the group, ``members(of:)``, or the item's), as Dispatch submits it once they are
    /// done; in a run, its row. What the plan cannot hold (the main queue, a notify set inside a
    /// work, a group whose emptying the plan cannot tell) is named, and rehearsed where it is
    /// set. `submit` hands the block to Dispatch.
    func notifying(
        _ construct: String, _ block: @escaping () -> Void, on queue: DispatchQueue,
        after awaited: () -> Result<[Int], Unplannable>, submit: (@escaping () -> Void) -> Void
    ) {
        let planned =
            (Self.globalServiceClass(of: queue) != nil || isOwn(queue)) && Lab.handedOff == nil && isExperimentThread
        guard mode == .rehearsing else {
            let index = planned ? lock.withLock { follow(nil, as: .dispatched, queueName: nil)?.operations.first } : nil
            guard let index else { return submit(Lab.tracked(notified: block, row: construct)) }
            return submit(Lab.tracked(notified: { [self] in perform(index, cancelled: { false }, block) }, row: nil))
        }
        rehearsePendingMains()
        let emptiedBy = lock.withLock { awaited() }
        let executor = planned ? lock.withLock { plannedExecutor(of: queue) } : nil
        guard let executor, case .success(let members) = emptiedBy else {
            let why =
                if case .failure(let unplannable) = emptiedBy, planned {
                    unplannable.why
                } else if queue.label == DispatchQueue.main.label {
                    Self.mainThreadRuns
                } else {
                    "a notify set inside a work, or to a queue made before the experiment's code ran, is outside the plan"
                }
            unmodelled(construct, why: why)
            return Self.unplanned(block)
        }
        planDispatched(block, to: queue, executor: executor, after: members)
    }

    /// `group.notify(queue:) { … }` (see `notifying(_:_:on:after:submit:)`).
    package func notifying(
        _ block: @escaping () -> Void, of group: DispatchGroup, on queue: DispatchQueue,
        submit: (@escaping () -> Void) -> Void
    ) {
        notifying("DispatchGroup.notify", block, on: queue, after: { members(of: group) }, submit: submit)
    }

    /// `queue.addBarrierBlock { … }` from the experiment's thread: in a rehearsal the block is a
    /// planned operation of the queue that waits for every operation added to it before, at the
    /// barrier's priority, above `.veryHigh`, and what is added after waits for it; in a run, its
    /// row. corelibs makes the barrier an operation that depends on each operation the queue
    /// holds, adds a dependency on a barrier not yet started to each operation added after it,
    /// and sends a started one to its DispatchQueue with `.barrier`, which holds back what comes
    /// after (`OperationQueue.addBarrierBlock`, `_addOperations`, `_schedule` in
    /// Operation.swift); Apple's documentation says the same ("Invokes a block when the queue
    /// finishes all enqueued operations, and prevents subsequent operations from starting until
    /// the block has completed"). One added inside a work is named. `add` hands it to Foundation.
    package func addingBarrier(
        _ barrier: @escaping @Sendable () -> Void, to queue: OperationQueue,
        add: (@escaping @Sendable () -> Void) -> Void
    ) {
        guard mode == .rehearsing else {
            guard isExperimentThread,
                let index = lock.withLock({ follow(nil, as: .dispatched, queueName: queue.name)?.operations.first })
            else { return add(tracked(barrier, row: "addBarrierBlock")) }
            return add(tracked { [self] in perform(index, cancelled: { false }, barrier) })
        }
        guard isExperimentThread else {
            unmodelled(
                "OperationQueue.addBarrierBlock inside an operation's work",
                why: "it is added when a queue runs that operation, at an instant the plan cannot tell")
            return Self.unplanned(barrier)
        }
        rehearsePendingMains()
        let work = Self.rehearseBlocks([barrier])[0]
        lock.withLock {
            let queueIndex = queueIndex(queue)
            let before = workload.operations.indices.filter {
                switch workload.operations[$0].executor {
                case .queue(let queue): return queue == queueIndex
                case .executionBlock(let first): return workload.operations[first].executor == .queue(queueIndex)
                default: return false
                }
            }
            let index = addPlanned(
                Operation(), label: work.printed.first ?? "barrier on \(workload.queues[queueIndex].name)", work: work,
                executor: .queue(queueIndex), dependencies: before)
            workload.operations[index].queuePriority = Self.barrierPriority
            ordered(index, on: .queue(queueIndex), barrier: true)
            registrations.append(Workload.Registration(kind: .dispatched, operations: [index], completion: nil))
        }
    }

    /// The priority corelibs files a barrier under, above every `queuePriority` an operation can have.
    static let barrierPriority = Operation.QueuePriority.veryHigh.rawValue + 4

    /// Whether `queue` is a DispatchQueue the code made in this session (``madeQueue(_:serial:)``).
    func isOwn(_ queue: DispatchQueue) -> Bool {
        lock.withLock { (serialQueues + concurrentQueues).contains { $0 === queue } }
    }

    /// Where a block sent to `queue` runs in the plan: a global queue's pool, or a queue of the
    /// code's own, serial (width 1, on the overcommit pool) or concurrent (no limit), read the
    /// first time it is sent to; nil for a queue the session did not see made. Called with `lock` held.
    func plannedExecutor(of queue: DispatchQueue) -> Executor? {
        if let serviceClass = Self.globalServiceClass(of: queue) { return .globalQueue(serviceClass) }
        if let index = queueIndices[ObjectIdentifier(queue)] { return .queue(index) }
        let serial = serialQueues.contains { $0 === queue }
        guard serial || concurrentQueues.contains(where: { $0 === queue }) else { return nil }
        let index = workload.addQueue(
            QueueSpec(name: queue.label, maxConcurrentOperationCount: serial ? 1 : nil, overcommits: serial))
        queueIndices[ObjectIdentifier(queue)] = index
        return .queue(index)
    }

    /// What a block sent to a queue of the code's own waits for besides its turn: its last
    /// barrier, and, a barrier itself, everything sent since. Called with `lock` held.
    func orderAfter(on executor: Executor, barrier: Bool) -> [Int] {
        guard case .queue(let queue) = executor, let order = ownQueueOrder[queue] else { return [] }
        return (barrier ? order.sinceBarrier : []) + (order.barrier.map { [$0] } ?? [])
    }

    /// The block `index` was sent to its queue (as a barrier or not). Called with `lock` held.
    private func ordered(_ index: Int, on executor: Executor, barrier: Bool) {
        guard case .queue(let queue) = executor else { return }
        if barrier {
            ownQueueOrder[queue] = ([], index)
        } else {
            ownQueueOrder[queue, default: ([], nil)].sinceBarrier.append(index)
        }
    }

    /// `queue.sync` on the experiment's thread, to a DispatchQueue of the code's own it sent
    /// blocks to: the block runs once what it waits for has ended, so the thread waits for it:
    /// on a serial queue, everything sent; on a concurrent one, its last barrier, and, a barrier
    /// itself, everything sent (Dispatch's `sync`: "Submits a work item for execution on the
    /// current queue and returns after that block finishes executing").
    package func waitingForOwnQueue(_ queue: DispatchQueue, barrier: Bool) {
        guard isExperimentThread, lock.withLock({ ownQueuesSentTo.contains(ObjectIdentifier(queue)) }) else { return }
        _ = skipsWaiting("DispatchQueue.sync") {
            guard case .queue(let index) = plannedExecutor(of: queue) else { return .success([]) }
            let serial = workload.queues[index].maxConcurrentOperationCount == 1
            return .success(
                serial || barrier
                    ? workload.operations.indices.filter {
                        // A block still behind its timer is sent after this sync's own.
                        workload.operations[$0].executor == .queue(index)
                            && workload.operations[$0].addedAtArticleSeconds <= virtualNow
                    }
                    : orderAfter(on: .queue(index), barrier: false))
        }
    }

    /// A block the experiment's thread sends to a queue, rehearsed now, as a planned operation of
    /// that queue that waits for `after` too (and, on a queue of the code's own, for what its
    /// barriers order), registered as dispatched; its index.
    @discardableResult
    private func planDispatched(
        _ block: @escaping () -> Void, to queue: DispatchQueue, executor: Executor, barrier: Bool = false,
        after: [Int] = []
    ) -> Int {
        let work = Self.rehearseBlocks([block])[0]
        return lock.withLock {
            let index = addPlanned(
                Operation(), label: work.printed.first ?? "block \(workload.operations.count + 1) on \(queue.label)",
                work: work, executor: executor,
                dependencies: awaitedByTheThread + after + orderAfter(on: executor, barrier: barrier)
            )
            ordered(index, on: executor, barrier: barrier)
            registrations.append(Workload.Registration(kind: .dispatched, operations: [index], completion: nil))
            return index
        }
    }

    /// In a rehearsal, a block the plan does not hold (sent to a queue made before the code ran, after a
    /// delay, to a thread of its own) is called here, once, as every block is, so what it leaves
    /// or signals is left or signalled; nothing runs on Dispatch while the rehearsal goes on, or
    /// after it. Outside a rehearsal, false: the caller runs it as Dispatch does.
    package static func rehearsesUnplanned(_ block: () -> Void) -> Bool {
        guard current?.mode == .rehearsing else { return false }
        unplanned(block)
        return true
    }

    /// Runs `block`, work the plan does not hold, on the calling thread: its sleeps are its own,
    /// not the experiment's thread's (an iteration of `concurrentPerform` made there, a work
    /// item performed in place).
    public static func unplanned(_ block: () -> Void) {
        $work.withValue(RecordedWork()) { block() }
    }

    /// `DispatchQueue.sync`, which `sync` makes as Dispatch does: the block runs on the calling
    /// thread once the queue has run what it holds before it. The plan holds the block as the
    /// caller's own work, which it is while it takes no time (a counter guarded, a value read).
    /// One that sleeps holds the queue meanwhile, and any other caller waits its turn behind
    /// it, which the model does not plan yet: named at the `sync`'s line.
    package static func synchronising<T>(_ sync: () throws -> T) rethrows -> T {
        guard let lab = current, lab.mode == .rehearsing else { return try sync() }
        return try $synchronisedAt.withValue(CallSite.inExperiment()) { try sync() }
    }

    /// Whether a rehearsal runs the block of a `sync` on `queue` in place: on the main queue,
    /// whose thread is the experiment's own and runs it only once the code returns, it is named.
    package static func rehearsesInPlace(syncOn queue: DispatchQueue) -> Bool {
        guard let lab = current, lab.mode == .rehearsing, queue.label == DispatchQueue.main.label else { return false }
        lab.unmodelled("DispatchQueue.main.sync", why: mainThreadRuns)
        return true
    }

    /// The line of the `DispatchQueue.sync` whose block the rehearsal is running, if any.
    @TaskLocal static var synchronisedAt: String?

    /// The class of a global queue (`DispatchQueue.global(qos:)`), read from its label; nil for
    /// any other queue.
    static func globalServiceClass(of queue: DispatchQueue) -> ServiceClass? {
        let classes: [String: ServiceClass] = [
            "com.apple.root.user-interactive-qos": .userInteractive,
            "com.apple.root.user-initiated-qos": .userInitiated,
            "com.apple.root.default-qos": .default, "com.apple.root.utility-qos": .utility,
            "com.apple.root.background-qos": .background,
        ]
        return classes[queue.label]
    }

    /// The run did what the plan does not have; in a learner's code, at the line that did it.
    func drift(_ difference: String) {
        let site = isLearners ? CallSite.inExperiment() : nil
        context.timeline.modelOutOfDate(site.map { "\($0): \(difference)" } ?? difference)
    }
}
