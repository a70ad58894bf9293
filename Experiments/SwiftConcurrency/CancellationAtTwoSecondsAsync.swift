import ExperimentKit
import Foundation

// swift-format-ignore
// A task summing pairs, checking for cancellation before each sum, cancelled a quarter of a sum before 2 s: the Swift-concurrency counterpart of ``cancellationAtTwoSeconds``.
let cancellationAtTwoSecondsAsync = Experiment("cancellation-at-2s-async", source: ModernCounterpart.source(of: cancellationAtTwoSeconds)) { _ in
    let summing = Task {
        print("summing Task")
        var outputArray: [Int] = []
        do {
            for (lhs, rhs) in [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)] {
                try Task.checkCancellation()
                sleep(1)  // slowAdd's: a sum once begun runs to its end, whatever the cancel
                outputArray.append(lhs + rhs)
            }
        } catch {
            print("cancelled")
        }
        print("outputArray \(outputArray)")
    }
    // The article cancels at 2 s, as the third sum begins: a quarter of a sum earlier, the order cannot flip.
    Thread.sleep(forTimeInterval: 1.75)
    print("cancel()")
    summing.cancel()
}
.title("Task.cancel() on a loop that calls Task.checkCancellation()")
.summary(
    "One Task loops over (1,2) (3,4) (5,6) (7,8) (9,10): try Task.checkCancellation(), then a one-second addition that blocks its thread with sleep(1), as the article's slowAdd does, so that a sum once begun runs to its end (a Task.sleep would end at the cancel, throwing, and lose the sum under way). The experiment's thread calls cancel() on the Task at 1.75 s, a quarter of a sum before the article's 2 s, as cancellation-at-2s does; the Task prints its outputArray."
)
.expectedOutcome(
    "[3, 7]: the loop finishes the sum under way, throws from checkCancellation() before the third, and stops at 2 s."
)
.platformDifference("One task blocking one thread of the cooperative pool runs the same on every platform.")
.checks { measurement, prediction in
    let printed = ModernCounterpart.line(startingWith: "outputArray", in: measurement) ?? ""
    return [
        ArraySumCancellation.sumsMatchPrediction(printed.split { !$0.isNumber }.compactMap { Int($0) }, prediction),
        ModernCounterpart.beside(cancellationAtTwoSeconds, prediction),
    ]
}
