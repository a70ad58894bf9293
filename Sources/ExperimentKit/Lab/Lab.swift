import Foundation
import Synchronization
import ExperimentModel

/// Reads an experiment's plan from the real Foundation objects its code builds, and watches the
/// real run for anything the plan did not foresee.
///
/// ## Why a rehearsal
/// An experiment's file holds the article's code: it makes an `OperationQueue`, sets
/// `maxConcurrentOperationCount`, adds closures that `print` and `sleep`, and waits. The model
/// needs a plan of that code before anything starts, and the plan must not be written a second
/// time beside it. Foundation's objects can tell most of it: a queue's width, name, QoS and
/// whether it is suspended; an operation's dependencies, queue priority, QoS, name, and which
/// queue it went to. What no object can tell is how long its work takes. So the lab runs the
/// experiment's code twice:
///
/// 1. **Rehearsal** (``rehearse(_:parameters:isLearners:)``): the code runs with the queues *holding* what
///    is added (nothing starts; waits return at once; nothing runs on Dispatch) and with `sleep`
///    recording instead of waiting. Each operation's work is called once, so its `print`s name
///    it and its `sleep`s time it: a BlockOperation's blocks as it is added, an `Operation`
///    subclass's `main()` at the experiment's next wait (after its dependencies'), a block sent
///    to a global queue as it is sent; the objects are read then and there. The experiment's
///    own thread's `sleep`s before its first wait, and `context.sleep(untilArticleSeconds:)`,
///    advance a virtual clock, so a `cancel()`, `cancelAllOperations()` or `isSuspended`
///    change made at 0.5 s is read as made at 0.5 s, and what is added then is added then; a
///    wait makes what the thread does next follow what it waits for. What the plan cannot
///    contain is named (`Workload.unmodelled`). The result is the `Workload` the model
///    predicts from.
/// 2. **Run** (``run(_:context:plan:isLearners:)``): the same code, for real, with the same instrumented
///    types. Every operation added is matched with the plan in order; every block's recorded
///    sleeps are compared with the plan's. A difference is recorded at once as a
///    ``TimelineEvent/modelOutOfDate(_:)`` line, and the verdict fails on it as its own reason.
///
/// The other design, a protocol each operation class adopts to declare its duration, would
/// state a closure's `sleep(2)` a second time; the rehearsal reads it from the closure itself.
/// The protocol serves the operation classes whose work cannot be rehearsed by calling it
/// (asynchronous work, timers): ``ModelledOperation``.
///
/// The instrumented types live in the Experiments module (`Experiments/Lab/ArticleFoundation.swift`):
/// `OperationQueue`, `Operation` and `BlockOperation` subclass Foundation's and report to
/// ``current``; `DispatchQueue`, `DispatchGroup`, `DispatchSemaphore`, `print`, `sleep` and
/// `Thread.sleep` shadow the originals there. Outside a lab session they behave exactly as
/// the originals.
///
/// One session is open at a time in a process (each experiment runs in its own child; tests
/// that rehearse in-process wait for one another). While one is open, every instrumented object
/// in the process reports to it.
///
/// `@unchecked Sendable`: every stored property that changes is read and written only while
/// `lock` is held; `mode`, `context`, `plan` and `planned` are constants.
public final class Lab: @unchecked Sendable {
    /// What a session does with the code it runs.
    public enum Mode: Sendable {
        /// Nothing starts, `sleep` records instead of waiting, and the objects are read.
        case rehearsing
        /// The code runs for real and is compared with the plan.
        case running
    }

    /// The session of this process, if one is open; the instrumented types report to it.
    public static var current: Lab? {
        session.withLock { $0 }
    }

    private static let session = Mutex<Lab?>(nil)
    /// One session at a time in a process (tests rehearse experiments in-process).
    private static let exclusive = NSLock()

    public let mode: Mode
    /// The context handed to the experiment's code.
    public let context: RunContext
    /// Whether the code is a learner's own experiment (``Experiment/isLearners``): there, what
    /// the rehearsal does not positively model is named (an add or a wait inside an operation,
    /// `OperationQueue.current`, a completion block that sleeps), and the run waits for the
    /// work the code started before it ends. An article's experiment is written with its model,
    /// which its own checks keep.
    public let isLearners: Bool
    let plan: Workload?
    let lock = NSLock()

    // Rehearsal: what the code built, in the order it was added or started.
    var workload = Workload()
    private var queueIndices: [ObjectIdentifier: Int] = [:]
    /// Operations are kept alive so their identifiers stay unique until the plan is read.
    private var objects: [Operation] = []
    private var dependencyIdentities: [[ObjectIdentifier]] = []
    private var virtualNow = 0.0
    /// Operations the experiment's own thread waited for: nothing added after the wait can start before them.
    private var awaited: [Int] = []
    /// Planned operations whose cancel the rehearsal has read.
    private var cancelledOperations: Set<Int> = []
    /// DispatchQueues the code made serial (see ``madeSerial(_:)``), kept alive with the session.
    private var serialQueues: [DispatchQueue] = []
    /// Dependencies the code removed (`removeDependency(_:)`), both objects kept alive so their
    /// identifiers stay unique until the plan is read.
    private var removals: [(dependent: Operation, dependency: Operation)] = []
    /// Queued operations whose `main()` (and completion block) are still to be rehearsed: at
    /// the experiment's next wait, or its end, once what they depend on has been (so a
    /// dependent finds what its dependencies made, as in the run).
    private var pendingMains: [Int] = []
    /// The last sleep of the experiment's own thread planned as an operation (after a wait).
    private var lastSegment: Int?
    /// Planned operations whose work loops until it is cancelled (see
    /// ``RecordedWork/loopsUntilCancelled``): each needs a cancel, or the plan cannot end it.
    private var loopingUntilCancelled: [Int] = []
    /// What the code does that the plan cannot contain.
    private var unmodelled: [UnmodelledConstruct] = []
    // Run, in a learner's code: its asynchronous operations, and the operations work they handed
    // off added to queues (see ``handOff()``).
    var asynchronousRows: [AsynchronousRow] = []
    var handOffOperations: [ObjectIdentifier: HandedOff] = [:]
    /// Where a learner's code set each operation's completion block (see ``settingCompletion(of:)``).
    private var completionSites: [ObjectIdentifier: String] = [:]
    /// `OperationQueue.main` as the code gets it (``mainQueue(_:)``).
    private var mainQueueStandIn: OperationQueue?
    // Run, in a learner's code: the queues it added to, the operations whose completion blocks
    // have not ended, and a group every block it handed to Dispatch is in until it ends.
    private var queuesUsed: [OperationQueue] = []
    private var pendingCompletions: Set<ObjectIdentifier> = []
    private let unfinished = DispatchGroup()
    // Both: the experiment's own thread, and whether it has waited since its instant was last
    // known (``advance(toArticleSeconds:)`` makes it known again).
    var experimentThread: ObjectIdentifier?
    private var waited = false
    // Run: how many of the plan's sleeps of the experiment's thread the run has made.
    private var segmentsFollowed = 0
    // Both: which planned operations an object became, in the order objects were registered.
    private var registered: [ObjectIdentifier: Workload.Registration] = [:]
    private var registrations: [Workload.Registration] = []
    // Run: the cursor into the rehearsal's registrations, and when adding began and ended.
    private var nextRegistration = 0
    private var enqueueStart: Double?
    private var enqueueEnd: Double?
    private var enqueueRecorded = false

    private init(mode: Mode, context: RunContext, plan: Workload?, isLearners: Bool) {
        self.mode = mode
        self.context = context
        self.plan = plan
        self.isLearners = isLearners
        self.planned = plan?.registrations ?? []
    }

    /// The rehearsal's registrations, which a run follows.
    private let planned: [Workload.Registration]

    /// Runs `body` while no session is open in this process and none can open, so the
    /// instrumented types in it behave as Foundation's own: a session opened meanwhile by
    /// other code of the process (a test rehearsing in parallel) would hold what `body` adds.
    package static func withNoSessionOpen<T>(_ body: () throws -> T) rethrows -> T {
        exclusive.lock()
        defer { exclusive.unlock() }
        return try body()
    }

    private static func open<T>(_ lab: Lab, _ body: () throws -> T) rethrows -> T {
        exclusive.lock()
        lab.lock.withLock { lab.experimentThread = ObjectIdentifier(Thread.current) }
        session.withLock { $0 = lab }
        defer {
            session.withLock { $0 = nil }
            exclusive.unlock()
        }
        return try body()
    }

    // MARK: Rehearsal

    /// Runs `code` without starting anything and reads the plan from the objects it built.
    public static func rehearse(_ code: (RunContext) throws -> Void, parameters: Parameters, isLearners: Bool = false) -> Workload {
        let context = RunContext(timeScale: 1, timeline: Timeline(clock: MonotonicClock()), parameters: parameters, rehearsing: true)
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
                return (label, "it loops until it is cancelled, and the code never cancels it: the plan cannot tell when it ends")
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
            resolved.operations[operation].dependencies += identities.filter { !gone.contains($0) }.flatMap { index[$0] ?? [] }
        }
        for registration in registrations {
            guard case .queued = registration.kind, let first = registration.operations.first else { continue }
            resolved.operations[first].hasRemovedDependency = !removed(from: objects[first]).isEmpty
        }
        for registration in registrations {
            guard case .queued = registration.kind, let first = registration.operations.first,
                  resolved.operations[first].cancelsOthersOfItsName else { continue }
            resolved.operations[first].cancelsWhenStarting = registrations.compactMap { other in
                guard other.kind == registration.kind, let index = other.operations.first, index != first,
                      objects[index].name == objects[first].name else { return nil }
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
    private func queueIndex(_ queue: OperationQueue) -> Int {
        if let index = queueIndices[ObjectIdentifier(queue)] { return index }
        // A serial underlying DispatchQueue runs the operations one at a time, whatever the
        // queue's own width (it hands each one to that DispatchQueue as it starts it).
        let serialBelow = queue.underlyingQueue.map { underlying in serialQueues.contains { $0 === underlying } } ?? false
        let width = serialBelow ? 1 : queue.maxConcurrentOperationCount
        // corelibs names an unnamed queue after its address, which differs from run to run.
        let named = queue.name.flatMap { $0.hasPrefix("NSOperationQueue 0x") ? nil : $0 }
        // The main queue's operations run on the main thread, which in an article's run is the
        // experiment's own until the run ends: for the plan, that queue starts nothing. (A
        // learner's run goes on to run them, which its plan names as left out.)
        let heldByTheMainThread = !isLearners && queue === mainQueueStandIn
        let index = workload.addQueue(QueueSpec(
            name: named ?? "queue \(workload.queues.count + 1)",
            maxConcurrentOperationCount: width == OperationQueue.defaultMaxConcurrentOperationCount ? nil : width,
            startsSuspended: queue.isSuspended || heldByTheMainThread
        ))
        queueIndices[ObjectIdentifier(queue)] = index
        return index
    }

    /// Adds one planned operation read from `object`, with its rehearsed work; `calledFrom` is
    /// the stack that adds or starts it, the caller's unless given.
    private func addPlanned(
        _ object: Operation, label: String, work: RecordedWork, executor: Executor, dependencies: [Int] = [],
        calledFrom: CallSite.Stack? = CallSite.Stack.capture()
    ) -> Int {
        let queued = if case .queue = executor { true } else { false }
        // An operation class that declares its work is taken at its word; a block's work is
        // what its rehearsal slept.
        let declared = queued ? (object as? ModelledOperation)?.modelledWork : nil
        // What the experiment's thread adds or starts waits for what it waited for.
        let byTheThread = queued || executor == .blockOperationBlock
        var planned = PlannedOperation(
            label: unique(label), executor: executor, dependencies: dependencies + (byTheThread ? awaitedByTheThread : []),
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
    private func addOutliving(of object: Operation, after index: Int) {
        guard let outliving = (object as? ModelledOperation)?.modelledWork.outliving else { return }
        let row = addPlanned(
            object, label: outliving.label, work: RecordedWork(), executor: .globalQueue(.default), dependencies: [index], calledFrom: workload.operations[index].calledFrom
        )
        workload.operations[row].articleSeconds = outliving.articleSeconds
        workload.operations[row].work = outliving.work
    }

    /// Calls each block once with `sleep` recording, to learn what it prints and how long it
    /// sleeps; the blocks are `owner`'s work, whose looks at its own `isCancelled` are recorded.
    private static func rehearseBlocks(_ blocks: [() -> Void], of owner: Operation? = nil) -> [RecordedWork] {
        blocks.map { block in
            let work = RecordedWork(owner: owner)
            Lab.$work.withValue(work) { block() }
            return work
        }
    }

    /// What the experiment's thread waited for so far, and its last sleep after a wait: nothing
    /// it adds now can start before them.
    private var awaitedByTheThread: [Int] {
        awaited + (lastSegment.map { [$0] } ?? [])
    }

    /// Whether the rehearsal learns `operation`'s work by calling its `main()`: an operation of
    /// the Experiments module's instrumented `Operation` that is synchronous (its work is its
    /// `main()`) and does not declare its work.
    private static func rehearsesMain(_ operation: Operation) -> Bool {
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
    private func planCompletion(of operation: Operation, label: String, after: [Int]) {
        guard let block = Self.completionToPlan(of: operation) else { return }
        let work = Self.rehearseBlocks([block])[0]
        if isLearners, work.totalSeconds > 0 {
            let site = lock.withLock { completionSites[ObjectIdentifier(operation)] }
            unmodelled("a completionBlock that sleeps", why: "on Linux a wait for its operation or queue returns before it ends, which the model does not plan yet", site: site)
        }
        guard !work.printed.isEmpty || work.totalSeconds > 0 else {
            // Its signals and leaves come as the operation ends.
            return lock.withLock { after.last.map { attribute(work, to: $0) } ?? () }
        }
        lock.withLock {
            let completion = addPlanned(
                operation, label: work.printed.first ?? "\(label): completion", work: work, executor: .globalQueue(.default), dependencies: after,
                calledFrom: after.first.flatMap { workload.operations[$0].calledFrom }
            )
            // It comes when its operation ends, whatever the experiment's thread did meanwhile.
            workload.operations[completion].addedAtArticleSeconds = after.first.map { workload.operations[$0].addedAtArticleSeconds } ?? 0
            registered[ObjectIdentifier(operation)]?.completion = completion
            if let position = registrations.firstIndex(where: { $0.operations == after }) { registrations[position].completion = completion }
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
            let work = Lab.$rehearsingQueuedMain.withValue(true) { Self.rehearseBlocks([{ operation.main() }], of: operation)[0] }
            let label = lock.withLock { fill(index, with: work, label: operation.name) }
            planCompletion(of: operation, label: label, after: [index])
        }
    }

    /// True while a queued operation's `main()` is rehearsed.
    @TaskLocal static var rehearsingQueuedMain = false

    /// Writes what `work` did into the planned operation `index` (its label the first line it
    /// printed, unless `label` is given), and returns the label.
    private func fill(_ index: Int, with work: RecordedWork, label: String?) -> String {
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
        let position = pendingMains.firstIndex { !objects[$0].dependencies.contains { pending.contains(ObjectIdentifier($0)) } } ?? 0
        return pendingMains.remove(at: position)
    }

    // MARK: What the instrumented types report

    /// `queue.addOperation(operation)` (also each operation of `addOperations`, and a closure
    /// once wrapped). Returns false in a rehearsal: the queue holds it instead of adding it.
    public func adding(_ operation: Operation, to queue: OperationQueue) -> Bool {
        // An object added or started before is not a new planned operation: Foundation refuses
        // a second add (corelibs traps), and what it does is the experiment's to show.
        if lock.withLock({ registered[ObjectIdentifier(operation)] != nil }) { return mode == .running }
        if Lab.followingOn { return followingOn(operation, to: queue) }
        switch mode {
        case .rehearsing:
            if Lab.holds({ Self.work(of: operation).forEach { $0() } }, handedOff: handOff(adding: operation, to: queue)) {
                return false
            }
            if Lab.rehearsingQueuedMain || (isLearners && Lab.work != nil) {
                unmodelled("addOperation inside an operation", why: "it adds when a queue runs that operation, at an instant the plan cannot tell")
            }
            let followOn = Self.rehearseFollowOn(of: operation)
            let works = Self.rehearseBlocks(((operation as? ExecutesBlocks)?.executionBlocks ?? []).map { block in { block() } }, of: operation)
            let work = works.first ?? RecordedWork()
            // A BlockOperation's blocks are known now; another operation's `main()` and its
            // completion block are rehearsed later, once what it depends on has been (one
            // cancelled before it is added never runs its `main()`, only its completion block).
            let rehearsesMain = (Self.rehearsesMain(operation) || Self.isUndeclaredAsynchronous(operation)) && !operation.isCancelled
            let index: Int = lock.withLock {
                let queueIndex = queueIndex(queue)
                let label = operation.name ?? work.printed.first ?? "operation \(workload.operations.count + 1)"
                let index = addPlanned(operation, label: label, work: work, executor: .queue(queueIndex))
                addOutliving(of: operation, after: index)
                // Several blocks are rows of their own, as they run (in turn on the operation's
                // thread in corelibs, at once on Apple platforms): the first is the operation.
                let further = works.dropFirst().enumerated().map { offset, work in
                    addPlanned(operation, label: work.printed.first ?? "\(label) block \(offset + 2)", work: work, executor: .executionBlock(of: index))
                }
                if rehearsesMain { pendingMains.append(index) }
                if let followOn { attribute(followOn, to: index) }
                register(operation, Workload.Registration(kind: .queued(queue: queueIndex), operations: [index] + further, completion: nil))
                return index
            }
            if !rehearsesMain {
                let (label, operations) = lock.withLock { (workload.operations[index].label, registered[ObjectIdentifier(operation)]?.operations ?? []) }
                planCompletion(of: operation, label: label, after: operations)
            }
            return false
        case .running:
            if let handedOff = handOff() {
                // Work an asynchronous operation handed off: its own, not the plan's to follow.
                lock.withLock {
                    startedWork(on: queue, completing: operation)
                    handOffOperations[ObjectIdentifier(operation)] = handedOff
                    registered[ObjectIdentifier(operation)] = Workload.Registration(kind: .queued(queue: queueIndex(queue)), operations: [], completion: nil)
                }
                return true
            }
            lock.withLock {
                let now = context.timeline.now()
                if enqueueStart == nil { enqueueStart = now }
                startedWork(on: queue, completing: operation)
                let queueIndex = queueIndex(queue)
                let followed = follow(operation, as: .queued(queue: queueIndex), queueName: plan?.queues[safe: queueIndex]?.name)
                if let index = followed?.operations.first { follows(asynchronous: operation, on: queue, as: index) }
            }
            return true
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
            let blocks: [() -> Void] = operation.isCancelled || declared != nil ? [{}] : blockOperation.map { $0.executionBlocks.map { block in { block() } } } ?? [{ operation.main() }]
            // Registered before its work is rehearsed: what the work adds comes after it, as in the run.
            let (label, indices): (String, [Int]) = lock.withLock {
                let label = operation.name ?? (blockOperation == nil ? "operation \(workload.operations.count + 1)" : "block operation")
                let indices = blocks.indices.map { offset in
                    addPlanned(operation, label: blockOperation == nil ? label : "\(label) block \(offset + 1)", work: RecordedWork(), executor: .blockOperationBlock)
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
    public func startedByHand(_ operation: Operation) -> Int? {
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
            guard let registration = registered[ObjectIdentifier(operation)], registration.operations.count == 1 else { return nil }
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
    private func follow(_ operation: Operation?, as kind: Workload.Registration.Kind, queueName: String?) -> Workload.Registration? {
        guard let plan else { return nil }
        defer { nextRegistration += 1 }
        guard nextRegistration < planned.count else {
            if let operation { registered[ObjectIdentifier(operation)] = Workload.Registration(kind: kind, operations: [], completion: nil) }
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
    public func plannedIndex(ofBlock block: Int, of operation: Operation) -> Int? {
        lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)] else { return nil }
            switch registration.kind {
            case .queued where registration.operations.count < 2: return nil
            case .queued, .started: return registration.operations[safe: block]
            case .dispatched: return nil
            }
        }
    }

    /// The planned operation a queued operation is; nil for a BlockOperation of several
    /// blocks, whose blocks are planned each (``plannedIndex(ofBlock:of:)``).
    public func plannedIndex(ofQueued operation: Operation) -> Int? {
        lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)], case .queued = registration.kind,
                  registration.operations.count == 1 else { return nil }
            return registration.operations.first
        }
    }

    /// The planned operation an operation started by hand is, when it is one (not a
    /// BlockOperation of several blocks).
    public func plannedIndex(ofStarted operation: Operation) -> Int? {
        lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)], registration.kind == .started,
                  registration.operations.count == 1 else { return nil }
            return registration.operations.first
        }
    }

    /// The planned operation an operation's completion block is.
    public func plannedCompletion(of operation: Operation) -> Int? {
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
    private func readCancels() {
        for registration in registrations {
            guard case .queued = registration.kind, let index = registration.operations.first,
                  !cancelledOperations.contains(index), objects[index].isCancelled else { continue }
            cancelledOperations.insert(index)
            if waited {
                unmodelled.append(UnmodelledConstruct(
                    construct: "'\(workload.operations[index].label)' cancelled", site: nil,
                    why: "after the experiment's thread waited, at an instant the plan cannot tell"
                ))
            } else {
                workload.cancel(.operation(index), atArticleSeconds: virtualNow)
            }
        }
    }

    /// `operation.removeDependency(dependency)` in a rehearsal, where nothing has finished: read
    /// as a dependency removed before it finished (`PlannedOperation.hasRemovedDependency`).
    public func removingDependency(_ dependency: Operation, of operation: Operation) {
        guard mode == .rehearsing, operation.dependencies.contains(where: { $0 === dependency }) else { return }
        lock.withLock { removals.append((operation, dependency)) }
    }

    /// The code made `queue` serial (`DispatchQueue(label:)`, Dispatch's default): a DispatchQueue
    /// cannot be asked whether it is, so an OperationQueue's `underlyingQueue` is read as serial
    /// when it is one of these.
    public func madeSerial(_ queue: DispatchQueue) {
        lock.withLock { serialQueues.append(queue) }
    }

    /// `queue.isSuspended = value` (after its first add: before, it is read as the queue's start).
    public func settingSuspended(_ value: Bool, on queue: OperationQueue) {
        rehearsing("isSuspended = \(value)", on: queue) { workload.setSuspended(value, queue: $0, atArticleSeconds: virtualNow) }
    }

    /// `operation.cancel()` after it was added or started (before, it is read as cancelled at the start).
    public func cancelling(_ operation: Operation) {
        guard mode == .rehearsing else { return }
        let index: Int? = lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)], case .queued = registration.kind,
                  cancelledOperations.insert(registration.operations[0]).inserted else { return nil }
            return registration.operations[0]
        }
        guard let index, timedByTheThread("cancel()") else { return }
        lock.withLock { workload.cancel(.operation(index), atArticleSeconds: virtualNow) }
    }

    /// `queue.cancelAllOperations()`.
    public func cancellingAll(on queue: OperationQueue) {
        rehearsing("cancelAllOperations()", on: queue) { workload.cancel(.queue($0), atArticleSeconds: virtualNow) }
    }

    /// In a rehearsal, `call` on a queue the plan has: `record` plans it, given the queue's index,
    /// under `lock`, where its instant is known (``timedByTheThread(_:)``); elsewhere it is named.
    private func rehearsing(_ call: String, on queue: OperationQueue, _ record: (Int) -> Void) {
        guard mode == .rehearsing, lock.withLock({ queueIndices[ObjectIdentifier(queue)] != nil }),
              timedByTheThread(call) else { return }
        lock.withLock {
            guard let index = queueIndices[ObjectIdentifier(queue)] else { return }
            record(index)
        }
    }

    /// Code is about to wait for `queue`'s operations: returns true when it should not (a
    /// rehearsal, where nothing runs). See ``skipsWaiting(for:)-(Operation)``.
    public func skipsWaiting(forQueue queue: OperationQueue) -> Bool {
        if isLearners, queue === lock.withLock({ mainQueueStandIn }) {
            return skipsWaiting("OperationQueue.main.waitUntilAllOperationsAreFinished()") {
                .failure(Unplannable(why: "the main thread waits for work only the main thread runs: it never returns, as in plain Foundation (the article: never do this on the main queue)"))
            }
        }
        return skipsWaiting("waitUntilAllOperationsAreFinished()") {
            guard let index = queueIndices[ObjectIdentifier(queue)] else { return .success([]) }
            return .success(registrations.filter { $0.kind == .queued(queue: index) }.flatMap(\.operations))
        }
    }

    /// Code is about to wait for `operation`: returns true when it should not (a rehearsal, where
    /// nothing runs). On the experiment's own thread, what it adds or sleeps afterwards follows
    /// the operation's end; in a run, adding is over (see ``waiting()``).
    public func skipsWaiting(for operation: Operation) -> Bool {
        skipsWaiting(for: [operation])
    }

    /// Code is about to wait for `operations` (none: for work the plan has no operation for).
    public func skipsWaiting(for operations: [Operation]) -> Bool {
        skipsWaiting("waitUntilFinished()") { .success(operations.flatMap { registered[ObjectIdentifier($0)]?.operations ?? [] }) }
    }

    /// The experiment's own thread waits (in `construct`) for what `awaited` finds, or for what
    /// the plan cannot tell, which is then named (the failure's reason).
    private func skipsWaiting(_ construct: String, _ awaited: () -> Result<[Int], Unplannable>) -> Bool {
        guard isExperimentThread else {
            if mode == .rehearsing, isLearners, Lab.work != nil {
                unmodelled("\(construct) inside an operation", why: "the operation's thread waits for other work, which the model does not plan yet")
            }
            return mode == .rehearsing
        }
        waiting()
        guard mode == .rehearsing else {
            lock.withLock { waited = true }
            return false
        }
        rehearsePendingMains()
        let found = lock.withLock {
            waited = true
            return awaited()
        }
        switch found {
        case .success(let operations): lock.withLock { self.awaited += operations }
        case .failure(let unplannable): unmodelled(construct, why: unplannable.why)
        }
        return true
    }

    /// Why the plan cannot contain something the code does.
    struct Unplannable: Error {
        var why: String
    }

    /// The experiment's thread starts an operation by hand: `start()` returns when its work has
    /// ended, so what the thread does next follows it, as after a wait.
    private func threadRuns(_ operations: [Int]) {
        guard isExperimentThread else { return }
        lock.withLock {
            waited = true
            awaited += operations
        }
    }

    /// Whether the caller is the experiment's own thread, outside any operation's work.
    var isExperimentThread: Bool {
        Lab.work == nil && lock.withLock { experimentThread == ObjectIdentifier(Thread.current) }
    }

    /// Records what the code does that the plan cannot contain, with the line that does it. In
    /// a run, nothing: the stack is read only in a rehearsal, where no time is measured.
    public func unmodelled(_ construct: String, why: String) {
        guard mode == .rehearsing else { return }
        unmodelled(construct, why: why, site: CallSite.inExperiment())
    }

    /// ``unmodelled(_:why:)`` at a line read before.
    func unmodelled(_ construct: String, why: String, site: String?) {
        lock.withLock { unmodelled.append(UnmodelledConstruct(construct: construct, site: site, why: why)) }
    }

    /// `OperationQueue.current`, which `read` gives. Read inside an operation's work in a
    /// rehearsal of a learner's code, it is named, and nil: the rehearsal runs the work on no
    /// queue, so what the code does with the queue it finds (an add) the plan does not hold.
    public static func readingCurrentQueue(_ read: () -> OperationQueue?) -> OperationQueue? {
        if let lab = current, lab.mode == .rehearsing, lab.isLearners, work != nil {
            lab.unmodelled("OperationQueue.current inside an operation", why: "the rehearsal runs an operation on no queue, so what the code does with the queue it finds the model does not plan yet")
            return nil
        }
        // Foundation's answer on the main thread is `OperationQueue.main`: read so, it is not the code's use of it.
        return $readingCurrent.withValue(true, operation: read)
    }

    @TaskLocal private static var readingCurrent = false

    /// An operation's `completionBlock` is set: in a rehearsal of a learner's code, the line is
    /// kept, to name the block there if it sleeps (`planCompletion(of:label:after:)`).
    public func settingCompletion(of operation: Operation) {
        guard mode == .rehearsing, isLearners, let site = CallSite.inExperiment() else { return }
        lock.withLock { completionSites[ObjectIdentifier(operation)] = site }
    }

    /// A cancel or a suspension the experiment's thread makes after a wait comes at an instant
    /// the rehearsal cannot know (the wait's end): named, rather than planned at a wrong one.
    private func timedByTheThread(_ construct: String) -> Bool {
        guard lock.withLock({ waited }) || Lab.work != nil else { return true }
        unmodelled(construct, why: Lab.work != nil
            ? "made inside an operation's work, at an instant the plan cannot tell"
            : "made after the experiment's thread waited, at an instant the plan cannot tell")
        return false
    }

    // MARK: Dispatch

    /// What the rehearsal knows of a `DispatchGroup` or `DispatchSemaphore` the code uses: which
    /// planned operations leave or signal it, so a wait on the experiment's thread is a wait for
    /// them.
    struct Synchroniser {
        /// A semaphore's permits from its creation, not yet taken.
        var permits = 0
        var entered = 0
        var left = 0
        /// A group's planned operations: those that leave it, or were sent into it, and whether as
        /// their work ends (a leave partway through comes at an instant the plan does not have).
        var members: [(operation: Int, atItsEnd: Bool)] = []
        /// A semaphore's signals not yet taken, in order: by which planned operation (nil: the
        /// experiment's thread), and whether as its work ends (a signal partway through comes at
        /// an instant the plan does not have).
        var signals: [(operation: Int?, atItsEnd: Bool)] = []
    }

    private var synchronisers: [ObjectIdentifier: Synchroniser] = [:]
    /// The groups and semaphores the code made, kept alive so their identifiers stay unique.
    private var synchroniserObjects: [AnyObject] = []

    /// `DispatchSemaphore(value:)` in a rehearsal: its permits.
    public func madeSemaphore(_ semaphore: DispatchSemaphore, value: Int) {
        guard mode == .rehearsing else { return }
        lock.withLock {
            synchroniserObjects.append(semaphore)
            synchronisers[ObjectIdentifier(semaphore), default: Synchroniser()].permits = value
        }
    }

    /// `group.enter()`, `group.leave()` or `semaphore.signal()` in a rehearsal: inside an
    /// operation's work, the work's (see `attribute(_:to:)`); on the experiment's thread, now.
    /// Returns true in a rehearsal, where the call is only recorded: nothing waits on Dispatch
    /// there, and a group left entered, or a semaphore waited on more than it was signalled, would trap
    /// when it is freed.
    public func synchronising(_ object: AnyObject, _ event: RecordedWork.SynchronisingEvent) -> Bool {
        guard mode == .rehearsing else { return false }
        if let work = Lab.work {
            work.synchronised(object, event)
        } else {
            lock.withLock { record(event, on: object, by: nil, atItsEnd: true) }
        }
        return true
    }

    private func record(_ event: RecordedWork.SynchronisingEvent, on object: AnyObject, by operation: Int?, atItsEnd: Bool) {
        let key = ObjectIdentifier(object)
        if synchronisers[key] == nil { synchroniserObjects.append(object) }
        switch event {
        case .entered: synchronisers[key, default: Synchroniser()].entered += 1
        case .left:
            synchronisers[key, default: Synchroniser()].left += 1
            if let operation { synchronisers[key, default: Synchroniser()].members.append((operation, atItsEnd)) }
        case .signalled: synchronisers[key, default: Synchroniser()].signals.append((operation, atItsEnd))
        }
    }

    /// The leaves and signals `work` made are the planned operation `index`'s.
    func attribute(_ work: RecordedWork, to index: Int) {
        for (object, event, sleepsBefore) in work.synchronising {
            record(event, on: object, by: index, atItsEnd: sleepsBefore == work.sleepCount)
        }
    }

    /// `group.wait()`: on the experiment's thread, a wait for the planned operations that leave
    /// the group; one entered more often than its operations leave it waits for what the plan
    /// cannot tell. Returns true when the wait is to be skipped (a rehearsal).
    public func skipsWaiting(forGroup group: DispatchGroup) -> Bool {
        skipsWaiting("DispatchGroup.wait()") {
            let known = synchronisers[ObjectIdentifier(group)] ?? Synchroniser()
            guard known.entered <= known.left else {
                return .failure(Unplannable(why: "entered \(Format.count(known.entered, "time")) and left \(Format.count(known.left, "time")) by the work the plan holds: the plan cannot tell what it waits for"))
            }
            if let partway = known.members.first(where: { !$0.atItsEnd }) {
                return .failure(Unplannable(why: "'\(workload.operations[partway.operation].label)' leaves it partway through its work, at an instant the plan does not have"))
            }
            return .success(known.members.map(\.operation))
        }
    }

    /// `semaphore.wait()`: on the experiment's thread, a wait for the planned operation whose work
    /// ends with the signal it takes; a signal partway through a work, or none at all, is what
    /// the plan cannot tell. Inside an operation's work, a permit it was made with is taken;
    /// waiting for another's signal is named. Returns true when the wait is to be skipped.
    public func skipsWaiting(forSemaphore semaphore: DispatchSemaphore) -> Bool {
        let key = ObjectIdentifier(semaphore)
        if mode == .rehearsing, Lab.work != nil {
            let permitted = lock.withLock {
                guard synchronisers[key, default: Synchroniser()].permits > 0 else { return false }
                synchronisers[key]!.permits -= 1
                return true
            }
            if !permitted { unmodelled("DispatchSemaphore.wait() inside an operation's work", why: "the plan cannot tell how long it waits") }
            return true
        }
        return skipsWaiting("DispatchSemaphore.wait()") {
            var known = synchronisers[key] ?? Synchroniser()
            defer { synchronisers[key] = known }
            if known.permits > 0 {
                known.permits -= 1
                return .success([])
            }
            guard !known.signals.isEmpty else {
                return .failure(Unplannable(why: "nothing the plan holds signals it first: the plan cannot tell what it waits for"))
            }
            let signal = known.signals.removeFirst()
            guard let operation = signal.operation else { return .success([]) }
            guard signal.atItsEnd else {
                return .failure(Unplannable(why: "'\(workload.operations[operation].label)' signals it partway through its work, at an instant the plan does not have"))
            }
            return .success([operation])
        }
    }

    /// `queue.async { … }`. From the experiment's thread, to a global queue: in a rehearsal the
    /// block is a planned operation of that queue's pool, rehearsed now; in a run, its row. In a
    /// run, from inside an asynchronous operation's work (`Operation.asyncWork(_:)`),
    /// its sleeps are that work's, wherever they run. What the plan cannot hold (a queue of the
    /// code's own, a block sent from inside a rehearsed work, which runs beside it) is named, and
    /// rehearsed where it is sent. `submit` hands a block to Dispatch.
    public func dispatching(
        _ block: @escaping @Sendable () -> Void, to queue: DispatchQueue, group: DispatchGroup?,
        submit: (@escaping @Sendable () -> Void) -> Void
    ) {
        let serviceClass = Self.globalServiceClass(of: queue)
        guard mode == .rehearsing else {
            if let handedOff = handOff() { return submit(tracked(continuing(handedOff, sendable: block))) }
            if Lab.work != nil { return submit(tracked(Lab.handingOver(block))) }
            guard serviceClass != nil, isExperimentThread,
                  let index = lock.withLock({ follow(nil, as: .dispatched, queueName: nil)?.operations.first }) else {
                return submit(tracked(block, row: queue.label == DispatchQueue.main.label ? "DispatchQueue.main.async" : "async on '\(queue.label)'"))
            }
            return submit(tracked { [self] in perform(index, cancelled: { false }, block) })
        }
        if let serviceClass, Lab.holds(block, handedOff: .pool(serviceClass)) { return }
        if Lab.work != nil {
            unmodelled("DispatchQueue.async inside an operation's work", why: "the block runs beside that work, at an instant the plan cannot tell (an asynchronous operation that declares its work can hand work off)")
            return Self.unplanned(block)
        }
        // Dispatch hands out a new object for its main queue each time it is asked.
        if queue.label == DispatchQueue.main.label {
            unmodelled("DispatchQueue.main.async", why: Self.mainThreadRuns)
            return Self.unplanned(block)
        }
        guard let serviceClass else {
            unmodelled("async on DispatchQueue '\(queue.label)'", why: "the plan has the global queues' pool only, not a queue of the code's own")
            return Self.unplanned(block)
        }
        let work = Self.rehearseBlocks([block])[0]
        lock.withLock {
            let index = addPlanned(
                Operation(), label: work.printed.first ?? "block \(workload.operations.count + 1) on \(queue.label)", work: work,
                executor: .globalQueue(serviceClass), dependencies: awaitedByTheThread
            )
            if let group { synchronisers[ObjectIdentifier(group), default: Synchroniser()].members.append((index, true)) }
            registrations.append(Workload.Registration(kind: .dispatched, operations: [index], completion: nil))
        }
    }

    /// In a rehearsal, a block the plan does not hold (sent to a queue of the code's own, after a
    /// delay, to a thread of its own) is called here, once, as every block is, so what it leaves
    /// or signals is left or signalled; nothing runs on Dispatch while the rehearsal goes on, or
    /// after it. Outside a rehearsal, false: the caller runs it as Dispatch does.
    public static func rehearsesUnplanned(_ block: () -> Void) -> Bool {
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
    public static func synchronising<T>(_ sync: () throws -> T) rethrows -> T {
        guard let lab = current, lab.mode == .rehearsing else { return try sync() }
        return try $synchronisedAt.withValue(CallSite.inExperiment()) { try sync() }
    }

    /// Whether a rehearsal runs the block of a `sync` on `queue` in place: on the main queue,
    /// whose thread is the experiment's own and runs it only once the code returns, it is named.
    public static func rehearsesInPlace(syncOn queue: DispatchQueue) -> Bool {
        guard let lab = current, lab.mode == .rehearsing, queue.label == DispatchQueue.main.label else { return false }
        lab.unmodelled("DispatchQueue.main.sync", why: mainThreadRuns)
        return true
    }

    /// The line of the `DispatchQueue.sync` whose block the rehearsal is running, if any.
    @TaskLocal private static var synchronisedAt: String?

    /// The class of a global queue (`DispatchQueue.global(qos:)`), read from its label; nil for
    /// any other queue.
    static func globalServiceClass(of queue: DispatchQueue) -> ServiceClass? {
        let classes: [String: ServiceClass] = [
            "com.apple.root.user-interactive-qos": .userInteractive, "com.apple.root.user-initiated-qos": .userInitiated,
            "com.apple.root.default-qos": .default, "com.apple.root.utility-qos": .utility, "com.apple.root.background-qos": .background,
        ]
        return classes[queue.label]
    }

    /// The run did what the plan does not have; in a learner's code, at the line that did it.
    private func drift(_ difference: String) {
        let site = isLearners ? CallSite.inExperiment() : nil
        context.timeline.modelOutOfDate(site.map { "\($0): \(difference)" } ?? difference)
    }

    // MARK: Run

    /// Runs `code` for real, following `plan` (its rehearsal, read before the clock started),
    /// and returns the outcome every scheduling experiment reports. Objects the plan has that
    /// the run never built are drift.
    public static func run(_ code: (RunContext) throws -> Void, context: RunContext, plan: Workload, isLearners: Bool = false) throws -> Outcome {
        let lab = Lab(mode: .running, context: context, plan: plan, isLearners: isLearners)
        try open(lab) {
            try code(context)
            lab.waitForWhatTheCodeStarted()
        }
        lab.waiting()
        let (seen, slept) = lab.lock.withLock { (lab.nextRegistration, lab.segmentsFollowed) }
        for registration in lab.planned.dropFirst(seen) {
            lab.drift("'\(plan.operations[registration.operations[0]].label)' is in the plan, but the run never \(registration.kind.verb) it")
        }
        for segment in plan.operations.filter({ $0.executor == .experimentThread }).dropFirst(slept) {
            lab.drift("'\(segment.label)' is in the plan, but the experiment's thread never made that sleep")
        }
        return context.timeline.scheduleOutcome()
    }

    // MARK: Work that outlives the code

    /// A learner's code returned: the work it started (the operations of the queues it added
    /// to, their completion blocks, the blocks it sent to Dispatch) ends before the run does,
    /// so that what it prints is shown, as a playground that runs on does. The main queues'
    /// work is run meanwhile, as a playground's run loop runs it, on the main thread. What never
    /// ends, the watchdog stops.
    private func waitForWhatTheCodeStarted() {
        guard isLearners else { return }
        let queues = lock.withLock { queuesUsed }
        // A queue left suspended holds its operations for good: nothing is waited for there.
        while queues.contains(where: { $0.operationCount > 0 && !$0.isSuspended }) || unfinished.wait(timeout: .now()) == .timedOut {
            if Thread.isMainThread {
                RunLoop.main.run(until: Date(timeIntervalSinceNow: 0.005))
            } else {
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
    }

    /// In a run of a learner's code, an operation added to `queue` (or started by hand): the
    /// queue, and its completion block, are work the run waits for before it ends. Called under `lock`.
    private func startedWork(on queue: OperationQueue?, completing operation: Operation) {
        guard isLearners else { return }
        if let queue, !queuesUsed.contains(where: { $0 === queue }) { queuesUsed.append(queue) }
        if operation.completionBlock != nil, pendingCompletions.insert(ObjectIdentifier(operation)).inserted { unfinished.enter() }
    }

    /// An operation's completion block has ended (see `startedWork(on:completing:)`).
    public func completionEnded(of operation: Operation) {
        lock.withLock {
            if pendingCompletions.remove(ObjectIdentifier(operation)) != nil { unfinished.leave() }
        }
    }

    /// `block`, handed to Dispatch or a thread by a learner's code in a run: among the work the
    /// run waits for before it ends (`waitForWhatTheCodeStarted()`), and, given a `row`, work
    /// the plan does not have, drawn as a timeline row of that label (the construct that sent
    /// it); elsewhere, `block` itself.
    public static func tracked(_ block: @escaping @Sendable () -> Void, row: String? = nil) -> @Sendable () -> Void {
        current?.tracked(block, row: row) ?? block
    }

    private func tracked(_ block: @escaping @Sendable () -> Void, row: String? = nil) -> @Sendable () -> Void {
        guard mode == .running, isLearners else { return block }
        unfinished.enter()
        return { [self] in
            defer { unfinished.leave() }
            runUnplanned(block, row: row)
        }
    }

    /// ``tracked(_:row:)`` for a block Dispatch does not require to be `Sendable` (`notify`'s).
    public static func tracked(notified block: @escaping () -> Void, row: String) -> () -> Void {
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
    public func tracked(_ workItem: DispatchWorkItem) {
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
    public func mainQueue<Queue: OperationQueue>(_ make: () -> Queue) -> Queue {
        if let made = lock.withLock({ mainQueueStandIn }) as? Queue { return made }
        if isLearners, !Lab.readingCurrent { unmodelled("OperationQueue.main", why: Self.mainThreadRuns) }
        let made = make()
        lock.withLock { mainQueueStandIn = made }
        return made
    }

    static let mainThreadRuns = "its work runs on the main thread once the code returns, as a playground's run loop runs it, which the model does not plan yet"

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
    public func beginWork(_ index: Int, _ body: (PendingWork) -> Void) {
        guard let plan, plan.operations.indices.contains(index) else { return }
        let pending = PendingWork(index: index, span: context.timeline.begin(plan.operations[index].label))
        Lab.$work.withValue(pending.recorded) { body(pending) }
    }

    /// The work begun with ``beginWork(_:_:)`` has ended (its callback came): its row closes,
    /// and what it slept, on whichever thread, is compared with the plan.
    public func endWork(_ pending: PendingWork, cancelled: Bool) {
        guard let planned = plan?.operations[pending.index] else { return }
        context.timeline.end(pending.span, cancelled: cancelled)
        if planned.work != .timer { compareSleeps(pending.recorded.totalSeconds, with: planned, cancelled: { cancelled }) }
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
    public static func followOn(_ block: () -> Void) {
        $followingOn.withValue(true, operation: block)
    }

    /// An add made by follow-on work: in a run the operation is known to the lab as outside the
    /// plan (so its start is not taken for an unplanned one); a rehearsal holds it.
    private func followingOn(_ operation: Operation, to queue: OperationQueue) -> Bool {
        guard mode == .running else { return false }
        lock.withLock {
            registered[ObjectIdentifier(operation)] = Workload.Registration(kind: .queued(queue: queueIndex(queue)), operations: [], completion: nil)
        }
        return true
    }

    /// The rehearsal calls a ``FollowOnCompletion`` operation's completion block once, when the
    /// operation is added, so what the experiment waits on (a `DispatchGroup` the block leaves)
    /// is released as in the run; what it prints or sleeps is not planned.
    /// Returns what it recorded: the groups it leaves and semaphores it signals, as the
    /// operation ends.
    private static func rehearseFollowOn(of operation: Operation) -> RecordedWork? {
        guard operation is FollowOnCompletion, let block = operation.completionBlock else { return nil }
        let work = RecordedWork()
        $work.withValue(work) { followOn(block) }
        return work
    }

    // MARK: Timers

    /// `asyncAfter` as the articles write it (`.now() + 1`, `.now() + .milliseconds(500)`): its
    /// deadline is article seconds from now. In a run they are scaled by the time scale, as a
    /// `sleep`'s are, and in a learner's code the wait is a timeline row of its own, `timer` and
    /// its seconds, from the call to the timer's firing, and the block, labelled `row`, is among
    /// the work the run waits for (``tracked(_:row:)``). Elsewhere (a rehearsal calls the block at once;
    /// outside a session Dispatch has it) the deadline and the block as given.
    public static func timer(
        until deadline: DispatchTime, row: String, _ block: @escaping @Sendable () -> Void
    ) -> (deadline: DispatchTime, block: @Sendable () -> Void) {
        guard let lab = current, let (scaled, articleSeconds) = lab.scaled(deadline) else { return (deadline, block) }
        guard lab.isLearners else { return (scaled, block) }
        let timeline = lab.context.timeline
        let handedOff = lab.handOff()
        let wait = timeline.begin("timer \(Format.seconds(articleSeconds))")
        let fired: @Sendable () -> Void = { timeline.end(wait); block() }
        // Handed off by an asynchronous operation's start, the block is that operation's work.
        guard let handedOff else { return (scaled, lab.tracked(fired, row: row)) }
        return (scaled, lab.tracked(lab.continuing(handedOff, sendable: fired)))
    }

    /// The deadline of ``timer(until:row:_:)`` without a block to follow (a work item's).
    public static func timer(until deadline: DispatchTime) -> DispatchTime {
        current?.scaled(deadline)?.deadline ?? deadline
    }

    /// In a run, `deadline` scaled and the article seconds it lay after now, to the millisecond:
    /// the microseconds the code took between reading `.now()` and handing the deadline over are
    /// no part of the wait it asks for (and differ from one run to the next). Elsewhere, or for
    /// a deadline that never comes, nil.
    private func scaled(_ deadline: DispatchTime) -> (deadline: DispatchTime, articleSeconds: Double)? {
        guard mode == .running, deadline != .distantFuture else { return nil }
        let articleSeconds = Self.articleSeconds(until: deadline)
        return (.now() + context.realSeconds(articleSeconds), articleSeconds)
    }

    /// The article seconds from now until `deadline`, to the millisecond.
    public static func articleSeconds(until deadline: DispatchTime) -> Double {
        let now = DispatchTime.now()
        let nanoseconds = deadline > now ? deadline.uptimeNanoseconds - now.uptimeNanoseconds : 0
        return (Double(nanoseconds) / 1_000_000).rounded() / 1000
    }

    /// `Task.sleep` in article seconds: in a run it suspends the calling task for them times the
    /// time scale, holding no thread, and is recorded as a sleep; in a rehearsal it returns at
    /// once, as every wait there does; outside a session it suspends for them unscaled. A cancel
    /// ends it, throwing `CancellationError`, as `Task.sleep` does.
    public static func taskSleep(articleSeconds: Double) async throws {
        guard let lab = current else { return try await ContinuousClock().sleep(for: .seconds(articleSeconds)) }
        guard lab.mode == .running else { return try Task.checkCancellation() }
        try await lab.context.timeline.suspend(forSeconds: lab.context.realSeconds(articleSeconds))
    }

    // MARK: Instrumented print and sleep

    /// The work being recorded on this thread: a block rehearsed, or a planned operation running.
    @TaskLocal static var work: RecordedWork?

    /// Whether a work is being recorded on this thread.
    public static var isRecordingWork: Bool {
        work != nil
    }

    /// The instrumented `print`: a line in the timeline (in a rehearsal, the name of the work).
    public static func print(_ text: String) {
        guard let lab = current else { return Swift.print(text) }
        work?.print(text)
        guard lab.mode == .running else { return }
        lab.context.print(text)
        handedOff?.reached(lab.context.timeline.now())
    }

    /// The instrumented `isCancelled` of `operation`: in a rehearsal of the operation's own
    /// work, the look is recorded (a work that looks before each step stops at a cancel,
    /// `RecordedWork.checksCancellation`) and answered `false`, so the work is rehearsed whole:
    /// when a cancel comes is the plan's cancels' to say. A loop that only a cancel ends is
    /// answered `true` once it has looked `RecordedWork.loopBound` times. Elsewhere, nil: the
    /// operation's own answer.
    public static func lookingAtCancellation(of operation: Operation) -> Bool? {
        guard let lab = current, lab.mode == .rehearsing, let work, work.isOwned(by: operation) else { return nil }
        return work.checkedCancellation()
    }

    /// The instrumented `sleep`, in article seconds: blocks for them scaled by the time scale;
    /// in a rehearsal, it records them without waiting (outside any work, the virtual clock moves).
    public static func sleep(articleSeconds: Double) {
        guard let lab = current else { return Thread.sleep(forTimeInterval: articleSeconds) }
        if lab.mode == .rehearsing, articleSeconds > 0, let site = synchronisedAt {
            lab.unmodelled("DispatchQueue.sync of a block that sleeps", why: "it holds the queue meanwhile, and another caller's sync waits its turn, which the model does not plan yet", site: site)
        }
        if let work {
            work.sleep(articleSeconds)
        } else if lab.isExperimentThread {
            return lab.threadSleeps(articleSeconds)
        }
        guard lab.mode == .running else { return }
        lab.context.sleep(articleSeconds: articleSeconds)
        handedOff?.reached(lab.context.timeline.now())
    }

    /// The experiment's own thread sleeps. Before its first wait, the rehearsal's clock moves
    /// (what it adds or cancels afterwards comes that much later); after one, the sleep begins
    /// when the wait ends, so it is planned as an operation of the thread's
    /// (``Executor/experimentThread``) that what the thread does next waits for, and in the run
    /// it is that operation's row.
    private func threadSleeps(_ articleSeconds: Double) {
        switch mode {
        case .rehearsing:
            lock.withLock {
                readCancels()
                guard waited else { return virtualNow += articleSeconds }
                let segment = RecordedWork()
                segment.sleep(articleSeconds)
                let label = "main sleeps \(Format.seconds(articleSeconds))"
                lastSegment = addPlanned(Operation(), label: label, work: segment, executor: .experimentThread, dependencies: awaitedByTheThread)
            }
        case .running:
            let segment: Int? = lock.withLock {
                guard waited, let plan else { return nil }
                let segments = plan.operations.indices.filter { plan.operations[$0].executor == .experimentThread }
                defer { segmentsFollowed += 1 }
                return segments[safe: segmentsFollowed]
            }
            guard let segment else {
                if lock.withLock({ waited }) { drift("the experiment's thread slept \(Format.seconds(articleSeconds)) after a wait, which the plan does not have") }
                return context.sleep(articleSeconds: articleSeconds)
            }
            perform(segment, cancelled: { false }) { Lab.sleep(articleSeconds: articleSeconds) }
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}

extension Workload.Registration.Kind {
    /// What the code did to the object: `added`, `started`, `dispatched`.
    var verb: String {
        switch self {
        case .queued: return "added"
        case .started: return "started"
        case .dispatched: return "dispatched"
        }
    }

    func phrase(_ plan: Workload) -> String {
        switch self {
        case .queued(let queue): return "added to '\(plan.queues[safe: queue]?.name ?? "queue \(queue + 1)")'"
        case .started: return "started with start()"
        case .dispatched: return "sent to a global DispatchQueue"
        }
    }
}

/// An operation of the Experiments module's instrumented classes (its `Operation` and
/// `BlockOperation`): it reports its start, cancel and waits to the lab, its completion block
/// is planned, and the work of a synchronous one that declares none (``ModelledOperation``) is
/// learned by calling its `main()` once in the rehearsal.
public protocol ReportsToLab: Operation {}

/// An operation whose work is its blocks: Foundation's `BlockOperation`, and the Experiments
/// module's, an instrumented `Operation` (so that an article's `[Operation]` holds both kinds)
/// that keeps its blocks in one of Foundation's.
public protocol ExecutesBlocks: Operation {
    var executionBlocks: [@Sendable () -> Void] { get }
}

extension BlockOperation: ExecutesBlocks {}

/// One of the articles' `Operation` subclasses (not the instrumented `BlockOperation`) whose
/// completion block hands its result on (article 000's GroupAdd appends each sum through an
/// append queue). Whether it adds anything depends on the operation's result, which a rehearsal,
/// where nothing runs, does not have; so what the block does is follow-on work, outside the plan
/// (see ``Lab/followOn(_:)``). The class wraps its `completionBlock` in ``Lab/followOn(_:)``.
public protocol FollowOnCompletion: Operation {}

/// An operation class whose work the rehearsal cannot learn by calling it (it hands its work to
/// the pool, or waits on a timer) declares it here, once, beside the code that does it.
public protocol ModelledOperation: Operation {
    var modelledWork: ModelledWork { get }
}

extension ServiceClass {
    /// The model's name for Foundation's class.
    public init(_ qualityOfService: QualityOfService) {
        switch qualityOfService {
        case .userInteractive: self = .userInteractive
        case .userInitiated: self = .userInitiated
        case .utility: self = .utility
        case .background: self = .background
        default: self = .default
        }
    }
}
