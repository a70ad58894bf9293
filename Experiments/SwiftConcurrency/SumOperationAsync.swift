import ExperimentKit

/// Six additions as child tasks of a task group: the Swift-concurrency counterpart of
/// ``sumOperationExperiment``.
let sumOperationAsync = Experiment("sum-operation-async", source: ModernCounterpart.source(of: sumOperationExperiment))
{ context, workload in
    let additions = Array(zip(Summing.asyncPairs, workload.operations.map(\.articleSeconds)))
    let sums = try AwaitFromRun.wait {
        try await withThrowingTaskGroup(of: (index: Int, sum: Int).self) { group in
            for (index, (pair, seconds)) in additions.enumerated() {
                group.addTask { (index, try await AsyncSumming.add(pair, articleSeconds: seconds, in: context)) }
            }
            var completed: [(index: Int, sum: Int)] = []
            for try await addition in group {
                context.print("\(Summing.label(additions[addition.index].0)) = \(addition.sum)")
                completed.append(addition)
            }
            return completed
        }
    }
    let inInputOrder = sums.sorted { $0.index < $1.index }.map(\.sum)
    return Outcome([
        Outcome.Field("inputOrder", .strings(Summing.asyncPairs.map(Summing.label))),
        Outcome.Field("completionOrder", .strings(sums.map { Summing.label(Summing.asyncPairs[$0.index]) })),
        Outcome.Field("sums", Summing.value(inInputOrder)),
    ])
}
.title("Six additions in a TaskGroup")
.summary(
    "One child task per pair of (1,5) (5,8) (6,1) (3,9) (6,12) (1,0): each awaits Task.sleep for 1 s and returns the sum. The group's owner receives the sums as the children finish and prints \"l + r = sum\", as SumOperation's completion blocks do. Compare sum-operation, whose asyncAdd blocks a thread of the pool with sleep(1)."
)
.expectedOutcome(
    "Every sum is correct and all six finish together after one sleep, about 1 s, in an order of their own."
)
.platformDifference(ModernCounterpart.platformDifference)
.plannedAs {
    var workload = Workload()
    for pair in Summing.asyncPairs {
        // Awaiting Task.sleep holds no thread: a timer to the model.
        workload.add(
            PlannedOperation(
                label: Summing.label(pair), articleSeconds: Summing.secondsPerSum, executor: .globalQueue(.default),
                work: .timer))
    }
    return workload
}
.checks { measurement, prediction in
    sumOperationExperiment.checks(measurement, prediction) + [
        ModernCounterpart.beside(sumOperationExperiment, prediction)
    ]
}
