/// The platform model: simulates how OperationQueue and Dispatch schedule a workload.
///
/// What it models, from swift-corelibs-foundation and -libdispatch (see PLATFORM-NOTES):
/// - operations are added one at a time in workload order (as `addOperation` calls), and the
///   queue schedules after each: the first ones start before later ones are even added;
/// - a queue starts ready operations while fewer than `maxConcurrentOperationCount` run,
///   highest priority first, in enqueue order within a priority; priorities come from QoS
///   except on a queue of width 1;
/// - a started operation becomes a work item on a pool of its service class;
/// - `linux`: a pool creates workers on demand up to the CPU count; beyond that only the
///   monitor adds one, once a second, and only while work waits and every worker is blocked
///   (the experiments' work blocks in `sleep`, so a busy worker is a blocked one);
///   an idle worker exits after 5 s;
/// - `apple`: a pool has a worker for every waiting item, up to 64;
/// - a `BlockOperation` started with `start()` runs its blocks one after another on the
///   calling thread under `linux`, and concurrently under `apple`;
/// - a completion block is a work item on the default pool once its operation finishes.
public enum Scheduler {
    /// A monitor tick and a completion closer than this (real seconds) may happen in either
    /// order on a real machine: the model follows both. It is the monitor's measured scatter
    /// around its nominal phase (a few ms) plus scheduling delays on a loaded 2-core machine.
    public static let tieWindow = 0.05
    /// The most timelines the model follows before it keeps to the nominal order.
    public static let maximumBranches = 256

    /// Predicts the workload's timelines at `timeScale` real seconds per article second.
    public static func predict(_ workload: Workload, profile: PlatformProfile, timeScale: Double) -> Prediction {
        var budget = maximumBranches
        var simulation = Simulation(workload: workload, profile: profile, timeScale: timeScale)
        simulation.addOperationsInOrder()
        let timelines = explore(simulation, budget: &budget)
        var distinct: [PredictedTimeline] = []
        for timeline in timelines where !distinct.contains(timeline) {
            distinct.append(timeline)
        }
        return Prediction(profile: profile, timeScale: timeScale, nominal: distinct[0], branches: distinct)
    }

    /// Runs the simulation to its end, splitting it where a tick meets a completion.
    /// The nominal branch (events in time order) is always first.
    private static func explore(_ start: Simulation, budget: inout Int) -> [PredictedTimeline] {
        var simulation = start
        while true {
            simulation.dispatchAndAssign()
            let nextCompletion = simulation.nextCompletion
            if let tick = simulation.pendingTick {
                if let completion = nextCompletion, abs(completion - tick.time) <= tieWindow, budget > 1 {
                    budget -= 1
                    var tickFirst = simulation
                    tickFirst.processTick(tick)
                    var completionFirst = simulation
                    completionFirst.processCompletions(at: completion)
                    let ordered = tick.time <= completion ? [tickFirst, completionFirst] : [completionFirst, tickFirst]
                    return ordered.flatMap { explore($0, budget: &budget) }
                }
                if nextCompletion.map({ tick.time < $0 }) ?? true {
                    simulation.processTick(tick)
                    continue
                }
            }
            guard let completion = nextCompletion else {
                return [simulation.timeline]
            }
            simulation.processCompletions(at: completion)
        }
    }
}

/// The state of one simulated run; a value, so a branch is a copy.
private struct Simulation {
    struct Worker {
        var id: Int
        var busy: Bool
        var idleSince: Double
    }

    struct Pool {
        var workers: [Worker] = []
        /// Operations waiting for a worker, in the order they were submitted.
        var waiting: [Int] = []
    }

    struct Running {
        var operation: Int
        var end: Double
        /// nil when it runs on the calling thread.
        var pool: ServiceClass?
        var worker: Int
    }

    let workload: Workload
    let profile: PlatformProfile
    let durations: [Double]

    var now = 0.0
    var spans: [PredictedSpan?]
    /// Whether the experiment has added the operation yet (operations off a queue count as added).
    var added: [Bool]
    var submitted: [Bool]
    var finished: [Bool]
    var running: [Running] = []
    var queueRunning: [Int]
    var pools: [ServiceClass: Pool] = [:]
    var ticksDone = 0
    var callerBusy = false
    var nextWorkerID = 1

    init(workload: Workload, profile: PlatformProfile, timeScale: Double) {
        self.workload = workload
        self.profile = profile
        durations = workload.operations.map { $0.articleSeconds * timeScale }
        spans = Array(repeating: nil, count: workload.operations.count)
        submitted = Array(repeating: false, count: workload.operations.count)
        finished = submitted
        added = workload.operations.map { if case .queue = $0.executor { return false } else { return true } }
        queueRunning = Array(repeating: 0, count: workload.queues.count)
    }

    var timeline: PredictedTimeline {
        PredictedTimeline(spans: spans)
    }

    var nextCompletion: Double? {
        running.map(\.end).min()
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

    /// At time zero, adds the queued operations one by one, letting the queues start work after each.
    mutating func addOperationsInOrder() {
        for index in workload.operations.indices where !added[index] {
            added[index] = true
            dispatchAndAssign()
        }
    }

    func isReady(_ index: Int) -> Bool {
        added[index] && !submitted[index] && workload.operations[index].dependencies.allSatisfy { finished[$0] }
    }

    func queuePriority(of index: Int, width: Int?) -> Int {
        guard width != 1, let serviceClass = workload.operations[index].serviceClass else { return 0 }
        return serviceClass.derivedQueuePriority
    }

    func poolClass(of index: Int) -> ServiceClass {
        workload.operations[index].serviceClass ?? .default
    }

    /// Hands every ready operation to its queue, pool or thread, then gives waiting work to workers.
    mutating func dispatchAndAssign() {
        for (queueIndex, queue) in workload.queues.enumerated() {
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
                pools[poolClass(of: next), default: Pool()].waiting.append(next)
            }
        }
        let blocks = workload.operations.indices.filter { workload.operations[$0].executor == .blockOperationBlock }
        if let first = blocks.first, isReady(first) {
            // `start()` runs the first block on the calling thread; on Apple platforms the others go to the pool at once.
            submitted[first] = true
            begin(first, pool: nil, worker: 0)
            if profile.kind == .apple {
                for block in blocks.dropFirst() {
                    submitted[block] = true
                    pools[.default, default: Pool()].waiting.append(block)
                }
            }
        } else if profile.kind == .linux, !callerBusy, let next = blocks.first(where: isReady) {
            begin(next, pool: nil, worker: 0)
            submitted[next] = true
        }
        for index in workload.operations.indices where workload.operations[index].executor == .completionBlock && isReady(index) {
            submitted[index] = true
            pools[.default, default: Pool()].waiting.append(index)
        }
        assignWorkers()
    }

    mutating func assignWorkers() {
        for serviceClass in pools.keys.sorted(by: { $0.derivedQueuePriority > $1.derivedQueuePriority }) {
            var pool = pools[serviceClass]!
            let now = self.now
            pool.workers.removeAll { !$0.busy && now - $0.idleSince > PlatformProfile.idleWorkerLifetime }
            let onDemandLimit = profile.kind == .linux ? profile.cpus : PlatformProfile.maximumWorkers
            while let operation = pool.waiting.first {
                let worker: Int
                if let idle = pool.workers.firstIndex(where: { !$0.busy }) {
                    pool.workers[idle].busy = true
                    worker = pool.workers[idle].id
                } else if pool.workers.count < onDemandLimit {
                    worker = nextWorkerID
                    nextWorkerID += 1
                    pool.workers.append(Worker(id: worker, busy: true, idleSince: now))
                } else {
                    break
                }
                pool.waiting.removeFirst()
                pools[serviceClass] = pool
                begin(operation, pool: serviceClass, worker: worker)
                pool = pools[serviceClass]!
            }
            pools[serviceClass] = pool
        }
    }

    mutating func begin(_ operation: Int, pool: ServiceClass?, worker: Int) {
        let end = now + durations[operation]
        spans[operation] = PredictedSpan(label: workload.operations[operation].label, start: now, end: end, lane: worker)
        running.append(Running(operation: operation, end: end, pool: pool, worker: worker))
        if pool == nil { callerBusy = true }
    }

    /// The monitor: for each pool whose work waits while every worker is busy (blocked), one more worker.
    mutating func processTick(_ tick: (index: Int, time: Double)) {
        now = max(now, tick.time)
        ticksDone = tick.index + 1
        for serviceClass in pools.keys {
            var pool = pools[serviceClass]!
            if !pool.waiting.isEmpty, !pool.workers.contains(where: { !$0.busy }), pool.workers.count < PlatformProfile.maximumWorkers {
                pool.workers.append(Worker(id: nextWorkerID, busy: false, idleSince: now))
                nextWorkerID += 1
            }
            pools[serviceClass] = pool
        }
    }

    /// Ends every operation due at `time`: frees its worker and its queue slot.
    mutating func processCompletions(at time: Double) {
        now = max(now, time)
        let due = running.filter { $0.end <= time + 1e-9 }
        running.removeAll { $0.end <= time + 1e-9 }
        for item in due {
            finished[item.operation] = true
            if case .queue(let queueIndex) = workload.operations[item.operation].executor {
                queueRunning[queueIndex] -= 1
            }
            if let serviceClass = item.pool, let index = pools[serviceClass]?.workers.firstIndex(where: { $0.id == item.worker }) {
                pools[serviceClass]!.workers[index].busy = false
                pools[serviceClass]!.workers[index].idleSince = now
            } else if item.pool == nil {
                callerBusy = false
            }
        }
    }
}
