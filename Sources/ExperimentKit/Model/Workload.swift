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
    /// A completion block: Foundation dispatches it to the global default-QoS queue once
    /// its dependencies (the operation it completes) have finished.
    case completionBlock
}

/// An OperationQueue as the experiment configures it.
public struct QueueSpec: Sendable, Equatable {
    public var name: String
    /// `maxConcurrentOperationCount`; nil keeps the queue's default (no limit).
    public var maxConcurrentOperationCount: Int?

    public init(name: String, maxConcurrentOperationCount: Int?) {
        self.name = name
        self.maxConcurrentOperationCount = maxConcurrentOperationCount
    }
}

/// One operation as the model sees it: its label, how long it blocks its thread, where it runs.
public struct PlannedOperation: Sendable, Equatable {
    /// The text the operation prints; also its row in the timeline.
    public var label: String
    /// How long its work blocks the thread it runs on, in article seconds.
    public var articleSeconds: Double
    public var executor: Executor
    /// `qualityOfService` when the experiment sets it; nil leaves the operation's default.
    public var serviceClass: ServiceClass?
    /// Indices of operations that must finish first.
    public var dependencies: [Int]

    public init(label: String, articleSeconds: Double, executor: Executor, serviceClass: ServiceClass? = nil, dependencies: [Int] = []) {
        self.label = label
        self.articleSeconds = articleSeconds
        self.executor = executor
        self.serviceClass = serviceClass
        self.dependencies = dependencies
    }
}

/// The single declaration of what an experiment runs: the model predicts from it and the
/// experiment builds its real operations from it.
public struct Workload: Sendable, Equatable {
    public var queues: [QueueSpec] = []
    /// In the order the experiment adds them.
    public var operations: [PlannedOperation] = []

    public init() {}

    /// Adds a queue and returns its index.
    @discardableResult
    public mutating func addQueue(_ queue: QueueSpec) -> Int {
        queues.append(queue)
        return queues.count - 1
    }

    /// Adds an operation and returns its index.
    @discardableResult
    public mutating func add(_ operation: PlannedOperation) -> Int {
        operations.append(operation)
        return operations.count - 1
    }

    /// The operations that run on the queue at `index`, in the order they are added.
    public func operations(onQueue index: Int) -> [PlannedOperation] {
        operations.filter { $0.executor == .queue(index) }
    }

    /// The operations of the given executor kind, in order.
    public func operations(executedBy executor: Executor) -> [PlannedOperation] {
        operations.filter { $0.executor == executor }
    }
}
