// The state of one simulated run: its workers, pools, running work and progress, and its timeline.

/// The state of one simulated run; a value, so a branch is a copy, and two branches that reach
/// equal states go on alike.
struct Simulation: Hashable {
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
        /// A `concurrentPerform` continuation (``Executor/concurrentPerformIteration(firstAt:)``):
        /// the worker that takes it claims the call's next iteration, `operation` being its first.
        var claimsIteration = false
    }

    struct Pool: Equatable {
        var workers: [Worker] = []
        var waiting: [PoolItem] = []
    }

    /// One of Dispatch's root queues: a class's pool of workers, the ordinary one or the
    /// overcommit one a serial DispatchQueue targets (libdispatch, `src/queue.c`: serial queues
    /// default to overcommit), which gives each waiting block a thread at once (up to 255 on
    /// Linux) instead of one a CPU and the monitor's.
    struct PoolKey: Hashable {
        var serviceClass: ServiceClass
        var overcommits = false
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
        var pool: PoolKey?
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
    var pools: [PoolKey: Pool] = [:]
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
        // What the experiment's thread adds to a queue or sends to a global queue, and the
        // iterations of its `concurrentPerform`, are added in program order
        // (``addOperationsInOrder(workersWakeAfterAdd:)``): a block sent after the adds reaches
        // the pool behind the operations they started.
        added = workload.operations.map {
            switch $0.executor {
            case .queue, .globalQueue, .concurrentPerformIteration: return false
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
        let instants =
            workload.cancellations.map(\.atArticleSeconds) + workload.suspensions.map(\.atArticleSeconds) + [
                workload.experimentThreadArticleSeconds
            ]
        return (instants.max() ?? 0) * timeScale
    }

    /// One step of the operation's work: its sleep at this scale, plus its CPU work where that
    /// is known (work still to measure counts nothing until the child reports it).
    func stepSeconds(_ operation: Int) -> Double {
        let planned = workload.operations[operation]
        return planned.articleSeconds * timeScale + (planned.cpuSeconds ?? 0)
    }
}
