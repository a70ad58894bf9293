import ExperimentModel
import Foundation
import Synchronization

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

    static let session = Mutex<Lab?>(nil)
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
    var queueIndices: [ObjectIdentifier: Int] = [:]
    /// Operations are kept alive so their identifiers stay unique until the plan is read.
    var objects: [Operation] = []
    var dependencyIdentities: [[ObjectIdentifier]] = []
    var virtualNow = 0.0
    /// Operations the experiment's own thread waited for: nothing added after the wait can start before them.
    var awaited: [Int] = []
    /// Planned operations whose cancel the rehearsal has read.
    var cancelledOperations: Set<Int> = []
    /// DispatchQueues the code made, serial and `.concurrent` (see ``madeQueue(_:serial:)``),
    /// kept alive with the session.
    var serialQueues: [DispatchQueue] = []
    var concurrentQueues: [DispatchQueue] = []
    /// Rehearsal: for each DispatchQueue of the code's own (by its plan index), the blocks sent
    /// to it since its last barrier, and that barrier (see ``orderAfter(on:barrier:)``).
    var ownQueueOrder: [Int: (sinceBarrier: [Int], barrier: Int?)] = [:]
    /// Both: the DispatchQueues of the code's own the experiment's thread sent blocks to.
    var ownQueuesSentTo: Set<ObjectIdentifier> = []
    /// Both: the planned block of each DispatchWorkItem sent to a queue, and the items
    /// performed in place (see ``Lab/dispatching(_:to:group:submit:)``).
    var workItems: [ObjectIdentifier: Int] = [:]
    var performedWorkItems: Set<ObjectIdentifier> = []
    /// Both: the DispatchWorkItems sent where the plan does not hold them (``Lab/sendingUnplanned(_:)``).
    var unplannedWorkItems: Set<ObjectIdentifier> = []
    /// Both: the QoS and flags each DispatchWorkItem was made with (``madeWorkItem(_:qos:flags:)``),
    /// which Dispatch does not give back; the items are kept alive in `synchroniserObjects`.
    var workItemAttributes: [ObjectIdentifier: (qos: DispatchQoS, flags: DispatchWorkItemFlags)] = [:]
    /// Dependencies the code removed (`removeDependency(_:)`), both objects kept alive so their
    /// identifiers stay unique until the plan is read.
    var removals: [(dependent: Operation, dependency: Operation)] = []
    /// Queued operations whose `main()` (and completion block) are still to be rehearsed: at
    /// the experiment's next wait, or its end, once what they depend on has been (so a
    /// dependent finds what its dependencies made, as in the run).
    var pendingMains: [Int] = []
    /// The last sleep of the experiment's own thread planned as an operation (after a wait).
    var lastSegment: Int?
    /// Planned operations whose work loops until it is cancelled (see
    /// ``RecordedWork/loopsUntilCancelled``): each needs a cancel, or the plan cannot end it.
    var loopingUntilCancelled: [Int] = []
    /// What the code does that the plan cannot contain.
    var unmodelled: [UnmodelledConstruct] = []
    /// Rehearsal: the planned operation of each task the experiment's thread started, by its handle.
    var plannedTasks: [AnyHashable: Int] = [:]
    /// Rehearsal: whether a task's body did not end in its time; no later task is waited for.
    var aTaskDidNotEnd = false
    // Run, in a learner's code: its asynchronous operations, and the operations work they handed
    // off added to queues (see ``handOff()``).
    var asynchronousRows: [AsynchronousRow] = []
    var handOffOperations: [ObjectIdentifier: HandedOff] = [:]
    /// Where a learner's code set each operation's completion block (see ``settingCompletion(of:)``).
    var completionSites: [ObjectIdentifier: String] = [:]
    /// `OperationQueue.main` as the code gets it (``mainQueue(_:)``).
    var mainQueueStandIn: OperationQueue?
    // Run, in a learner's code: the queues it added to, the operations whose completion blocks
    // have not ended, and a group every block it handed to Dispatch is in until it ends.
    var queuesUsed: [OperationQueue] = []
    var pendingCompletions: Set<ObjectIdentifier> = []
    let unfinished = DispatchGroup()
    // Both: the experiment's own thread, and whether it has waited since its instant was last
    // known (``advance(toArticleSeconds:)`` makes it known again).
    var experimentThread: ObjectIdentifier?
    var waited = false
    // Run: how many of the plan's sleeps of the experiment's thread the run has made.
    var segmentsFollowed = 0
    // Both: which planned operations an object became, in the order objects were registered.
    var registered: [ObjectIdentifier: Workload.Registration] = [:]
    var registrations: [Workload.Registration] = []
    // Run: the cursor into the rehearsal's registrations, and when adding began and ended.
    var nextRegistration = 0
    var enqueueStart: Double?
    var enqueueEnd: Double?
    var enqueueRecorded = false
    /// What the rehearsal knows of each group and semaphore the code uses.
    var synchronisers: [ObjectIdentifier: Synchroniser] = [:]
    /// The groups and semaphores the code made, kept alive so their identifiers stay unique.
    var synchroniserObjects: [AnyObject] = []

    init(mode: Mode, context: RunContext, plan: Workload?, isLearners: Bool) {
        self.mode = mode
        self.context = context
        self.plan = plan
        self.isLearners = isLearners
        self.planned = plan?.registrations ?? []
    }

    /// The rehearsal's registrations, which a run follows.
    let planned: [Workload.Registration]

    /// Runs `body` while no session is open in this process and none can open, so the
    /// instrumented types in it behave as Foundation's own: a session opened meanwhile by
    /// other code of the process (a test rehearsing in parallel) would hold what `body` adds.
    package static func withNoSessionOpen<T>(_ body: () throws -> T) rethrows -> T {
        exclusive.lock()
        defer { exclusive.unlock() }
        return try body()
    }

    static func open<T>(_ lab: Lab, _ body: () throws -> T) rethrows -> T {
        exclusive.lock()
        lab.lock.withLock { lab.experimentThread = ObjectIdentifier(Thread.current) }
        session.withLock { $0 = lab }
        defer {
            session.withLock { $0 = nil }
            exclusive.unlock()
        }
        return try body()
    }

    // MARK: Run

    /// Runs `code` for real, following `plan` (its rehearsal, read before the clock started),
    /// and returns the outcome every scheduling experiment reports. Objects the plan has that
    /// the run never built are drift. The clock stops once the code has returned and its work
    /// has ended: what the lab does after (closing its session, its last checks against the
    /// plan) is the instrument's, not the experiment's.
    public static func run(
        _ code: (RunContext) throws -> Void, context: RunContext, plan: Workload, isLearners: Bool = false
    ) throws -> Outcome {
        let lab = Lab(mode: .running, context: context, plan: plan, isLearners: isLearners)
        try open(lab) {
            try code(context)
            lab.waitForWhatTheCodeStarted()
            context.timeline.stopClock()
        }
        lab.waiting()
        let (seen, slept) = lab.lock.withLock { (lab.nextRegistration, lab.segmentsFollowed) }
        for registration in lab.planned.dropFirst(seen) {
            lab.drift(
                "'\(plan.operations[registration.operations[0]].label)' is in the plan, but the run never \(registration.kind.verb) it"
            )
        }
        for segment in plan.operations.filter({ $0.executor == .experimentThread }).dropFirst(slept) {
            lab.drift("'\(segment.label)' is in the plan, but the experiment's thread never made that sleep")
        }
        return context.timeline.scheduleOutcome()
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
        case .task: return "started as a task"
        }
    }

    func phrase(_ plan: Workload) -> String {
        switch self {
        case .queued(let queue): return "added to '\(plan.queues[safe: queue]?.name ?? "queue \(queue + 1)")'"
        case .started: return "started with start()"
        case .dispatched: return "sent to a global DispatchQueue"
        case .task: return "started as a Task"
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

    /// The class a task's priority runs at: Swift's `TaskPriority` values are the QoS classes'
    /// (`.high` is `.userInitiated`'s 25, `.medium` the default's 21, `.low` utility's 17).
    public init(_ priority: TaskPriority) {
        switch priority.rawValue {
        case 33...: self = .userInteractive
        case 25..<33: self = .userInitiated
        case 21..<25: self = .default
        case 17..<21: self = .utility
        default: self = .background
        }
    }
}
