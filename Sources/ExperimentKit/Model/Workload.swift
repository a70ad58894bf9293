/// Quality-of-service classes, as `Operation.qualityOfService` names them.
public enum ServiceClass: String, Sendable, CaseIterable, Codable {
    case userInteractive, userInitiated, `default`, utility, background

    /// The queue priority corelibs gives an operation of this class when none was set
    /// (higher starts first); on a queue of width 1 every operation is normal instead.
    public var derivedQueuePriority: Int {
        switch self {
        case .userInteractive: return 8
        case .userInitiated: return 4
        case .default: return 0
        case .utility: return -4
        case .background: return -8
        }
    }
}

/// How a planned operation is executed.
public enum Executor: Sendable, Equatable {
    /// Added to the OperationQueue at this index of ``Workload/queues``.
    case queue(Int)
    /// An execution block of a `BlockOperation` started with `start()` on the calling thread.
    case blockOperationBlock
    /// A block sent to `DispatchQueue.global(qos:)` once its dependencies have finished. A
    /// completion block is one: Foundation dispatches it to the default-QoS global queue.
    case globalQueue(ServiceClass)
    /// A further execution block of the queued `BlockOperation` planned at this index (which
    /// stands for its first block): corelibs runs the blocks one after another on the thread
    /// that runs the operation; Apple platforms run them concurrently once it starts. The
    /// operation holds its queue slot until its last block ends.
    case executionBlock(of: Int)
}

/// What an operation's work does to the thread that starts it.
public enum Work: Sendable, Equatable {
    /// Blocks the thread it runs on (`sleep`), step after step.
    case blocking
    /// `main()` hands the work to a global queue of this class and returns; the work then blocks
    /// a worker of that pool, step after step, and the operation (an AsyncOperation) finishes
    /// when it ends.
    case handedToPool(ServiceClass)
    /// `main()` starts a timer and returns; no thread is held while it waits. The operation
    /// finishes when the timer fires, or at once when it is cancelled.
    case timer
    /// `main()` returns and the operation never finishes: it stays executing, holding its queue
    /// slot, and whatever waits for it waits forever (a broken AsyncOperation).
    case neverFinishes
}

/// A `cancel()` (of one operation) or `cancelAllOperations()` (of a queue) at an instant.
public struct PlannedCancellation: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case operation(Int)
        case queue(Int)
    }

    /// When the experiment's own thread cancels, in article seconds from the start; at 0 the
    /// cancel comes before the operations are added.
    public var atArticleSeconds: Double
    public var target: Target
}

/// `isSuspended` set on a queue at an instant: while suspended, the queue starts nothing new;
/// what runs goes on.
public struct PlannedSuspension: Sendable, Equatable {
    /// When the experiment's own thread sets it, in article seconds from the start.
    public var atArticleSeconds: Double
    public var queue: Int
    /// The value set: true suspends, false resumes.
    public var isSuspended: Bool
}

/// An OperationQueue as the experiment configures it.
public struct QueueSpec: Sendable, Equatable {
    public var name: String
    /// `maxConcurrentOperationCount`; nil keeps the queue's default (no limit).
    public var maxConcurrentOperationCount: Int?
    /// Created with `isSuspended = true`: nothing starts until a planned resume.
    public var startsSuspended: Bool = false
}

/// One operation as the model sees it: its label, its work, where it runs, what it waits for.
public struct PlannedOperation: Sendable, Equatable {
    /// The text the operation prints; also its row in the timeline.
    public var label: String
    /// How long one step of its work lasts, in article seconds.
    public var articleSeconds: Double
    /// Computing each step adds, in real seconds whatever the time scale: what real CPU work
    /// (an image filter) costs, measured on this machine (0 while ``cpuWorkToMeasure``).
    public var cpuSeconds: Double
    /// The operation does real CPU work that this process has not measured (only a child
    /// calibrates: ``CPUCalibration``): ``cpuSeconds`` leaves it out until the child that runs
    /// it reports its cost (``Workload/counting(_:)``).
    public var cpuWorkToMeasure: Bool
    public var executor: Executor
    /// `qualityOfService` when the experiment sets it; nil leaves the operation's default.
    public var serviceClass: ServiceClass?
    /// `queuePriority` when the experiment sets one other than `.normal`; nil lets the queue
    /// derive it from ``serviceClass``, as Foundation does for an operation whose priority was
    /// never set.
    public var queuePriority: Int?
    /// Indices of operations that must finish first.
    public var dependencies: [Int]
    public var work: Work
    /// How many steps of `articleSeconds` the work takes (a loop over an input array).
    public var steps: Int
    /// Whether the work looks at `isCancelled` before each step and stops when it is set.
    /// (Whatever this says, a cancelled operation that has not started never runs its work.)
    public var checksCancellation: Bool
    /// Operations this one cancels as it starts, those of them not finished by then (article
    /// 004's connectivity alert cancelling the other alerts of its name on its queue).
    public var cancelsWhenStarting: [Int] = []

    public init(
        label: String,
        articleSeconds: Double,
        executor: Executor,
        serviceClass: ServiceClass? = nil,
        dependencies: [Int] = [],
        work: Work = .blocking,
        steps: Int = 1,
        checksCancellation: Bool = false,
        cpuSeconds: Double? = 0
    ) {
        self.label = label
        self.articleSeconds = articleSeconds
        self.cpuSeconds = cpuSeconds ?? 0
        self.cpuWorkToMeasure = cpuSeconds == nil
        self.executor = executor
        self.serviceClass = serviceClass
        self.dependencies = dependencies
        self.work = work
        self.steps = steps
        self.checksCancellation = checksCancellation
    }
}

/// What an experiment runs, as the model sees it: read by the ``Lab`` from the objects an
/// experiment's code builds, or (for the Swift-concurrency counterparts, whose tasks cannot be
/// inspected) declared by hand beside a `run` that follows it.
public struct Workload: Sendable, Equatable {
    public var queues: [QueueSpec] = []
    /// In the order the experiment adds them.
    public var operations: [PlannedOperation] = []
    /// Cancels the experiment's own thread makes, in time order.
    public var cancellations: [PlannedCancellation] = []
    /// Suspensions and resumptions the experiment's own thread makes, in time order.
    public var suspensions: [PlannedSuspension] = []
    /// For a plan read by the ``Lab``: which of the code's objects became which operations, in
    /// the order the code added or started them, so the run can be matched with the plan.
    var registrations: [Lab.Registration] = []

    public init() {}

    /// Adds a queue and returns its index (the Lab does, reading the code's queues; no other
    /// module builds a ``QueueSpec``).
    @discardableResult
    mutating func addQueue(_ queue: QueueSpec) -> Int {
        queues.append(queue)
        return queues.count - 1
    }

    /// Adds an operation and returns its index.
    @discardableResult
    public mutating func add(_ operation: PlannedOperation) -> Int {
        operations.append(operation)
        return operations.count - 1
    }

    /// Adds a cancellation.
    public mutating func cancel(_ target: PlannedCancellation.Target, atArticleSeconds seconds: Double) {
        cancellations.append(PlannedCancellation(atArticleSeconds: seconds, target: target))
        cancellations.sort { $0.atArticleSeconds < $1.atArticleSeconds }
    }

    /// Sets `isSuspended` on a queue at an instant.
    public mutating func setSuspended(_ suspended: Bool, queue: Int, atArticleSeconds seconds: Double) {
        suspensions.append(PlannedSuspension(atArticleSeconds: seconds, queue: queue, isSuspended: suspended))
        suspensions.sort { $0.atArticleSeconds < $1.atArticleSeconds }
    }

    /// The workload with each operation's CPU work at the cost reported for its label (as the
    /// child that ran it measured, or calibrated); operations without a report keep theirs.
    public func counting(_ costs: [CPUCost]) -> Workload {
        var counted = self
        for cost in costs {
            for index in counted.operations.indices where counted.operations[index].label == cost.label {
                counted.operations[index].cpuSeconds = cost.seconds
                counted.operations[index].cpuWorkToMeasure = false
            }
        }
        return counted
    }
}
