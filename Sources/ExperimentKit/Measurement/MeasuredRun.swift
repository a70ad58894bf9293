import ExperimentModel

/// One operation's interval, recorded from inside the operation; also a bar of a chart
/// (`GanttChart.Row`), where a predicted span shows its worker as the thread.
public struct OperationSpan: Sendable, Codable, Equatable {
    /// The text the operation prints, e.g. `Каждый 🍎`.
    public var label: String
    /// Seconds from the experiment's start.
    public var start: Double
    /// Seconds from the experiment's start.
    public var end: Double
    /// A small stable number per thread; 0 is the thread that started the experiment. For a
    /// timer, the thread that set it, which the timer does not hold.
    public var thread: Int
    /// Whether the operation saw itself cancelled.
    public var cancelled: Bool = false
    /// False when the operation was still running as the child was stopped (a hang or a trap):
    /// `end` is then the moment it was stopped.
    public var finished: Bool = true
    /// Where the experiment's code adds or starts the operation (`PlannedOperation.line`);
    /// given to a measured span when a report draws it.
    public var line: SourceLine? = nil
    /// What the row stands for when it is not an operation holding its thread; nil for an
    /// operation.
    public var kind: Kind? = nil
    /// The stretches of the row when its task was suspended (`Task.sleep`) and held no thread;
    /// given to a measured span, from the run's suspended sleeps, when a report draws it.
    public var suspensions: [ClosedRange<Double>]? = nil

    /// A row that holds no thread.
    public enum Kind: String, Sendable, Codable {
        /// A timer's wait (`asyncAfter`), from the call that set it until it fired: no thread
        /// runs anything for it, so it is not an operation that started, nor a thread that ran one.
        case timer
    }

    /// Whether a thread ran the row: false for a timer.
    public var holdsThread: Bool {
        kind == nil
    }

    package init(
        label: String, start: Double, end: Double, thread: Int, cancelled: Bool = false, finished: Bool = true,
        line: SourceLine? = nil, kind: Kind? = nil, suspensions: [ClosedRange<Double>]? = nil
    ) {
        self.label = label
        self.start = start
        self.end = end
        self.thread = thread
        self.cancelled = cancelled
        self.finished = finished
        self.line = line
        self.kind = kind
        self.suspensions = suspensions
    }
}

/// A line the experiment printed, with the time it printed it.
public struct PrintedLine: Sendable, Codable, Equatable, CallSite.Recorded {
    /// Seconds from the experiment's start.
    public var at: Double
    public var text: String
    /// The thread that printed it; ``standardOutputThread`` for a line the experiment's code
    /// wrote to stdout around the instrumented `print` (`Swift.print`, `dump`).
    public var thread: Int
    /// The stack that printed it (`CallSite.Stack`), read for its `line` when one is asked for.
    public var calledFrom: CallSite.Stack? = nil

    /// The thread of a line written to stdout around the instrumented `print`: the runner read
    /// it from the child's stdout, timed at its arrival, and no thread or line of code is known.
    public static let standardOutputThread = -1

    package init(at: Double, text: String, thread: Int, calledFrom: CallSite.Stack? = nil) {
        self.at = at
        self.text = text
        self.thread = thread
        self.calledFrom = calledFrom
    }
}

/// A `sleep` the experiment made, or a `Task.sleep` it awaited, as long as it lasted.
public struct MeasuredSleep: Sendable, Codable, Equatable, CallSite.Recorded {
    /// Seconds from the experiment's start at which it began.
    public var at: Double
    /// How long the thread slept, or the task was suspended, in real seconds.
    public var seconds: Double
    /// The thread that slept; for a suspension, the one the task suspended from (it may resume
    /// on another).
    public var thread: Int
    /// True for a task's `Task.sleep`, which suspends it and holds no thread; nil for a `sleep`,
    /// which blocks its thread.
    public var suspended: Bool? = nil
    /// For a suspension, the row of the task that suspended, when it is known: a task resumes
    /// on whichever thread is free, so its later suspensions begin on threads other than its
    /// row's.
    public var row: String? = nil
    /// The stack that slept, read for its ``line`` when one is asked for.
    public var calledFrom: CallSite.Stack? = nil

    /// Whether it held its thread: false for a suspension.
    public var holdsThread: Bool {
        suspended != true
    }
}

/// Everything one run of an experiment measured, in real seconds.
public struct MeasuredRun: Sendable, Codable, Equatable {
    /// From the experiment's start until it returned, having waited for all its work, or until
    /// it stopped its clock to write its files (``Timeline/stopClock()``); for a child that hung
    /// or trapped, until it was stopped.
    public var totalSeconds: Double
    /// How long adding the operations to their queue took, when the experiment enqueues.
    public var enqueueSeconds: Double?
    /// How long before the clock's start the child first used the thread pool: the settle that
    /// sets the Linux pool monitor's phase (`PoolPriming`); nil when not recorded.
    public var poolSettleSeconds: Double? = nil
    /// Operations in the order they started.
    public var operations: [OperationSpan]
    /// Printed lines in the order they were printed.
    public var output: [PrintedLine]
    /// The sleeps the experiment made, in the order they began.
    public var sleeps: [MeasuredSleep] = []
    /// Experiment-specific results (sums, orders, states).
    public var outcome: Outcome
    /// What the CPU work of each operation that does some cost in this run, in workload order
    /// of first report; empty for experiments that only sleep.
    public var cpuCosts: [CPUCost] = []
    /// Where the run did something its plan did not foresee, one sentence each (see ``Lab``):
    /// the model predicted another experiment than the one that ran.
    public var modelOutOfDate: [String] = []

    /// The run with each span given the line of the planned operation of its label.
    public func locatingOperations(in plan: Workload) -> MeasuredRun {
        var located = self
        var lines: [String: SourceLine] = [:]
        for operation in plan.operations { lines[operation.label] = lines[operation.label] ?? operation.line }
        for index in located.operations.indices {
            located.operations[index].line = lines[located.operations[index].label]
        }
        return located
    }

    /// The span recorded under `label`, if any.
    public func span(_ label: String) -> OperationSpan? {
        operations.first { $0.label == label }
    }

    /// The most operations of the workload that ran at one instant. Rows an experiment adds for
    /// detail (each sum of a loop, say) are not operations of the plan and are not counted, nor
    /// are timers, which run nothing; nor is an operation the plan makes instant
    /// (`PlannedOperation.isInstant`), as the model counts none: a thread preempted on a busy
    /// machine can stretch its few microseconds past `Overlap.touchingSeconds`.
    public func maximumOverlap(of workload: Workload) -> Int {
        let planned = Set(workload.operations.filter { !$0.isInstant }.map(\.label))
        return Overlap.maximum(
            of: operations.filter { $0.holdsThread && planned.contains($0.label) }.map { ($0.start, $0.end) })
    }

    /// Labels in the order their operations started; a timer is not an operation and is left out.
    public var startOrder: [String] {
        operations.filter(\.holdsThread).sorted { $0.start < $1.start }.map(\.label)
    }

    /// The run's spans with the stretches each spent suspended (``OperationSpan/suspensions``):
    /// a suspended sleep belongs to the span of its thread that holds it in time.
    public func showingSuspensions() -> MeasuredRun {
        var shown = self
        for sleep in sleeps where !sleep.holdsThread {
            let stretch = sleep.at...(sleep.at + sleep.seconds)
            let during = { (span: OperationSpan) in span.holdsThread && span.start <= sleep.at && sleep.at <= span.end }
            guard
                let index = sleep.row.map({ row in shown.operations.lastIndex { $0.label == row && during($0) } })
                    ?? shown.operations.lastIndex(where: { $0.thread == sleep.thread && during($0) })
            else { continue }
            shown.operations[index].suspensions = (shown.operations[index].suspensions ?? []) + [stretch]
        }
        return shown
    }

    package init(
        totalSeconds: Double, enqueueSeconds: Double? = nil, poolSettleSeconds: Double? = nil,
        operations: [OperationSpan], output: [PrintedLine], sleeps: [MeasuredSleep] = [], outcome: Outcome,
        cpuCosts: [CPUCost] = [], modelOutOfDate: [String] = []
    ) {
        self.totalSeconds = totalSeconds
        self.enqueueSeconds = enqueueSeconds
        self.poolSettleSeconds = poolSettleSeconds
        self.operations = operations
        self.output = output
        self.sleeps = sleeps
        self.outcome = outcome
        self.cpuCosts = cpuCosts
        self.modelOutOfDate = modelOutOfDate
    }
}
