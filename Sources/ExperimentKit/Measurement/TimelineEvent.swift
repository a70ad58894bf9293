import Dispatch
import ExperimentModel

/// One thing recorded while an experiment runs. A child process streams these to the runner as
/// JSON lines the moment they happen, so a child that hangs or traps still leaves its timeline.
public enum TimelineEvent: Sendable, Codable, Equatable {
    /// The experiment's clock started at this reading of the system's monotonic clock, this
    /// long after the process first used the thread pool (nil: not recorded).
    case clockStarted(uptimeNanoseconds: UInt64, poolSettleSeconds: Double? = nil)
    /// An operation, or a row that holds no thread (`kind`), began; it has not ended yet.
    case began(label: String, at: Double, thread: Int, kind: OperationSpan.Kind? = nil)
    /// An operation ended.
    case ended(OperationSpan)
    case printed(PrintedLine)
    /// A `sleep`, or a `Task.sleep`'s suspension, ended.
    case slept(MeasuredSleep)
    /// Adding the operations to their queues took this long.
    case enqueued(seconds: Double)
    /// One experiment-specific result.
    case outcome(Outcome.Field)
    /// What an operation's CPU work cost: calibrated in the child (see `CPUCost.Source`), or
    /// timed around the work while it ran.
    case cpuCost(CPUCost)
    /// The experiment returned, having waited for all its work.
    case finished(totalSeconds: Double)
    /// The run did something its plan did not foresee (see ``Lab``): one sentence saying what.
    case modelOutOfDate(String)
}

/// Builds a ``MeasuredRun`` from timeline events, complete or up to the moment a child was stopped.
public struct MeasuredRunAssembler: Sendable {
    private var clockOrigin: UInt64?
    private var poolSettleSeconds: Double?
    private var open: [(label: String, at: Double, thread: Int, kind: OperationSpan.Kind?)] = []
    private var spans: [OperationSpan] = []
    private var lines: [PrintedLine] = []
    private var sleeps: [MeasuredSleep] = []
    private var enqueueSeconds: Double?
    private var outcome = Outcome()
    private var totalSeconds: Double?
    /// Per label: the calibrated figure, or the sum and count of the timings made in the run
    /// (which replace the calibration).
    private var costs: [(label: String, seconds: Double, count: Int, source: CPUCost.Source)] = []
    private var drift: [String] = []

    public init() {}

    public mutating func add(_ event: TimelineEvent) {
        switch event {
        case .clockStarted(let origin, let settle):
            clockOrigin = origin
            poolSettleSeconds = settle
        case .began(let label, let at, let thread, let kind):
            open.append((label, at, thread, kind))
        case .ended(let span):
            if let index = open.firstIndex(where: { $0.label == span.label && $0.at == span.start }) {
                open.remove(at: index)
            }
            spans.append(span)
        case .printed(let line):
            lines.append(line)
        case .slept(let sleep):
            sleeps.append(sleep)
        case .enqueued(let seconds):
            enqueueSeconds = seconds
        case .outcome(let field):
            outcome.set(field.key, field.value)
        case .finished(let total):
            totalSeconds = total
        case .cpuCost(let cost):
            guard let index = costs.firstIndex(where: { $0.label == cost.label }) else {
                costs.append((cost.label, cost.seconds, 1, cost.source))
                return
            }
            switch (costs[index].source, cost.source) {
            case (.measured, .measured):
                costs[index].seconds += cost.seconds
                costs[index].count += 1
            case (.calibrated, _):
                costs[index] = (cost.label, cost.seconds, 1, cost.source)
            case (.measured, .calibrated):
                break
            }
        case .modelOutOfDate(let difference):
            drift.append(difference)
        }
    }

    /// Whether the experiment returned.
    public var isFinished: Bool {
        totalSeconds != nil
    }

    /// Seconds on the experiment's clock at `instant`, when the clock's origin is known.
    public func experimentSeconds(at instant: DispatchTime) -> Double? {
        clockOrigin.map { Double(instant.uptimeNanoseconds &- $0) / 1e9 }
    }

    /// The measurement: complete when the experiment finished; otherwise up to `stoppedAt`
    /// (experiment seconds), with operations still running shown as unfinished. Nil when
    /// nothing was recorded.
    public func measurement(stoppedAt: Double?) -> MeasuredRun? {
        guard let total = totalSeconds ?? stoppedAt else { return nil }
        let unfinished = open.map {
            OperationSpan(label: $0.label, start: $0.at, end: total, thread: $0.thread, finished: false, kind: $0.kind)
        }
        return MeasuredRun(
            totalSeconds: total,
            enqueueSeconds: enqueueSeconds,
            poolSettleSeconds: poolSettleSeconds,
            operations: (spans + unfinished).sorted { $0.start < $1.start },
            output: lines.sorted { $0.at < $1.at },
            sleeps: sleeps.sorted { $0.at < $1.at },
            outcome: outcome,
            cpuCosts: costs.map { CPUCost(label: $0.label, seconds: $0.seconds / Double($0.count), source: $0.source) },
            modelOutOfDate: drift
        )
    }
}
