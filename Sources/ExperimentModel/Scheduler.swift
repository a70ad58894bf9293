/// The platform model: simulates how OperationQueue and Dispatch schedule a workload.
///
/// What it models, from swift-corelibs-foundation and -libdispatch (see <doc:LinuxFoundationAndDispatch>):
/// - operations are added one at a time in workload order (as `addOperation` calls, and blocks
///   sent to a global queue with them, in the order the code makes them), and the
///   queue decides after each add which to start (so on a narrow queue the first ones take the
///   slots before later, higher-priority ones are even added); adding takes microseconds, about
///   what a worker needs to wake, so workers may take the started items only after the last
///   add (as on an idle machine), after each add, or from any add in between on (as when a core
///   is kept busy): all are followed;
/// - a queue starts ready operations while fewer than `maxConcurrentOperationCount` run,
///   highest priority first, in enqueue order within a priority; an operation's priority is
///   its `queuePriority` when set (on a queue of any width), else one derived from its QoS, or
///   normal on a queue of width 1;
/// - a started operation becomes a work item on the pool of its service class;
/// - `linux`: a pool creates workers on demand up to the CPU count; beyond that only the
///   monitor adds one, once a second, and only while work waits and every worker is blocked
///   (the experiments' work blocks in `sleep`, so a busy worker is a blocked one);
///   an idle worker exits after 5 s;
/// - `apple`: a pool has a worker for every waiting item, up to 64;
/// - a `BlockOperation` started with `start()` runs its blocks one after another on the
///   calling thread under `linux`, and concurrently under `apple`; a queued one, on the worker
///   that runs it under `linux`, and on workers of its pool under `apple`;
/// - work handed to a global queue occupies a worker of that pool; a timer holds none;
/// - real CPU work (an image filter) lasts what it was measured to cost here, unscaled; it is
///   milliseconds, short enough that the monitor's rule for runnable workers never comes into play;
/// - a cancelled operation that has not started becomes ready at once and, when started,
///   finishes without running its work; a running one stops only at a step that checks; an
///   operation may cancel others as it starts (``PlannedOperation/cancelsWhenStarting``);
/// - a queue's cancel flags its operations one at a time, so an end that meets it may land
///   inside that loop and start an operation not yet flagged;
/// - an operation that never finishes keeps its queue slot and its dependents waiting forever;
///   under `linux`, so does a dependency removed before it finished (corelibs keeps its count);
/// - a suspended queue starts nothing new until it is resumed; what runs goes on;
/// - the experiment's own thread adds what it adds after a sleep at that instant, and a sleep
///   it makes after a wait begins when what it waited for has ended.
public enum Scheduler {
    /// A monitor tick and a completion closer than this (real seconds) may happen in either
    /// order on a real machine: the model follows both. It is the monitor's measured scatter
    /// around its nominal phase (a few ms) plus scheduling delays on a loaded 2-core machine.
    public static let tieWindow = 0.05
    /// A cancel and a step's end closer than this (real seconds) may happen in either order:
    /// both are wake-ups from timed sleeps, late by a few milliseconds at most on a loaded
    /// 2-core machine.
    static let cancelTieWindow = 0.01
    /// The most timelines the model follows before it keeps to the nominal order.
    public static let maximumBranches = 256

    /// Predicts the workload's timelines at `timeScale` real seconds per article second.
    public static func predict(_ workload: Workload, profile: PlatformProfile, timeScale: Double) -> Prediction {
        predict(workload, profile: profile, timeScale: timeScale, mergingEqualStates: true)
    }

    /// The prediction, with branches that reach one state explored once (`mergingEqualStates`)
    /// or each on its own (the plain search, kept so tests can show both give the same branches).
    static func predict(_ workload: Workload, profile: PlatformProfile, timeScale: Double, mergingEqualStates: Bool) -> Prediction {
        searching(workload, profile: profile, timeScale: timeScale, mergingEqualStates: mergingEqualStates).prediction
    }

    /// The prediction, and how many stretches of simulation the search ran to make it (each
    /// from a start or a split to the next split or the end; a remembered state runs none):
    /// the search's work, whatever the machine's speed.
    static func searching(
        _ workload: Workload, profile: PlatformProfile, timeScale: Double, mergingEqualStates: Bool
    ) -> (prediction: Prediction, simulations: Int) {
        var search = Search(budget: maximumBranches, merging: mergingEqualStates)
        // When the first worker wakes, against the experiment's adds, is a race of microseconds:
        // the model follows every case, workers taking items only after the last add (nominal,
        // as on an idle machine), after every add (as when a worker is already awake), or from
        // any add in between on (as when the adding thread is preempted on a loaded machine).
        let adds = max(1, workload.operations.count)
        let timelines = ([adds] + Array(1..<adds)).flatMap { firstWake in
            var simulation = Simulation(workload: workload, profile: profile, timeScale: timeScale)
            simulation.addOperationsInOrder(workersWakeAfterAdd: firstWake)
            return search.explore(simulation).timelines
        }
        var distinct: [PredictedTimeline] = []
        for timeline in timelines where !distinct.contains(timeline) {
            distinct.append(timeline)
        }
        return (Prediction(workload: workload, profile: profile, timeScale: timeScale, nominal: distinct[0], branches: distinct), search.simulations)
    }

    /// The search through the races: runs a simulation to its end, splitting it where two
    /// events that affect each other fall within their window, at most `budget` times.
    ///
    /// Races that do not affect each other's outcome lead different branches back into one
    /// state (a tick that adds no worker either way, a completion on another queue than the
    /// one suspended): from there the branches unfold alike, so each state's subtree is
    /// explored once and remembered. This is what keeps `table-view-scroll` quick to predict:
    /// its eight queues' short filter steps race the scroll's cancels and suspensions second
    /// after second, and the plain search re-runs the same continuations hundreds of times.
    ///
    /// A remembered subtree is reused only where the plain search would have explored it
    /// alike: it used `splits` of the budget, and the reuse has more than that left (or, if
    /// the budget cut it short, exactly what it had then). So the branches, their order and
    /// the budget's cut-off are those of the plain search.
    private struct Search {
        struct Explored {
            var timelines: [PredictedTimeline]
            var splits: Int
            /// The budget this subtree started with, if the budget ran out inside it.
            var cutAtBudget: Int? = nil

            func reusable(withBudget budget: Int) -> Bool {
                cutAtBudget.map { $0 == budget } ?? (budget > splits)
            }
        }

        var budget: Int
        let merging: Bool
        var explored: [Simulation: Explored] = [:]
        /// How many times ``explore(_:)`` ran a simulation (rather than reusing a remembered state).
        var simulations = 0

        init(budget: Int, merging: Bool) {
            self.budget = budget
            self.merging = merging
        }

        /// The timelines from `start` to the end; the nominal branch (events in time order) first.
        mutating func explore(_ start: Simulation) -> Explored {
            if merging, let known = explored[start], known.reusable(withBudget: budget) {
                budget -= known.splits
                return known
            }
            simulations += 1
            let entryBudget = budget
            var simulation = start
            var result: Explored
            var cut = false
            while true {
                simulation.dispatchAndAssign()
                let events = simulation.upcomingEvents()
                guard let first = events.first else {
                    result = Explored(timelines: [simulation.timeline], splits: 0)
                    break
                }
                if let rival = events.dropFirst().first(where: { first.races($0) }) {
                    var inOrder = simulation, reversed = simulation
                    inOrder.process(first)
                    reversed.process(rival)
                    let midLoop = simulation.completionsDuringCancelLoop(first, rival)
                    let orders = [inOrder, reversed] + midLoop
                    // Each order past the first is a split; the orders in the middle of a cancel
                    // loop are followed only while the budget allows them all.
                    let followed = budget > orders.count - 1 ? orders : budget > 1 ? [inOrder, reversed] : []
                    if !followed.isEmpty {
                        budget -= followed.count - 1
                        result = Explored(timelines: [], splits: 0)
                        for order in followed {
                            let branch = explore(order)
                            result.timelines += branch.timelines
                            cut = cut || branch.cutAtBudget != nil
                        }
                        cut = cut || followed.count < orders.count
                        break
                    }
                    cut = true
                }
                simulation.process(first)
            }
            result.splits = entryBudget - budget
            result.cutAtBudget = cut ? entryBudget : nil
            if merging { explored[start] = result }
            return result
        }
    }
}

/// Something that happens at an instant and changes the simulation.
private enum Event {
    case completion(Double)
    case tick(index: Int, time: Double)
    case cancel(index: Int, time: Double)
    case suspension(index: Int, time: Double)
    /// The experiment's own thread adds the operations planned for this instant.
    case addition(time: Double)

    var time: Double {
        switch self {
        case .completion(let time), .tick(_, let time), .cancel(_, let time), .suspension(_, let time), .addition(let time): return time
        }
    }

    /// Whether the two events can happen in either order on a real machine, and the order matters.
    func races(_ other: Event) -> Bool {
        let gap = abs(time - other.time)
        switch (self, other) {
        case (.completion, .tick), (.tick, .completion): return gap <= Scheduler.tieWindow
        case (.completion, .cancel), (.cancel, .completion), (.completion, .suspension), (.suspension, .completion),
             (.completion, .addition), (.addition, .completion):
            return gap <= Scheduler.cancelTieWindow
        default: return false
        }
    }
}

/// The state of one simulated run; a value, so a branch is a copy, and two branches that reach
/// equal states go on alike.
private struct Simulation: Hashable {
    struct Worker: Equatable {
        var id: Int
        var busy: Bool
        var idleSince: Double
    }

    /// A work item waiting for, or held by, a pool worker.
    struct PoolItem: Equatable {
        var operation: Int
        /// The blocking work an operation's `main()` handed to the pool (not the operation's start).
        var handedWork: Bool
    }

    struct Pool: Equatable {
        var workers: [Worker] = []
        var waiting: [PoolItem] = []
    }

    /// Work in progress on a thread, or a timer holding none.
    struct Running: Equatable {
        enum Kind {
            /// One step of blocking work.
            case step
            /// `start()` of a cancelled operation: finishes at once, its work never runs.
            case cancelledStart
            /// `main()` handed the work off and returned: only the thread is freed.
            case mainReturned
            /// The handed-off work, blocking a worker of its pool.
            case handedWork
            /// A timer: no thread.
            case timer
        }

        var operation: Int
        var kind: Kind
        var end: Double
        var begun: Double
        /// Ends the instant it begins (a cancelled start, a `main()` that hands off, empty work):
        /// done while assigning workers, never raced against other events.
        var immediate: Bool {
            kind == .cancelledStart || kind == .mainReturned || end == begun
        }
        /// The pool whose worker it holds; nil on the calling thread or for a timer.
        var pool: ServiceClass?
        /// The thread it holds: 0 the calling thread, a worker id, or nil for a timer.
        var thread: Int?
    }

    let workload: Workload
    let profile: PlatformProfile
    let timeScale: Double
    /// For each planned operation, the further execution blocks it stands first for (see
    /// ``Executor/executionBlock(of:)``); empty for most.
    let furtherBlocksOf: [[Int]]

    var now = 0.0
    var spans: [PredictedSpan?]
    /// Whether the experiment has added the operation yet (a started operation's blocks and the
    /// experiment thread's own work count as added).
    var added: [Bool]
    var submitted: [Bool]
    var finished: [Bool]
    var cancelled: [Bool]
    var stepsDone: [Int]
    var running: [Running] = []
    var queueRunning: [Int]
    var pools: [ServiceClass: Pool] = [:]
    var ticksDone = 0
    var cancelsDone = 0
    var suspensionsDone = 0
    var suspended: [Bool]
    var callerBusy = false
    var nextWorkerID = 1

    /// Hashes what changes as the run goes on (equality compares everything): equal states
    /// hash alike, as a subset of their fields does.
    func hash(into hasher: inout Hasher) {
        hasher.combine(now)
        hasher.combine(stepsDone)
        hasher.combine(finished)
        hasher.combine(cancelled)
        hasher.combine(submitted)
        hasher.combine(ticksDone)
        hasher.combine(cancelsDone)
        hasher.combine(suspensionsDone)
        hasher.combine(nextWorkerID)
    }

    init(workload: Workload, profile: PlatformProfile, timeScale: Double) {
        self.workload = workload
        self.profile = profile
        self.timeScale = timeScale
        let count = workload.operations.count
        var furtherBlocksOf = Array(repeating: [Int](), count: count)
        for (index, operation) in workload.operations.enumerated() {
            if case .executionBlock(let first) = operation.executor { furtherBlocksOf[first].append(index) }
        }
        self.furtherBlocksOf = furtherBlocksOf
        spans = Array(repeating: nil, count: count)
        submitted = Array(repeating: false, count: count)
        finished = submitted
        cancelled = submitted
        stepsDone = Array(repeating: 0, count: count)
        queueRunning = Array(repeating: 0, count: workload.queues.count)
        suspended = workload.queues.map(\.startsSuspended)
        // What the experiment's thread adds to a queue or sends to a global queue is added in
        // program order (``addOperationsInOrder(workersWakeAfterAdd:)``): a block sent after the
        // adds reaches the pool behind the operations they started.
        added = workload.operations.map {
            switch $0.executor {
            case .queue, .globalQueue: return false
            default: return $0.addedAtArticleSeconds <= 0
            }
        }
    }

    var timeline: PredictedTimeline {
        PredictedTimeline(spans: spans, lastActionSeconds: lastActionSeconds)
    }

    /// When the experiment's own thread makes its last planned cancel or suspension, or ends the
    /// sleeps it makes before its first wait: the run lasts at least that long.
    var lastActionSeconds: Double {
        let instants = workload.cancellations.map(\.atArticleSeconds) + workload.suspensions.map(\.atArticleSeconds) + [workload.experimentThreadArticleSeconds]
        return (instants.max() ?? 0) * timeScale
    }

    /// One step of the operation's work: its sleep at this scale, plus its CPU work where that
    /// is known (work still to measure counts nothing until the child reports it).
    func stepSeconds(_ operation: Int) -> Double {
        let planned = workload.operations[operation]
        return planned.articleSeconds * timeScale + (planned.cpuSeconds ?? 0)
    }

    // MARK: Events

    /// The next completion, monitor tick and cancel, earliest first.
    mutating func upcomingEvents() -> [Event] {
        var events: [Event] = []
        if let completion = running.map(\.end).min() { events.append(.completion(completion)) }
        if let tick = pendingTick { events.append(.tick(index: tick.index, time: tick.time)) }
        if cancelsDone < workload.cancellations.count {
            events.append(.cancel(index: cancelsDone, time: workload.cancellations[cancelsDone].atArticleSeconds * timeScale))
        }
        if suspensionsDone < workload.suspensions.count {
            events.append(.suspension(index: suspensionsDone, time: workload.suspensions[suspensionsDone].atArticleSeconds * timeScale))
        }
        if let addition = workload.operations.indices.filter({ !added[$0] }).map({ workload.operations[$0].addedAtArticleSeconds }).min() {
            events.append(.addition(time: addition * timeScale))
        }
        return events.sorted { $0.time < $1.time }
    }

    mutating func process(_ event: Event) {
        switch event {
        case .completion(let time): processCompletion(at: time)
        case .tick(let index, let time): processTick(index: index, time: time)
        case .cancel(let index, let time): processCancel(index: index, time: time)
        case .suspension(let index, let time):
            now = max(now, time)
            suspensionsDone = index + 1
            suspended[workload.suspensions[index].queue] = workload.suspensions[index].isSuspended
        case .addition(let time):
            now = max(now, time)
            for index in workload.operations.indices where !added[index] && workload.operations[index].addedAtArticleSeconds * timeScale <= time {
                added[index] = true
                dispatchReady()
            }
        }
    }

    /// The next monitor tick, when one can matter: under `linux`, while some work waits for a worker.
    /// Ticks that fell while nothing waited changed nothing and are passed over.
    var pendingTick: (index: Int, time: Double)? {
        guard profile.kind == .linux, pools.values.contains(where: { !$0.waiting.isEmpty }) else { return nil }
        var index = ticksDone
        while tickTime(index) < now - Scheduler.tieWindow {
            index += 1
        }
        return (index, tickTime(index))
    }

    func tickTime(_ index: Int) -> Double {
        profile.firstTickSeconds + Double(index) * PlatformProfile.monitorInterval
    }

    // MARK: Starting work

    /// At time zero, adds the queued operations and the blocks sent to global queues one by one,
    /// in the order the code makes them, letting the queues start work after each; workers take
    /// it from the `firstWake`-th add on, after each one. Cancellations
    /// planned for 0 s come first; operations added after a sleep wait for their instant.
    mutating func addOperationsInOrder(workersWakeAfterAdd firstWake: Int) {
        while cancelsDone < workload.cancellations.count, workload.cancellations[cancelsDone].atArticleSeconds <= 0 {
            processCancel(index: cancelsDone, time: 0)
        }
        for (count, index) in workload.operations.indices.enumerated() where !added[index] && workload.operations[index].addedAtArticleSeconds <= 0 {
            added[index] = true
            dispatchReady()
            if count + 1 >= firstWake { assignWorkers() }
        }
        assignWorkers()
    }

    /// Ready: added, not yet handed on, and its dependencies finished (or itself cancelled,
    /// which makes Foundation drop the wait). Under `linux` an operation that had a dependency
    /// removed waits for it forever (``PlannedOperation/hasRemovedDependency``).
    func isReady(_ index: Int) -> Bool {
        let operation = workload.operations[index]
        let waitsForever = profile.kind == .linux && operation.hasRemovedDependency
        return added[index] && !submitted[index] && (cancelled[index] || (!waitsForever && operation.dependencies.allSatisfy { finished[$0] }))
    }

    /// The priority list a queue files the operation under: its `queuePriority` when one was
    /// set, on a queue of any width; otherwise one derived from its QoS, except on a queue of
    /// width 1, where it is normal (corelibs' `_addOperations`: `__priorityValue`, else
    /// `__actualMaxNumOps == 1 ? nil : __propertyQoS`).
    func queuePriority(of index: Int, width: Int?) -> Int {
        let operation = workload.operations[index]
        if let explicit = operation.queuePriority { return explicit }
        return width == 1 ? 0 : operation.serviceClass?.derivedQueuePriority ?? 0
    }

    /// The pool an operation's start runs on: a global queue's own class; for a queued operation,
    /// the default pool (an operation's own QoS does not move it to another pool: a `.utility`
    /// operation shares the default pool's workers). A queue whose own `qualityOfService` is set
    /// runs on that class's pool, which the plan does not hold: it changes a figure only beside
    /// blocking work on another class's pool, which no experiment runs.
    func poolClass(of index: Int) -> ServiceClass {
        if case .globalQueue(let serviceClass) = workload.operations[index].executor { return serviceClass }
        return .default
    }

    /// Hands every ready operation to its queue, pool or thread, then gives waiting work to workers.
    mutating func dispatchAndAssign() {
        dispatchReady()
        assignWorkers()
    }

    /// Ready operations go to their queue's pool (within the queue's width), to the calling
    /// thread (blocks of a started BlockOperation), or to a global queue.
    mutating func dispatchReady() {
        for (queueIndex, queue) in workload.queues.enumerated() where !suspended[queueIndex] {
            let width = queue.maxConcurrentOperationCount ?? Int.max
            while queueRunning[queueIndex] < width {
                let candidates = workload.operations.indices.filter {
                    workload.operations[$0].executor == .queue(queueIndex) && isReady($0)
                }
                // Highest priority first; enqueue order within a priority.
                guard let next = candidates.max(by: {
                    let left = queuePriority(of: $0, width: width), right = queuePriority(of: $1, width: width)
                    return left != right ? left < right : $0 > $1
                }) else { break }
                submitted[next] = true
                queueRunning[queueIndex] += 1
                pools[poolClass(of: next), default: Pool()].waiting.append(PoolItem(operation: next, handedWork: false))
            }
        }
        let blocks = workload.operations.indices.filter { workload.operations[$0].executor == .blockOperationBlock }
        if let first = blocks.first, isReady(first) {
            // `start()` runs the first block on the calling thread; on Apple platforms the others go to the pool at once.
            submitted[first] = true
            begin(first, pool: nil, thread: 0)
            if profile.kind == .apple {
                for block in blocks.dropFirst() {
                    submitted[block] = true
                    pools[.default, default: Pool()].waiting.append(PoolItem(operation: block, handedWork: false))
                }
            }
        } else if profile.kind == .linux, !callerBusy, let next = blocks.first(where: isReady) {
            submitted[next] = true
            begin(next, pool: nil, thread: 0)
        }
        for index in workload.operations.indices where isReady(index) {
            switch workload.operations[index].executor {
            case .globalQueue(let serviceClass):
                submitted[index] = true
                pools[serviceClass, default: Pool()].waiting.append(PoolItem(operation: index, handedWork: false))
            case .experimentThread:
                submitted[index] = true
                begin(index, pool: nil, thread: 0)
            default:
                break
            }
        }
    }

    /// Gives waiting items to idle workers, or to new ones within the on-demand limit; work that
    /// ends at once (a cancelled start, a `main()` that handed its work off, an empty block)
    /// frees its thread straight away, which may ready and start more.
    mutating func assignWorkers() {
        repeat {
            for serviceClass in pools.keys.sorted(by: { $0.derivedQueuePriority > $1.derivedQueuePriority }) {
                let now = self.now
                pools[serviceClass]!.workers.removeAll { !$0.busy && now - $0.idleSince > PlatformProfile.idleWorkerLifetime }
                let onDemandLimit = profile.kind == .linux ? profile.cpus : PlatformProfile.maximumWorkers
                while let item = pools[serviceClass]!.waiting.first {
                    let worker: Int
                    if let idle = pools[serviceClass]!.workers.firstIndex(where: { !$0.busy }) {
                        pools[serviceClass]!.workers[idle].busy = true
                        worker = pools[serviceClass]!.workers[idle].id
                    } else if pools[serviceClass]!.workers.count < onDemandLimit {
                        worker = nextWorkerID
                        nextWorkerID += 1
                        pools[serviceClass]!.workers.append(Worker(id: worker, busy: true, idleSince: now))
                    } else {
                        break
                    }
                    pools[serviceClass]!.waiting.removeFirst()
                    if item.handedWork {
                        running.append(Running(operation: item.operation, kind: .handedWork, end: now + stepSeconds(item.operation), begun: now, pool: serviceClass, thread: worker))
                        spans[item.operation]?.lane = worker
                    } else {
                        begin(item.operation, pool: serviceClass, thread: worker)
                    }
                }
            }
            guard let instant = running.firstIndex(where: \.immediate) else { return }
            complete(instant)
            dispatchReady()
        } while true
    }

    /// The operation's `start()` on `thread`: a cancelled one finishes at once without its work;
    /// otherwise its first step begins, or its work is handed off and the thread freed.
    mutating func begin(_ operation: Int, pool: ServiceClass?, thread: Int) {
        let planned = workload.operations[operation]
        spans[operation] = PredictedSpan(label: planned.label, start: now, end: now, lane: thread, ranWork: !cancelled[operation], stepsCompleted: 0, cancelled: cancelled[operation])
        if pool == nil { callerBusy = true }
        guard !cancelled[operation] else {
            running.append(Running(operation: operation, kind: .cancelledStart, end: now, begun: now, pool: pool, thread: thread))
            return
        }
        cancel(planned.cancelsWhenStarting)
        if profile.kind == .apple, let pool {
            for block in furtherBlocks(of: operation) where !submitted[block] {
                submitted[block] = true
                pools[pool, default: Pool()].waiting.append(PoolItem(operation: block, handedWork: false))
            }
        }
        switch planned.work {
        case .blocking:
            running.append(Running(operation: operation, kind: .step, end: now + stepSeconds(operation), begun: now, pool: pool, thread: thread))
        case .handedToPool(let serviceClass):
            running.append(Running(operation: operation, kind: .mainReturned, end: now, begun: now, pool: pool, thread: thread))
            pools[serviceClass, default: Pool()].waiting.append(PoolItem(operation: operation, handedWork: true))
        case .timer:
            running.append(Running(operation: operation, kind: .mainReturned, end: now, begun: now, pool: pool, thread: thread))
            running.append(Running(operation: operation, kind: .timer, end: now + stepSeconds(operation), begun: now, pool: nil, thread: nil))
        case .neverFinishes:
            running.append(Running(operation: operation, kind: .mainReturned, end: now, begun: now, pool: pool, thread: thread))
            spans[operation]?.end = .infinity
        }
    }

    // MARK: Processing events

    /// The monitor: for each pool whose work waits while every worker is busy (blocked), one more worker.
    mutating func processTick(index: Int, time: Double) {
        now = max(now, time)
        ticksDone = index + 1
        for serviceClass in pools.keys {
            var pool = pools[serviceClass]!
            if !pool.waiting.isEmpty, !pool.workers.contains(where: { !$0.busy }), pool.workers.count < PlatformProfile.maximumWorkers {
                pool.workers.append(Worker(id: nextWorkerID, busy: false, idleSince: now))
                nextWorkerID += 1
            }
            pools[serviceClass] = pool
        }
    }

    /// The experiment's thread cancels: the targets are flagged; a timer stops at once.
    mutating func processCancel(index: Int, time: Double) {
        now = max(now, time)
        cancelsDone = index + 1
        let targets: [Int]
        switch workload.cancellations[index].target {
        case .operation(let operation): targets = [operation]
        case .queue(let queue): targets = workload.operations.indices.filter { workload.operations[$0].executor == .queue(queue) }
        }
        cancel(targets)
    }

    /// `cancelAllOperations()` flags the queue's operations one at a time, in the order they
    /// were added, and each `cancel()` lets the queue schedule (corelibs). A completion that
    /// lands during that loop frees a slot that the queue fills with the first operation the
    /// loop has not flagged yet, which starts its work. For a queue's cancel racing a
    /// completion: one simulation for each operation not yet started that the loop may reach
    /// last before the completion (not the last such one: that is the cancel before the
    /// completion), each with the loop finishing after the freed worker took its next operation.
    func completionsDuringCancelLoop(_ one: Event, _ other: Event) -> [Simulation] {
        let pair: (cancel: Int, cancelTime: Double, completion: Event)
        switch (one, other) {
        case (.cancel(let index, let time), .completion): pair = (index, time, other)
        case (.completion, .cancel(let index, let time)): pair = (index, time, one)
        default: return []
        }
        guard case .queue(let queue) = workload.cancellations[pair.cancel].target else { return [] }
        let loopOrder = workload.operations.indices
            .filter { workload.operations[$0].executor == .queue(queue) && !finished[$0] }
            .sorted { (workload.operations[$0].addedAtArticleSeconds, $0) < (workload.operations[$1].addedAtArticleSeconds, $1) }
        let notStarted = loopOrder.indices.filter { !submitted[loopOrder[$0]] }
        return notStarted.dropLast().map { reached in
            var interleaved = self
            interleaved.cancel(Array(loopOrder[...reached]))
            interleaved.process(pair.completion)
            interleaved.dispatchAndAssign()
            interleaved.processCancel(index: pair.cancel, time: pair.cancelTime)
            return interleaved
        }
    }

    /// Flags the targets not finished yet as cancelled; a timer stops at once.
    mutating func cancel(_ targets: [Int]) {
        for operation in targets where !finished[operation] {
            cancelled[operation] = true
            spans[operation]?.cancelled = true
            if let timer = running.firstIndex(where: { $0.operation == operation && $0.kind == .timer }) {
                running[timer].end = now
            }
        }
    }

    /// Ends the first piece of work due at `time` (one at a time, as each finishing thread
    /// reschedules its queue before the next one does): a step either starts the next step on
    /// the same thread or finishes its operation; freed threads and queue slots go back.
    mutating func processCompletion(at time: Double) {
        now = max(now, time)
        guard let first = running.indices.filter({ running[$0].end <= time + 1e-9 }).min(by: { running[$0].end < running[$1].end }) else { return }
        complete(first)
    }

    /// Ends the work at `index` in `running`, at the current time.
    mutating func complete(_ index: Int) {
        let item = running.remove(at: index)
        let operation = item.operation, planned = workload.operations[operation]
        switch item.kind {
        case .mainReturned:
            release(item)
            return
        case .step, .handedWork:
            // A step ended: the next one follows on the same thread, unless that was the last or
            // the loop saw the cancel.
            stepsDone[operation] += 1
            spans[operation]?.stepsCompleted = stepsDone[operation]
            let stops = planned.checksCancellation && cancelled[operation]
            if stepsDone[operation] < planned.steps, !stops {
                running.append(Running(operation: operation, kind: item.kind, end: now + stepSeconds(operation), begun: now, pool: item.pool, thread: item.thread))
                return
            }
        case .timer:
            // A cancelled timer delivers nothing.
            if !cancelled[operation] { stepsDone[operation] += 1 }
        case .cancelledStart:
            break
        }
        spans[operation]?.stepsCompleted = stepsDone[operation]
        spans[operation]?.end = now
        finished[operation] = true
        // A queued BlockOperation's next block, still to run: on this thread (a cancelled
        // operation's blocks end at once, as its start does).
        let parent = if case .executionBlock(let of) = planned.executor { of } else { operation }
        if let thread = item.thread, let next = furtherBlocks(of: parent).first(where: { !submitted[$0] }) {
            submitted[next] = true
            cancelled[next] = cancelled[next] || spans[parent]?.ranWork == false
            begin(next, pool: item.pool, thread: thread)
            return
        }
        if case .queue(let queueIndex) = workload.operations[parent].executor,
           ([parent] + furtherBlocks(of: parent)).allSatisfy({ finished[$0] }) {
            queueRunning[queueIndex] -= 1
        }
        release(item)
    }

    /// The execution blocks after the first of the queued BlockOperation planned at `operation`.
    func furtherBlocks(of operation: Int) -> [Int] {
        furtherBlocksOf[operation]
    }

    mutating func release(_ item: Running) {
        guard let thread = item.thread else { return }
        if let serviceClass = item.pool, let index = pools[serviceClass]?.workers.firstIndex(where: { $0.id == thread }) {
            pools[serviceClass]!.workers[index].busy = false
            pools[serviceClass]!.workers[index].idleSince = now
        } else if item.pool == nil {
            callerBusy = false
        }
    }
}
