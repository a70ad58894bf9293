// What the instrumented queues and operations report as they are added and started; the run's following of the plan.

import ExperimentModel
import Foundation

extension Lab {
    /// `queue.addOperation(operation)` (also each operation of `addOperations`, and a closure
    /// once wrapped). Returns false in a rehearsal: the queue holds it instead of adding it.
    public func adding(_ operation: Operation, to queue: OperationQueue) -> Bool {
        // An object added or started before is not a new planned operation: Foundation refuses
        // a second add (corelibs traps), and what it does is the experiment's to show.
        if lock.withLock({ registered[ObjectIdentifier(operation)] != nil }) { return mode == .running }
        if Lab.followingOn { return followingOn(operation, to: queue) }
        switch mode {
        case .rehearsing:
            rehearseAdding(operation, to: queue)
            return false
        case .running:
            followAdding(operation, to: queue)
            return true
        }
    }

    /// The rehearsal of an add: the operation's work is rehearsed and it becomes a planned operation
    /// of the queue (or is held, or named as unmodelled).
    private func rehearseAdding(_ operation: Operation, to queue: OperationQueue) {
        if Lab.holds({ Self.work(of: operation).forEach { $0() } }, handedOff: handOff(adding: operation, to: queue)) {
            return
        }
        if Lab.rehearsingQueuedMain || (isLearners && Lab.work != nil) {
            unmodelled(
                "addOperation inside an operation",
                why: "it adds when a queue runs that operation, at an instant the plan cannot tell")
        }
        let followOn = Self.rehearseFollowOn(of: operation)
        let works = Self.rehearseBlocks(
            ((operation as? ExecutesBlocks)?.executionBlocks ?? []).map { block in { block() } }, of: operation)
        let work = works.first ?? RecordedWork()
        // A BlockOperation's blocks are known now; another operation's `main()` and its
        // completion block are rehearsed later, once what it depends on has been (one
        // cancelled before it is added never runs its `main()`, only its completion block).
        let rehearsesMain =
            (Self.rehearsesMain(operation) || Self.isUndeclaredAsynchronous(operation)) && !operation.isCancelled
        let index: Int = lock.withLock {
            let queueIndex = queueIndex(queue)
            let label = operation.name ?? work.printed.first ?? "operation \(workload.operations.count + 1)"
            let index = addPlanned(operation, label: label, work: work, executor: .queue(queueIndex))
            addOutliving(of: operation, after: index)
            // Several blocks are rows of their own, as they run (in turn on the operation's
            // thread in corelibs, at once on Apple platforms): the first is the operation.
            let further = works.dropFirst().enumerated().map { offset, work in
                addPlanned(
                    operation, label: work.printed.first ?? "\(label) block \(offset + 2)", work: work,
                    executor: .executionBlock(of: index))
            }
            if rehearsesMain { pendingMains.append(index) }
            if let followOn { attribute(followOn, to: index) }
            register(
                operation,
                Workload.Registration(kind: .queued(queue: queueIndex), operations: [index] + further, completion: nil))
            return index
        }
        if !rehearsesMain {
            let (label, operations) = lock.withLock {
                (workload.operations[index].label, registered[ObjectIdentifier(operation)]?.operations ?? [])
            }
            planCompletion(of: operation, label: label, after: operations)
        }
    }

    /// The run's add: matched with the plan's next registration, or, handed off by an asynchronous
    /// operation, its own work outside the plan.
    private func followAdding(_ operation: Operation, to queue: OperationQueue) {
        if let handedOff = handOff() {
            // Work an asynchronous operation handed off: its own, not the plan's to follow.
            lock.withLock {
                startedWork(on: queue, completing: operation)
                handOffOperations[ObjectIdentifier(operation)] = handedOff
                registered[ObjectIdentifier(operation)] = Workload.Registration(
                    kind: .queued(queue: queueIndex(queue)), operations: [], completion: nil)
            }
            return
        }
        lock.withLock {
            let now = context.timeline.now()
            if enqueueStart == nil { enqueueStart = now }
            startedWork(on: queue, completing: operation)
            let queueIndex = queueIndex(queue)
            let followed = follow(
                operation, as: .queued(queue: queueIndex), queueName: plan?.queues[safe: queueIndex]?.name)
            if let index = followed?.operations.first { follows(asynchronous: operation, on: queue, as: index) }
        }
    }

    /// After an add returns: adding has lasted until now.
    public func added() {
        guard mode == .running, !Lab.followingOn else { return }
        lock.withLock { enqueueEnd = context.timeline.now() }
    }

    /// The experiment's own thread waits (for a queue, an operation, an instant) or its code
    /// returns: adding is over, and how long it took is recorded, once, before anything that
    /// may never return.
    public func waiting() {
        guard mode == .running else { return }
        let interval: (Double, Double)? = lock.withLock {
            guard !enqueueRecorded, let start = enqueueStart, let end = enqueueEnd else { return nil }
            enqueueRecorded = true
            return (start, end)
        }
        if let (start, end) = interval { context.timeline.enqueued(seconds: end - start) }
    }

    /// `operation.start()` of an instrumented operation (a BlockOperation, or an `Operation`
    /// whose work is its `main()`): in a rehearsal, only the experiment starts one (a queue
    /// holds what it is given), so it is planned as started on the experiment's thread, its
    /// blocks or its `main()` rehearsed, and it does not start: returns false. In a run, returns
    /// true (an object the experiment starts itself is matched with the plan first).
    public func starting(_ operation: Operation) -> Bool {
        // A start() of an object already added or started plans nothing more (see `adding`).
        if mode == .rehearsing, lock.withLock({ registered[ObjectIdentifier(operation)] != nil }) { return false }
        switch mode {
        case .rehearsing:
            // What it depends on has run, as it must have for a start by hand.
            rehearsePendingMains()
            let blockOperation = operation as? ExecutesBlocks
            // A cancelled operation's `start()` finishes it without running its work; one that
            // declares its work is not called.
            let declared = blockOperation == nil ? (operation as? ModelledOperation)?.modelledWork : nil
            let blocks: [() -> Void] =
                operation.isCancelled || declared != nil
                ? [{}]
                : blockOperation.map { $0.executionBlocks.map { block in { block() } } } ?? [{ operation.main() }]
            // Registered before its work is rehearsed: what the work adds comes after it, as in the run.
            let (label, indices): (String, [Int]) = lock.withLock {
                let label =
                    operation.name
                    ?? (blockOperation == nil ? "operation \(workload.operations.count + 1)" : "block operation")
                let indices = blocks.indices.map { offset in
                    addPlanned(
                        operation, label: blockOperation == nil ? label : "\(label) block \(offset + 1)",
                        work: RecordedWork(), executor: .blockOperationBlock)
                }
                register(operation, Workload.Registration(kind: .started, operations: indices, completion: nil))
                if operation.isCancelled {
                    indices.forEach { workload.cancel(.operation($0), atArticleSeconds: 0) }
                }
                return (label, indices)
            }
            for (index, block) in zip(indices, blocks) {
                let work = Self.rehearseBlocks([block], of: operation)[0]
                lock.withLock {
                    _ = fill(index, with: work, label: blockOperation == nil ? operation.name : nil)
                    if let declared { workload.operations[index].modelledWork = declared }
                }
            }
            planCompletion(of: operation, label: label, after: indices)
            threadRuns(indices)
            return false
        case .running:
            lock.withLock {
                if registered[ObjectIdentifier(operation)] == nil { follow(operation, as: .started, queueName: nil) }
                startedWork(on: nil, completing: operation)
            }
            threadRuns([])
            return true
        }
    }

    /// `start()` called by the experiment itself on one of the articles' operation classes that
    /// declares its work (``ModelledOperation``: an AsyncOperation started by hand), as its
    /// `main()` begins on the calling thread. In a rehearsal it plans the operation, started on
    /// the experiment's thread with the work its class declares, and returns nil: its work does
    /// not run there. In a run it returns the planned operation the object is. An object added to
    /// a queue or started before is not one: nil.
    package func startedByHand(_ operation: Operation) -> Int? {
        lock.withLock {
            guard registered[ObjectIdentifier(operation)] == nil else { return nil }
            switch mode {
            case .rehearsing:
                let label = operation.name ?? "operation \(workload.operations.count + 1)"
                let index = addPlanned(operation, label: label, work: RecordedWork(), executor: .blockOperationBlock)
                if let declared = (operation as? ModelledOperation)?.modelledWork {
                    workload.operations[index].modelledWork = declared
                }
                register(operation, Workload.Registration(kind: .started, operations: [index], completion: nil))
                return nil
            case .running:
                follow(operation, as: .started, queueName: nil)
                return registered[ObjectIdentifier(operation)]?.operations.first
            }
        }
    }

    /// `start()` of an `Operation` whose work is its `main()` (the Experiments module's): in a
    /// run, `start` (Foundation's, which calls `main()`) is the planned operation's timeline row,
    /// its sleeps compared with the plan; an operation that declares its work
    /// (``ModelledOperation``) records it itself, and a cancelled one starts only to finish.
    public func start(_ operation: Operation, _ start: () -> Void) {
        guard starting(operation) else { return }
        let index: Int? = lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)], registration.operations.count == 1 else {
                return nil
            }
            return registration.operations.first
        }
        guard let index, Self.rehearsesMain(operation), !operation.isCancelled else {
            if !runsHandedOff(operation, start) { start() }
            return
        }
        perform(index, cancelled: { operation.isCancelled }, start)
    }

    private func register(_ operation: Operation, _ registration: Workload.Registration) {
        registered[ObjectIdentifier(operation)] = registration
        registrations.append(registration)
    }

    /// Run: the next object is matched with the rehearsal's next registration; a different
    /// queue or kind is drift.
    @discardableResult
    func follow(_ operation: Operation?, as kind: Workload.Registration.Kind, queueName: String?) -> Workload
        .Registration?
    {
        guard let plan else { return nil }
        defer { nextRegistration += 1 }
        guard nextRegistration < planned.count else {
            if let operation {
                registered[ObjectIdentifier(operation)] = Workload.Registration(
                    kind: kind, operations: [], completion: nil)
            }
            drift("an operation\(queueName.map { " on '\($0)'" } ?? "") was \(kind.verb) that the plan does not have")
            return nil
        }
        let expected = planned[nextRegistration]
        if let operation { registered[ObjectIdentifier(operation)] = expected }
        if expected.kind != kind {
            let label = plan.operations[expected.operations[0]].label
            drift("'\(label)' was \(kind.phrase(plan)), the plan says it is \(expected.kind.phrase(plan))")
            return nil
        }
        return expected
    }

    /// The planned operation a block of `operation` is, in a run: the block's own when the
    /// operation was started, or queued with several blocks; nil when it was queued with one
    /// (the operation itself is the planned one, see ``plannedIndex(ofQueued:)``).
    package func plannedIndex(ofBlock block: Int, of operation: Operation) -> Int? {
        lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)] else { return nil }
            switch registration.kind {
            case .queued where registration.operations.count < 2: return nil
            case .queued, .started: return registration.operations[safe: block]
            case .dispatched, .task: return nil
            }
        }
    }

    /// The planned operation a queued operation is; nil for a BlockOperation of several
    /// blocks, whose blocks are planned each (``plannedIndex(ofBlock:of:)``).
    package func plannedIndex(ofQueued operation: Operation) -> Int? {
        lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)], case .queued = registration.kind,
                registration.operations.count == 1
            else { return nil }
            return registration.operations.first
        }
    }

    /// The planned operation an operation started by hand is, when it is one (not a
    /// BlockOperation of several blocks).
    package func plannedIndex(ofStarted operation: Operation) -> Int? {
        lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)], registration.kind == .started,
                registration.operations.count == 1
            else { return nil }
            return registration.operations.first
        }
    }

    /// The planned operation an operation's completion block is.
    package func plannedCompletion(of operation: Operation) -> Int? {
        lock.withLock { registered[ObjectIdentifier(operation)]?.completion }
    }

    /// Runs the planned operation `index`'s work as a timeline row, recording its sleeps, and
    /// compares them with the plan when it ends.
    public func perform(_ index: Int, cancelled: () -> Bool, _ body: () -> Void) {
        guard let plan, plan.operations.indices.contains(index) else { return body() }
        let planned = plan.operations[index]
        let work = RecordedWork()
        context.timeline.cancellableOperation(planned.label) {
            Lab.$work.withValue(work) { body() }
            return cancelled()
        }
        if planned.work == .blocking { compareSleeps(work.totalSeconds, with: planned, cancelled: cancelled) }
    }

    /// What a planned operation's work slept, against what the plan says it sleeps: a difference
    /// is drift. Work that stops at a cancel sleeps less than planned, as planned; `cancelled` is
    /// asked only of work that checks for one.
    func compareSleeps(_ slept: Double, with planned: PlannedOperation, cancelled: () -> Bool) {
        let expected = planned.articleSeconds * Double(planned.steps)
        if !(planned.checksCancellation && cancelled()), abs(slept - expected) > 1e-9 {
            drift("'\(planned.label)' slept \(Format.seconds(slept)), the plan says \(Format.seconds(expected))")
        }
    }

    /// The experiment's own thread waits until `articleSeconds`: in a rehearsal, the virtual clock moves.
    /// After it, the thread's instant is known again, whatever it waited for before (which the
    /// experiment's code has ended by then).
    func advance(toArticleSeconds articleSeconds: Double) {
        lock.withLock {
            if mode == .rehearsing {
                readCancels()
                virtualNow = max(virtualNow, articleSeconds)
            }
            waited = false
        }
    }

    /// An operation of a class that is not instrumented (a `Foundation.BlockOperation` added to
    /// an instrumented queue) does not report its `cancel()`; its `isCancelled` is read before
    /// the virtual clock moves (and at the end), so a cancel made between two sleeps is read at
    /// the instant it was made.
    func readCancels() {
        for registration in registrations {
            guard case .queued = registration.kind, let index = registration.operations.first,
                !cancelledOperations.contains(index), objects[index].isCancelled
            else { continue }
            cancelledOperations.insert(index)
            if waited {
                unmodelled.append(
                    UnmodelledConstruct(
                        construct: "'\(workload.operations[index].label)' cancelled", site: nil,
                        why: "after the experiment's thread waited, at an instant the plan cannot tell"
                    ))
            } else {
                workload.cancel(.operation(index), atArticleSeconds: virtualNow)
            }
        }
    }

    /// `operation.removeDependency(dependency)` in a rehearsal, where nothing has finished: read
}
