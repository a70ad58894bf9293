import ExperimentKit

// swift-format-ignore
// Six additions as child tasks of a task group, each awaiting `Task.sleep(1 s)`: the Swift-concurrency counterpart of ``sumOperationExperiment``.
let sumOperationAsync = Experiment("sum-operation-async", source: ModernCounterpart.source(of: sumOperationExperiment)) { _ in
    Task {
        await withTaskGroup(of: (Int, Int, Int).self) { group in
            for (lhs, rhs) in [(1, 5), (5, 8), (6, 1), (3, 9), (6, 12), (1, 0)] {
                group.addTask {
                    print("\(lhs) + \(rhs)")
                    try? await Task.sleep(for: .seconds(1))
                    return (lhs, rhs, lhs + rhs)
                }
            }
            // The group's owner prints each sum as it arrives, as SumOperation's completion block does.
            for await (lhs, rhs, sum) in group {
                print("\(lhs) + \(rhs) = \(sum)")
            }
        }
    }
}
.title("Six additions in a TaskGroup")
.summary(
    "One child task per pair of (1,5) (5,8) (6,1) (3,9) (6,12) (1,0): each prints its pair, awaits try await Task.sleep for 1 s, which suspends it and holds no thread, and returns the sum. The group's owner receives the sums as the children finish and prints \"l + r = sum\", as SumOperation's completion blocks do. Compare sum-operation, whose asyncAdd blocks a thread of the pool with sleep(1)."
)
.expectedOutcome(
    "Every sum is correct and all six finish together after one sleep, about 1 s, in an order of their own."
)
.platformDifference(ModernCounterpart.platformDifference)
.checks { measurement, prediction in
    [
        SumCompletions.everySumPrintedOnce(measurement.output, pairs: Summing.asyncPairs),
        ModernCounterpart.beside(sumOperationExperiment, prediction),
    ]
}
