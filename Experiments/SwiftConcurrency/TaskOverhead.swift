import ExperimentKit
import Foundation

/// What starting an empty task costs with an Operation, a Dispatch block and a Swift task
/// (article 000, on choosing between GCD and Operation).
///
/// A CPU benchmark: its length depends on the machine and its load, not on article seconds, and
/// varies by more than the verdict's tolerance from run to run, so it is declared untimed: the
/// model's estimate (``TaskOverheadPlan/workload()``) only sizes the watchdog.
let taskOverhead = Experiment(
    "task-overhead",
    source: ArticleSource(
        file: "000_d66eefb2b922d5e0.txt", section: "Operation OperationQueue GCD (the comparison before the Conclusion)"
    )
) { context, workload in
    let benchmark = workload.operations[0]
    var figures: [OverheadFigure] = []
    // Timed where it runs, as CPU work: the judgement counts what it cost here.
    try context.timeline.computing(benchmark.label) {
        for tasks in TaskOverheadPlan.taskCounts(timeScale: context.timeScale) {
            for mechanism in OverheadMechanism.allCases {
                figures.append(
                    try context.timeline.row(for: mechanism, tasks: tasks) {
                        try OverheadFigure.measure(mechanism, tasks: tasks, repeats: TaskOverheadPlan.repeats)
                    })
            }
        }
    }
    (OverheadFigure.table(figures) + [
        OverheadFigure.precision(figures, repeats: TaskOverheadPlan.repeats, timeScale: context.timeScale)
    ]).forEach(context.print)
    return Outcome(figures.map(\.outcomeField))
}
.title("What one task costs: Operation, Dispatch block, Swift task")
.summary(
    "From the experiment's thread, 10 000 and then 100 000 empty tasks, each only marking its own atomic counter, are started and waited for with each of: a BlockOperation added to an OperationQueue; DispatchQueue.global().async with a DispatchGroup; a child task in a TaskGroup. Each run is repeated \(TaskOverheadPlan.repeats) times; the table gives the median in µs per task, and how far the runs lie from it. Below time scale 1 the counts follow the scale (1 000 and 10 000 at 0.1), so a quick run of everything stays quick; the figures are then a little less precise, and the output says by how much."
)
.claim(
    "In addition, the Dispatch blocks GCD take less time to complete: from nanoseconds to milliseconds, and the operation Operation usually takes from a few milliseconds to minutes.",
    seconds: nil
)
.expectedOutcome(
    "Every task runs exactly once; a Dispatch block costs least, a BlockOperation most, every one of them microseconds to start. The article's ranges, beside them, are how long the work in each lasts, not this cost."
)
.platformDifference(
    "The article's ranges are for the work people put in each, not for what starting one costs, which on any platform is microseconds for all three."
)
.plannedAs(TaskOverheadPlan.workload)
.timing(
    .untimed(reason: "a benchmark: how long it takes is what it measures, and it varies with the machine and its load")
)
.checks { measurement, _ in
    let figures = measurement.outcome.fields.compactMap(OverheadFigure.Reported.init)
    let expected = TaskOverheadPlan.articleTaskCounts.count * OverheadMechanism.allCases.count
    return [
        Check("all \(expected) figures reported", passed: figures.count == expected),
        Check(
            "every task of every run ran exactly once",
            passed: !figures.isEmpty && figures.allSatisfy(\.everyTaskRanOnce)),
        Check(
            "every figure is positive and finite",
            passed: !figures.isEmpty
                && figures.allSatisfy { $0.microsecondsPerTask.allSatisfy { $0 > 0 && $0.isFinite } }),
    ]
}

/// The benchmark's sizes, and its plan for the model.
///
/// Sized to the time scale: a learner who runs everything at 0.1 expects a tenth of the time,
/// and at its full size this benchmark takes the same seconds at every scale. Below scale 1
/// each count is multiplied by the scale (never below ``minimumTasks``); at 1 and above it is
/// the full size (a larger count would measure the same µs per task, only longer). Fewer tasks
/// make each run's figure noisier, so the output states how far the runs lie from their median
/// (``OverheadFigure/precision(_:repeats:timeScale:)``). The other choice, running it only when
/// named, would leave it out of `all`, the run that shows everything the articles compare.
enum TaskOverheadPlan {
    /// The counts at time scale 1 and above.
    static let articleTaskCounts = [10_000, 100_000]
    /// The fewest tasks a run starts: enough that the run lasts milliseconds, not microseconds,
    /// of the clock's resolution.
    static let minimumTasks = 500
    static let repeats = 5
    static let label = "benchmark"

    /// The counts the benchmark runs at `timeScale`.
    static func taskCounts(timeScale: Double) -> [Int] {
        articleTaskCounts.map { max(minimumTasks, Int((Double($0) * min(1, timeScale)).rounded())) }
    }

    /// One blocking operation on the experiment's thread (the model's only such executor is a
    /// block of a started BlockOperation) for the CPU time the benchmark is estimated to take.
    ///
    /// The estimate is what the model can honestly be given, not a prediction the verdict could
    /// hold to ±5 %: it sizes the watchdog and shows the benchmark's rough length. It is made
    /// only in the child that runs the benchmark (``CPUCalibration``), at its time scale;
    /// anywhere else the work is left to measure.
    static func workload() -> Workload {
        var workload = Workload()
        let estimate = CPUCalibration.timeScale.map(estimatedSeconds)
        workload.add(
            PlannedOperation(label: label, articleSeconds: 0, executor: .blockOperationBlock, cpuSeconds: estimate))
        return workload
    }

    /// Each mechanism run once with the smaller count, scaled to every run of the benchmark.
    static func estimatedSeconds(timeScale: Double) -> Double {
        let counts = taskCounts(timeScale: timeScale)
        let allTasks = Double(counts.reduce(0, +) * repeats)
        let smallest = counts.min() ?? 0
        return CPUCalibration.counting {
            OverheadMechanism.allCases.reduce(0) { total, mechanism in
                let seconds = (try? OverheadFigure.secondsPerRun(mechanism, tasks: smallest).seconds) ?? 0
                return total + seconds / Double(smallest) * allTasks
            }
        }
    }
}

extension Timeline {
    /// A detail row for one mechanism at one size, e.g. `TaskGroup × 100 000`.
    fileprivate func row<Value>(for mechanism: OverheadMechanism, tasks: Int, _ body: () throws -> Value) rethrows
        -> Value
    {
        let span = begin("\(mechanism.shortName) × \(OverheadFigure.groupedThousands(tasks))")
        defer { end(span) }
        return try body()
    }
}
