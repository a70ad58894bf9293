/// Quality-of-service classes, as `Operation.qualityOfService` names them.
public enum ServiceClass: String, Sendable, CaseIterable, Codable {
    case userInteractive, userInitiated, `default`, utility, background

    /// The queue priority corelibs gives an operation of this class when none was set
    /// (higher starts first); on a queue of width 1 such an operation is normal instead.
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
public enum Executor: Sendable, Equatable, Codable {
    /// Added to the OperationQueue at this index of ``Workload/queues``.
    case queue(Int)
    /// An execution block of a `BlockOperation` started with `start()` on the calling thread;
    /// also the `main()` of another operation started so (an `Operation` subclass's, or an
    /// AsyncOperation's, whose work, handed to the pool, frees the calling thread at once).
    case blockOperationBlock
    /// A block sent to `DispatchQueue.global(qos:)` once its dependencies have finished. A
    /// completion block is one: Foundation dispatches it to the default-QoS global queue.
    case globalQueue(ServiceClass)
    /// A further execution block of the queued `BlockOperation` planned at this index (which
    /// stands for its first block): corelibs runs the blocks one after another on the thread
    /// that runs the operation; Apple platforms run them concurrently once it starts. The
    /// operation holds its queue slot until its last block ends.
    case executionBlock(of: Int)
    /// A `sleep` of the experiment's own thread made after it waited (for a queue, an operation,
    /// a group): it begins when what the thread waited for has ended, so its instant is the
    /// model's to find, and what the thread adds after it waits for it.
    case experimentThread
    /// An iteration of a `DispatchQueue.concurrentPerform` call whose first iteration is planned
    /// at this index (a call's iterations are planned one after another, in index order).
    /// libdispatch (`dispatch_apply_f` in `src/apply.c`) takes as many threads as iterations, at
    /// most one per active CPU: the calling thread, and the rest as continuations pushed to the
    /// default global pool, each of which, once a worker takes it, claims iterations in index
    /// order until none is left; the calling thread claims them so too, then waits for the last
    /// to end. A continuation that finds none left ends at once.
    case concurrentPerformIteration(firstAt: Int)
}

/// What an operation's work does to the thread that starts it.
public enum Work: Sendable, Equatable, Codable {
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
public struct PlannedCancellation: Sendable, Equatable, Codable {
    public enum Target: Sendable, Equatable, Codable {
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
public struct PlannedSuspension: Sendable, Equatable, Codable {
    /// When the experiment's own thread sets it, in article seconds from the start.
    public var atArticleSeconds: Double
    public var queue: Int
    /// The value set: true suspends, false resumes.
    public var isSuspended: Bool
}

/// An OperationQueue as the experiment configures it, or a DispatchQueue of the code's own
/// (`DispatchQueue(label:)`): serial, of width 1, or `.concurrent`, without a limit. A
/// DispatchQueue has no priorities: what it is sent has none set, so it starts in the order
/// sent, as Dispatch's queues are FIFO.
public struct QueueSpec: Sendable, Equatable, Codable {
    public var name: String
    /// `maxConcurrentOperationCount`; nil keeps the queue's default (no limit).
    public var maxConcurrentOperationCount: Int?
    /// Created with `isSuspended = true`: nothing starts until a planned resume.
    public var startsSuspended: Bool = false
    /// Its work runs on the overcommit pool of its class, which gives each block a thread at
    /// once: a serial DispatchQueue's (libdispatch, `src/queue.c`: serial queues default to
    /// overcommit, and an overcommit root queue's pool holds up to 255 threads where the other
    /// holds one a CPU).
    public var overcommits: Bool = false
    /// Swift concurrency's cooperative pool, where the code's tasks run: one task a CPU at once in
    /// both profiles (the Swift runtime's global executor: a queue of width
    /// `DISPATCH_QUEUE_WIDTH_MAX_LOGICAL_CPUS` on Linux, one thread per core on Apple
    /// platforms), however long they block. A task suspended in a timer (`Task.sleep`) holds no
    /// place meanwhile.
    public var isCooperativePool: Bool = false
    /// For the cooperative pool, the class of its tasks' priority: on Linux its queue runs on
    /// that class's root pool, sharing its workers with `DispatchQueue.global(qos:)`.
    public var priorityClass: ServiceClass = .default

    package init(
        name: String, maxConcurrentOperationCount: Int? = nil, startsSuspended: Bool = false, overcommits: Bool = false,
        isCooperativePool: Bool = false, priorityClass: ServiceClass = .default
    ) {
        self.name = name
        self.maxConcurrentOperationCount = maxConcurrentOperationCount
        self.startsSuspended = startsSuspended
        self.overcommits = overcommits
        self.isCooperativePool = isCooperativePool
        self.priorityClass = priorityClass
    }
}

/// What an operation's work does, for the model: how long each step lasts, how many steps, what
/// the work does to its thread, and whether it looks at `isCancelled` between steps. An
/// operation class declares it (`ModelledOperation`), or the `Lab` learns it by rehearsing
/// the operation's blocks; each ``PlannedOperation`` holds one.
public struct ModelledWork: Sendable, Equatable, Codable {
    /// How long one step of the work lasts, in article seconds.
    public var articleSeconds: Double
    /// How many steps of `articleSeconds` the work takes (a loop over an input array).
    public var steps: Int
    /// What the work does to the thread that starts it.
    public var work: Work
    /// Whether the work looks at `isCancelled` before each step and stops when it is set.
    /// (Whatever this says, a cancelled operation that has not started never runs its work.)
    public var checksCancellation: Bool
    /// Real CPU work (an image filter) each step adds, in real seconds whatever the time scale:
    /// the calibration made in this process, or nil for work this process does not calibrate
    /// (`CPUCalibration`: only a child does). The operation times the real work where it runs
    /// (`Timeline.computing(_:after:_:)`, under its plan label), reports it, and the prediction
    /// is made again from that figure (``Workload/counting(_:)``); until then the model counts
    /// nothing for it (``PlannedOperation/cpuWorkToMeasure``).
    public var cpuSeconds: Double?
    /// As its work starts, it cancels the other operations of its queue that have its `name`
    /// (article 004's mutually exclusive alerts, found by name): what its `main()` does, which a
    /// rehearsal cannot call. The `Lab` finds those operations for the model
    /// (``PlannedOperation/cancelsWhenStarting``).
    public var cancelsOthersOfItsName: Bool
    /// Work it starts and does not wait for, which goes on after it has finished; the `Lab`
    /// plans it as an operation of its own.
    public var outliving: OutlivingWork?

    // Written out because the Experiments module declares the work of its operation classes
    // (the compiler's memberwise initialiser is internal).
    public init(
        articleSeconds: Double, steps: Int = 1, work: Work = .blocking, checksCancellation: Bool = false,
        cpuSeconds: Double? = 0, cancelsOthersOfItsName: Bool = false, outliving: OutlivingWork? = nil
    ) {
        self.articleSeconds = articleSeconds
        self.steps = steps
        self.work = work
        self.checksCancellation = checksCancellation
        self.cpuSeconds = cpuSeconds
        self.cancelsOthersOfItsName = cancelsOthersOfItsName
        self.outliving = outliving
    }
}

/// Work an operation starts and does not wait for (the 2017 ImageLoadOperation's download, still
/// under way when the operation has finished): planned as a row of its own, labelled `label`,
/// sent to the default global queue when the operation ends. The operation draws that row itself.
public struct OutlivingWork: Sendable, Equatable, Codable {
    public var label: String
    public var articleSeconds: Double
    public var work: Work

    public init(label: String, articleSeconds: Double, work: Work) {
        self.label = label
        self.articleSeconds = articleSeconds
        self.work = work
    }
}

/// One operation as the model sees it: its label, where it runs, what it waits for, and its
/// work, whose fields read as its own (`planned.steps` is `planned.modelledWork.steps`).
@dynamicMemberLookup
public struct PlannedOperation: Sendable, Equatable, Codable, CallSite.Recorded {
    /// The text the operation prints; also its row in the timeline.
    public var label: String
    public var executor: Executor
    /// `qualityOfService` when the experiment sets it; nil leaves the operation's default.
    public var serviceClass: ServiceClass?
    /// `queuePriority` when the experiment sets one other than `.normal`; nil lets the queue
    /// derive it from ``serviceClass``, as Foundation does for an operation whose priority was
    /// never set. A priority set counts on a queue of any width, a derived one not on width 1.
    public var queuePriority: Int?
    /// Indices of operations that must finish first.
    public var dependencies: [Int]
    /// Operations this one cancels as it starts, those of them not finished by then (article
    /// 004's connectivity alert cancelling the other alerts of its name on its queue).
    public var cancelsWhenStarting: [Int] = []
    /// A dependency was taken off it with `removeDependency(_:)` before that dependency
    /// finished. corelibs takes it off the list but keeps the count of unfinished dependencies
    /// that `addDependency(_:)` raised, so under `linux` the operation is never ready unless it
    /// is cancelled (`cancel()` clears the count); Apple's Foundation forgets the dependency.
    public var hasRemovedDependency = false
    /// What its work does: as its class declares it, as the `Lab` rehearsed it, or as a plan
    /// written by hand states it.
    public var modelledWork: ModelledWork
    /// When the experiment's own thread adds it, in article seconds from the start, when that is
    /// later than the start: the thread slept before the add.
    public var addedAtArticleSeconds: Double = 0
    /// The stack that adds or starts it (a completion block's and work left running's: their
    /// operation's), read for its `line`; nil for a plan written by hand.
    public var calledFrom: CallSite.Stack? = nil

    /// A field of its work, read or set as the operation's own.
    public subscript<Value>(dynamicMember field: WritableKeyPath<ModelledWork, Value>) -> Value {
        get { modelledWork[keyPath: field] }
        set { modelledWork[keyPath: field] = newValue }
    }

    /// Its work takes no time in the model (it ends the instant it begins, as work done inside
    /// `main()` with no sleep does), so it never counts among the operations that run at once.
    public var isInstant: Bool {
        modelledWork.articleSeconds == 0 && modelledWork.cpuSeconds == 0 && modelledWork.work == .blocking
    }

    /// The operation does real CPU work that this process has not measured (only a child
    /// calibrates: `CPUCalibration`); the model counts it once the child that runs it reports
    /// its cost (``Workload/counting(_:)``).
    public var cpuWorkToMeasure: Bool {
        modelledWork.cpuSeconds == nil
    }

    package init(
        label: String, executor: Executor, serviceClass: ServiceClass? = nil, queuePriority: Int? = nil,
        dependencies: [Int], cancelsWhenStarting: [Int] = [], modelledWork: ModelledWork,
        addedAtArticleSeconds: Double = 0, calledFrom: CallSite.Stack? = nil
    ) {
        self.label = label
        self.executor = executor
        self.serviceClass = serviceClass
        self.queuePriority = queuePriority
        self.dependencies = dependencies
        self.cancelsWhenStarting = cancelsWhenStarting
        self.modelledWork = modelledWork
        self.addedAtArticleSeconds = addedAtArticleSeconds
        self.calledFrom = calledFrom
    }
}

extension PlannedOperation {
    /// An operation declared by hand (a Swift-concurrency counterpart's plan, a test's), with
    /// its work's fields.
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
        let modelledWork = ModelledWork(
            articleSeconds: articleSeconds, steps: steps, work: work, checksCancellation: checksCancellation,
            cpuSeconds: cpuSeconds)
        self.init(
            label: label, executor: executor, serviceClass: serviceClass, dependencies: dependencies,
            modelledWork: modelledWork)
    }
}

/// What an experiment runs, as the model sees it: read by the `Lab` from the objects an
/// experiment's code builds, or (for the Swift-concurrency counterparts, whose tasks cannot be
/// inspected) declared by hand beside a `run` that follows it.
public struct Workload: Sendable, Equatable, Codable {
    public var queues: [QueueSpec] = []
    /// In the order the experiment adds them.
    public var operations: [PlannedOperation] = []
    /// Cancels the experiment's own thread makes, in time order.
    public var cancellations: [PlannedCancellation] = []
    /// Suspensions and resumptions the experiment's own thread makes, in time order.
    public var suspensions: [PlannedSuspension] = []
    /// The last instant the experiment's own thread is known to reach by its sleeps, in article
    /// seconds (a sleep after a wait is a planned operation of its own): the run lasts at least
    /// that long.
    public var experimentThreadArticleSeconds: Double = 0
    /// For a plan read by the `Lab`: which of the code's objects became which operations, in
    /// the order the code added or started them, so the run can be matched with the plan.
    package var registrations: [Registration] = []
    /// What the code does that no plan can contain, each with its call site: an experiment with
    /// any is judged `unmodelled`, not against a prediction that leaves them out.
    public var unmodelled: [UnmodelledConstruct] = []

    public init() {}

    /// Adds a queue and returns its index (the Lab does, reading the code's queues; no other
    /// module builds a ``QueueSpec``).
    @discardableResult
    package mutating func addQueue(_ queue: QueueSpec) -> Int {
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
            }
        }
        return counted
    }
}

extension Workload {
    /// How an object entered the plan: added to a queue, started with `start()`, or (a block)
    /// sent to a global queue. A plan read by the lab keeps these (``Workload/registrations``),
    /// so its run can tell which object is which.
    package struct Registration: Sendable, Equatable, Codable {
        package enum Kind: Sendable, Equatable, Codable {
            case queued(queue: Int)
            case started
            /// A block the experiment's thread sent to a global queue (`DispatchQueue.global().async`).
            case dispatched
            /// A task the experiment's thread started (`Task { … }`, `Task.detached { … }`).
            case task
        }
        package var kind: Kind
        /// The planned operation the object is (queued), or its blocks' (started).
        package var operations: [Int]
        /// Its completion block's planned operation, if it has one.
        package var completion: Int?
        /// A task whose body both blocks and suspends: its operations are a chain of steps, each
        /// after the one before, whatever else they wait for.
        package var isChainOfSteps: Bool
        /// A chain of steps whose body starts `async let` children: each child's steps, in the
        /// order the body declares them; nil for a task without.
        package var asyncLets: [AsyncLetChild]?

        /// An `async let`'s child: the line that declares it (`Probe.swift:12`) and the return
        /// address of its frame there, which the stack of the child's first call holds (nil
        /// when its calls do not show it, and the children are alike), and its chain of steps.
        package struct AsyncLetChild: Sendable, Equatable, Codable {
            package var site: String?
            package var frame: UInt64?
            package var steps: [Int]

            package init(site: String?, frame: UInt64?, steps: [Int]) {
                self.site = site
                self.frame = frame
                self.steps = steps
            }
        }

        package init(
            kind: Kind, operations: [Int], completion: Int?, isChainOfSteps: Bool = false,
            asyncLets: [AsyncLetChild]? = nil
        ) {
            self.kind = kind
            self.operations = operations
            self.completion = completion
            self.isChainOfSteps = isChainOfSteps
            self.asyncLets = asyncLets
        }

        /// A task that opens a group: its first operation is its own row, which waits for its
        /// children, the others.
        package var hostsATaskGroup: Bool {
            kind == .task && operations.count > 1 && !isChainOfSteps
        }
    }
}

/// Something an experiment's code does that the plan cannot contain (a wait on a semaphore no
/// planned work signals, a cancel made after a wait whose end the rehearsal cannot know): the
/// model names it, with the line that does it, rather than predict without it.
public struct UnmodelledConstruct: Sendable, Equatable, Codable {
    /// The call, as the code writes it: `DispatchSemaphore.wait()`.
    public var construct: String
    /// Where the code makes it, `Probe.swift:22`; nil where the call site cannot be read.
    public var site: String?
    /// Why the plan cannot contain it: `the plan cannot tell what it waits for`.
    public var why: String

    public init(construct: String, site: String?, why: String) {
        self.construct = construct
        self.site = site
        self.why = why
    }

    /// `DispatchSemaphore.wait() at Probe.swift:22: the plan cannot tell what it waits for`.
    public var sentence: String {
        construct + (site.map { " at \($0)" } ?? "") + ": \(why)"
    }
}
