import ExperimentKit
import Foundation

/// What starting an empty task costs with an Operation, a Dispatch block and a Swift task
/// (article 000, on choosing between GCD and Operation).
///
/// A CPU benchmark: its length depends on the machine and its load, not on article seconds, and
/// varies by more than the verdict's tolerance from run to run, so it is declared untimed: the
/// model's estimate (``TaskOverheadPlan/workload()``) only sizes the watchdog.
let taskOverhead = Experiment(
    name: "task-overhead",
    title: "What one task costs: Operation, Dispatch block, Swift task",
    source: ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Operation OperationQueue GCD (the comparison before the Conclusion)"),
    summary: "From the experiment's thread, 10 000 and then 100 000 empty tasks, each only marking its own atomic counter, are started and waited for with each of: a BlockOperation added to an OperationQueue; DispatchQueue.global().async with a DispatchGroup; a child task in a TaskGroup. Each run is repeated \(TaskOverheadPlan.repeats) times; the table gives the median in µs per task.",
    claim: ArticleClaim(
        quote: "In addition, the Dispatch blocks GCD take less time to complete: from nanoseconds to milliseconds, and the operation Operation usually takes from a few milliseconds to minutes.",
        seconds: nil
    ),
    expectedOutcome: "Every task runs exactly once; a Dispatch block costs least, a BlockOperation most, every one of them microseconds, not the milliseconds the article gives an Operation.",
    platformDifference: "The article's ranges are for the work people put in each, not for what starting one costs, which on any platform is microseconds for all three.",
    workload: TaskOverheadPlan.workload,
    run: { context, workload in
        let benchmark = workload.operations[0]
        var figures: [OverheadFigure] = []
        try context.timeline.operation(benchmark.label) {
            for tasks in TaskOverheadPlan.taskCounts {
                for mechanism in OverheadMechanism.allCases {
                    figures.append(try context.timeline.row(for: mechanism, tasks: tasks) {
                        try OverheadFigure.measure(mechanism, tasks: tasks, repeats: TaskOverheadPlan.repeats)
                    })
                }
            }
        }
        OverheadFigure.table(figures).forEach(context.print)
        return Outcome(figures.map(\.outcomeField))
    },
    timing: .untimed(reason: "a benchmark: how long it takes is what it measures, and it varies with the machine and its load"),
    checks: { measurement, _ in
        let figures = measurement.outcome.fields.compactMap(OverheadFigure.Reported.init)
        let expected = TaskOverheadPlan.taskCounts.count * OverheadMechanism.allCases.count
        return [
            Check("all \(expected) figures reported", passed: figures.count == expected),
            Check("every task of every run ran exactly once", passed: !figures.isEmpty && figures.allSatisfy(\.everyTaskRanOnce)),
            Check("every figure is positive and finite", passed: !figures.isEmpty && figures.allSatisfy { $0.microsecondsPerTask.allSatisfy { $0 > 0 && $0.isFinite } }),
        ]
    }
)

/// The benchmark's sizes, and its plan for the model.
enum TaskOverheadPlan {
    static let taskCounts = [10_000, 100_000]
    static let repeats = 5
    static let label = "benchmark"

    /// One blocking operation on the experiment's thread (the model's only such executor is a
    /// block of a started BlockOperation) for the CPU time the benchmark is estimated to take.
    ///
    /// The estimate is what the model can honestly be given, not a prediction the verdict could
    /// hold to ±5 %: it sizes the watchdog and shows the benchmark's rough length. What the
    /// runner needs before this experiment is registered is a way to declare its total untimed
    /// (no total check against the prediction; the other checks kept).
    static func workload() -> Workload {
        var workload = Workload()
        workload.add(PlannedOperation(label: label, articleSeconds: 0, executor: .blockOperationBlock, cpuSeconds: estimatedSeconds))
        return workload
    }

    /// Each mechanism run once with the smaller count, scaled to every run of the benchmark;
    /// measured once per process (a static is initialised once, on first use).
    static let estimatedSeconds: Double = {
        let allTasks = Double(taskCounts.reduce(0, +) * repeats)
        let smallest = taskCounts.min() ?? 0
        return OverheadMechanism.allCases.reduce(0) { total, mechanism in
            let seconds = (try? OverheadFigure.secondsPerRun(mechanism, tasks: smallest).seconds) ?? 0
            return total + seconds / Double(smallest) * allTasks
        }
    }()
}

extension Timeline {
    /// A detail row for one mechanism at one size, e.g. `TaskGroup × 100 000`.
    fileprivate func row<Value>(for mechanism: OverheadMechanism, tasks: Int, _ body: () throws -> Value) rethrows -> Value {
        let span = begin("\(mechanism.shortName) × \(OverheadFigure.groupedThousands(tasks))")
        defer { end(span) }
        return try body()
    }
}
