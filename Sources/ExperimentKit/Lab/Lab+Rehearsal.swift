// The rehearsal: running the experiment's code with nothing started, and reading the plan from the objects it builds.

import ExperimentModel
import Foundation

extension Lab {
    /// Runs `code` without starting anything and reads the plan from the objects it built.
    public static func rehearse(_ code: (RunContext) throws -> Void, parameters: Parameters, isLearners: Bool = false)
        -> Workload
    {
        let context = RunContext(
            timeScale: 1, timeline: Timeline(clock: MonotonicClock()), parameters: parameters, rehearsing: true)
        let lab = Lab(mode: .rehearsing, context: context, plan: nil, isLearners: isLearners)
        // A rehearsal that throws has still read what it built up to the throw; the run will
        // throw the same way and report it.
        open(lab) {
            try? code(context)
            lab.rehearsePendingMains()
        }
        lab.nameLoopsNothingCancels()
        return lab.lock.withLock {
            lab.readCancels()
            var workload = lab.resolvedWorkload()
            workload.registrations = lab.registrations
            workload.experimentThreadArticleSeconds = lab.virtualNow
            workload.unmodelled = lab.unmodelled
            return workload
        }
    }

    /// A work that loops until it is cancelled is planned step by step until its cancel; one
    /// that nothing cancels never ends, which the plan cannot hold: it is named, and planned as
    /// one step, so the run's watchdog comes soon.
    private func nameLoopsNothingCancels() {
        let endless: [(label: String, why: String)] = lock.withLock {
            readCancels()
            return loopingUntilCancelled.compactMap { index in
                let label = workload.operations[index].label
                guard workload.operations[index].articleSeconds > 0 else {
                    return (label, "it spins until it is cancelled, on CPU time the plan cannot tell")
                }
                let cancelled = workload.cancellations.contains {
                    switch $0.target {
                    case .operation(let target): return target == index
                    case .queue(let queue): return workload.operations[index].executor == .queue(queue)
                    }
                }
                guard !cancelled else { return nil }
                workload.operations[index].steps = 1
                return (
                    label,
                    "it loops until it is cancelled, and the code never cancels it: the plan cannot tell when it ends"
                )
            }
        }
        for (label, why) in endless {
            unmodelled("'\(label)'", why: why)
        }
    }

    /// Dependencies can name operations added later (a cycle), so they are resolved at the end.
    private func resolvedWorkload() -> Workload {
        var resolved = workload
        // A dependency on a BlockOperation of several blocks waits for all of them.
        var index: [ObjectIdentifier: [Int]] = [:]
        for registration in registrations {
            if case .queued = registration.kind, let object = registration.operations.first.map({ objects[$0] }) {
                index[ObjectIdentifier(object)] = registration.operations
            }
        }
        // A removal made after the add took the dependency off the object after it was read.
        func removed(from object: Operation) -> [ObjectIdentifier] {
            removals.filter { $0.dependent === object }.map { ObjectIdentifier($0.dependency) }
        }
        for (operation, identities) in dependencyIdentities.enumerated() where !identities.isEmpty {
            let gone = removed(from: objects[operation])
            resolved.operations[operation].dependencies += identities.filter { !gone.contains($0) }.flatMap {
                index[$0] ?? []
            }
        }
        for registration in registrations {
            guard case .queued = registration.kind, let first = registration.operations.first else { continue }
            resolved.operations[first].hasRemovedDependency = !removed(from: objects[first]).isEmpty
        }
        for registration in registrations {
            guard case .queued = registration.kind, let first = registration.operations.first,
                resolved.operations[first].cancelsOthersOfItsName
            else { continue }
            resolved.operations[first].cancelsWhenStarting = registrations.compactMap { other in
                guard other.kind == registration.kind, let index = other.operations.first, index != first,
                    objects[index].name == objects[first].name
                else { return nil }
                return index
            }
        }
        return resolved
    }

    /// `label`, or, when an operation of the plan already has it (alerts that share one
    /// `name`), `label #2`, `label #3`…: each planned operation is a row of its own.
    func unique(_ label: String) -> String {
        let taken = Set(workload.operations.map(\.label))
        guard taken.contains(label) else { return label }
        return (2...).lazy.map { "\(label) #\($0)" }.first { !taken.contains($0) }!
    }

    /// The plan's index of `queue`, reading its configuration the first time it is used.
    func queueIndex(_ queue: OperationQueue) -> Int {
        if let index = queueIndices[ObjectIdentifier(queue)] { return index }
        // A serial underlying DispatchQueue runs the operations one at a time, whatever the
        // queue's own width (it hands each one to that DispatchQueue as it starts it).
        let serialBelow =
            queue.underlyingQueue.map { underlying in serialQueues.contains { $0 === underlying } } ?? false
        let width = serialBelow ? 1 : queue.maxConcurrentOperationCount
        // corelibs names an unnamed queue after its address, which differs from run to run.
        let named = queue.name.flatMap { $0.hasPrefix("NSOperationQueue 0x") ? nil : $0 }
        // The main queue's operations run on the main thread, which in an article's run is the
        // experiment's own until the run ends: for the plan, that queue starts nothing. (A
        // learner's run goes on to run them, which its plan names as left out.)
        let heldByTheMainThread = !isLearners && queue === mainQueueStandIn
        let index = workload.addQueue(
            QueueSpec(
                name: named ?? "queue \(workload.queues.count + 1)",
                maxConcurrentOperationCount: width == OperationQueue.defaultMaxConcurrentOperationCount ? nil : width,
                startsSuspended: queue.isSuspended || heldByTheMainThread
            ))
        queueIndices[ObjectIdentifier(queue)] = index
        return index
    }

    /// Adds one planned operation read from `object`, with its rehearsed work; `calledFrom` is
    /// the stack that adds or starts it, the caller's unless given.
    func addPlanned(
        _ object: Operation, label: String, work: RecordedWork, executor: Executor, dependencies: [Int] = [],
        calledFrom: CallSite.Stack? = CallSite.Stack.capture()
    ) -> Int {
        let queued = if case .queue = executor { true } else { false }
        // An operation class that declares its work is taken at its word; a block's work is
        // what its rehearsal slept.
        let declared = queued ? (object as? ModelledOperation)?.modelledWork : nil
        // What the experiment's thread adds or starts waits for what it waited for.
        let byTheThread = queued || executor == .blockOperationBlock
        // What is added to a queue after its barrier waits for it (``addingBarrier(_:to:add:)``).
        var seen = Set<Int>()
        let waitsFor =
            dependencies + (byTheThread ? awaitedByTheThread : [])
            + (queued ? orderAfter(on: executor, barrier: false) : [])
        var planned = PlannedOperation(
            label: unique(label), executor: executor, dependencies: waitsFor.filter { seen.insert($0).inserted },
            modelledWork: declared ?? work.modelledWork
        )
        planned.addedAtArticleSeconds = virtualNow
        planned.calledFrom = calledFrom
        if queued {
            planned.serviceClass = ServiceClass(object.qualityOfService)
            // corelibs answers `.normal` when none was set and derives the queue's priority from
            // the QoS then; a priority set to `.normal` on purpose reads the same (and is taken
            // as unset).
            planned.queuePriority = object.queuePriority == .normal ? nil : object.queuePriority.rawValue
        }
        objects.append(object)
        dependencyIdentities.append(queued ? object.dependencies.map(ObjectIdentifier.init) : [])
        let index = workload.add(planned)
        if queued, object.isCancelled {
            // Cancelled before it was added: the model's cancel at the start.
            cancelledOperations.insert(index)
            workload.cancel(.operation(index), atArticleSeconds: 0)
        }
        attribute(work, to: index)
        return index
    }

    /// The work `object` declares it leaves running when it ends, as a planned row after `index`.
    func addOutliving(of object: Operation, after index: Int) {
        guard let outliving = (object as? ModelledOperation)?.modelledWork.outliving else { return }
        let row = addPlanned(
            object, label: outliving.label, work: RecordedWork(), executor: .globalQueue(.default),
            dependencies: [index], calledFrom: workload.operations[index].calledFrom
        )
        workload.operations[row].articleSeconds = outliving.articleSeconds
        workload.operations[row].work = outliving.work
    }

    /// Calls each block once with `sleep` recording, to learn what it prints and how long it
    /// sleeps; the blocks are `owner`'s work, whose looks at its own `isCancelled` are recorded.
    static func rehearseBlocks(_ blocks: [() -> Void], of owner: Operation? = nil) -> [RecordedWork] {
        blocks.map { block in
            let work = RecordedWork(owner: owner)
            Lab.$work.withValue(work) { block() }
            return work
        }
    }

    /// What the experiment's thread waited for so far, and its last sleep after a wait: nothing
    /// it adds now can start before them.
    var awaitedByTheThread: [Int] {
        awaited + (lastSegment.map { [$0] } ?? [])
    }

    /// Whether the rehearsal learns `operation`'s work by calling its `main()`: an operation of
    /// the Experiments module's instrumented `Operation` that is synchronous (its work is its
    /// `main()`) and does not declare its work.
    static func rehearsesMain(_ operation: Operation) -> Bool {
        isUndeclaredSubclass(operation) && !operation.isAsynchronous
    }

    /// An operation of the Experiments module's instrumented `Operation` (not a BlockOperation)
    /// that does not declare its work.
    static func isUndeclaredSubclass(_ operation: Operation) -> Bool {
        operation is ReportsToLab && !(operation is ExecutesBlocks) && !(operation is ModelledOperation)
    }

    /// The completion block the plan may have as an operation of its own: an instrumented
    /// operation's, unless its class hands its result on (``FollowOnCompletion``).
    private static func completionToPlan(of operation: Operation) -> (() -> Void)? {
        guard operation is ReportsToLab, !(operation is FollowOnCompletion) else { return nil }
        return operation.completionBlock
    }

    /// The completion block of `operation`, rehearsed, as a planned operation that the default
    /// global queue runs after `after`, when it prints or sleeps: one that does neither (it hands
    /// a result on, it leaves a group) takes no time and shows nothing, and is left out.
    func planCompletion(of operation: Operation, label: String, after: [Int]) {
        guard let block = Self.completionToPlan(of: operation) else { return }
        let work = Self.rehearseBlocks([block])[0]
        if isLearners, work.totalSeconds > 0 {
            let site = lock.withLock { completionSites[ObjectIdentifier(operation)] }
            unmodelled(
                "a completionBlock that sleeps",
                why:
                    "on Linux a wait for its operation or queue returns before it ends, which the model does not plan yet",
                site: site)
        }
        guard !work.printed.isEmpty || work.totalSeconds > 0 else {
            // Its signals and leaves come as the operation ends.
            return lock.withLock { after.last.map { attribute(work, to: $0) } ?? () }
        }
        lock.withLock {
            let completion = addPlanned(
                operation, label: work.printed.first ?? "\(label): completion", work: work,
                executor: .globalQueue(.default), dependencies: after,
                calledFrom: after.first.flatMap { workload.operations[$0].calledFrom }
            )
            // It comes when its operation ends, whatever the experiment's thread did meanwhile.
            workload.operations[completion].addedAtArticleSeconds =
                after.first.map { workload.operations[$0].addedAtArticleSeconds } ?? 0
            registered[ObjectIdentifier(operation)]?.completion = completion
            if let position = registrations.firstIndex(where: { $0.operations == after }) {
                registrations[position].completion = completion
            }
        }
    }

    /// Rehearses the `main()`s and completion blocks still pending (``pendingMains``), each
    /// after those of its pending dependencies, and writes what they did into their planned
    /// operations. The code they call may add to queues, so the lock is not held meanwhile.
    func rehearsePendingMains() {
        while let index = lock.withLock({ nextPendingMain() }) {
            let operation = lock.withLock { objects[index] }
            guard !Self.isUndeclaredAsynchronous(operation) else {
                let label = rehearseAsynchronousStart(of: operation, planned: index)
                planCompletion(of: operation, label: label, after: [index])
                continue
            }
            // What it adds to a queue, it adds when a queue runs it: at an instant the plan
            // does not have, and in another order than the experiment's thread adds.
            let work = Lab.$rehearsingQueuedMain.withValue(true) {
                Self.rehearseBlocks([{ operation.main() }], of: operation)[0]
            }
            let label = lock.withLock { fill(index, with: work, label: operation.name) }
            planCompletion(of: operation, label: label, after: [index])
        }
    }

    /// True while a queued operation's `main()` is rehearsed.
    @TaskLocal static var rehearsingQueuedMain = false

    /// Writes what `work` did into the planned operation `index` (its label the first line it
    /// printed, unless `label` is given), and returns the label.
    func fill(_ index: Int, with work: RecordedWork, label: String?) -> String {
        if let label = label ?? work.printed.first, label != workload.operations[index].label {
            workload.operations[index].label = unique(label)
        }
        workload.operations[index].modelledWork = work.modelledWork
        attribute(work, to: index)
        if work.loopsUntilCancelled { loopingUntilCancelled.append(index) }
        return workload.operations[index].label
    }

    /// The first pending `main()` none of whose dependencies is pending itself; taken off the list.
    private func nextPendingMain() -> Int? {
        guard !pendingMains.isEmpty else { return nil }
        let pending = Set(pendingMains.map { ObjectIdentifier(objects[$0]) })
        let position =
            pendingMains.firstIndex { !objects[$0].dependencies.contains { pending.contains(ObjectIdentifier($0)) } }
            ?? 0
        return pendingMains.remove(at: position)
    }
}
