import ExperimentKit
import Foundation

// swift-format-ignore
// GroupAdd as a task group, two sums in flight, cancelled at 0.5 s: the Swift-concurrency counterpart of ``groupCancellationEarly`` (cancelled away from the article's race at 1 s).
let groupCancellationAsync = Experiment("group-cancellation-async", source: ModernCounterpart.source(of: groupCancellationEarly)) { _ in
    // GroupAdd's SumOperation: nothing once cancelled, else the pair and its sum after slowAdd's sleep(1).
    @Sendable func sumOperation(_ pair: (Int, Int)) -> (Int, Int, Int)? {
        guard !Task.isCancelled else { return nil }
        print("\(pair.0) + \(pair.1)")
        sleep(1)
        return (pair.0, pair.1, pair.0 + pair.1)
    }
    let groupAdd = Task {
        await withTaskGroup(of: (Int, Int, Int)?.self) { group in
            var pairs = [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)][...]
            var outputArray: [(Int, Int, Int)] = []
            // Two in flight, as GroupAdd's queue: add two, then the next each time one ends.
            for pair in pairs.prefix(2) {
                group.addTask { sumOperation(pair) }
            }
            pairs = pairs.dropFirst(2)
            while let sum = await group.next() {
                if let sum { outputArray.append(sum) }
                guard let pair = pairs.popFirst() else { continue }
                // A cancelled group adds no child: it simply runs out of them.
                _ = group.addTaskUnlessCancelled { sumOperation(pair) }
            }
            print("outputArray \(outputArray)")
        }
    }
    Thread.sleep(forTimeInterval: 0.5)
    print("cancel()")
    groupAdd.cancel()
}
.title("GroupAdd as a TaskGroup, cancelled at 0.5 s")
.summary(
    "One child task per pair of (1,2) (3,4) (5,6) (7,8) (9,10), two in flight: the group adds two, then, each time group.next() returns one, the next with addTaskUnlessCancelled. A child returns nothing if already cancelled, else (l, r, sum) after a one-second addition that blocks its thread with sleep(1), as the article's slowAdd does, so that it runs to its end once begun. The group's owner appends each tuple as it arrives, the one writer the article's appendQueue provides, and prints the outputArray. At 0.5 s, away from the race at the article's 1 s, the experiment's thread cancels the Task that owns the group, which cancels the group and every child as cancelAllOperations() does."
)
.expectedOutcome(
    "Exactly the two sums under way at 0.5 s arrive, (1, 2, 3) and (3, 4, 7); the group adds no other child."
)
.platformDifference(
    "Two children blocking at a time hold two threads of a cooperative pool of one a CPU on every platform, so the platforms agree."
)
.checks { measurement, prediction in
    let printed = ModernCounterpart.line(startingWith: "outputArray", in: measurement) ?? ""
    return [
        GroupAddTuples.arrivedAsPredicted(printed.matches(of: #/\(\d+, \d+, \d+\)/#).map { String($0.output) }, prediction),
        ModernCounterpart.beside(groupCancellationEarly, prediction),
    ]
}
