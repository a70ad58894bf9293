import ExperimentKit

/// A task summing pairs, checking for cancellation before each sum, cancelled a quarter of a
/// sum before 2 s: the Swift-concurrency counterpart of ``cancellationAtTwoSeconds``.
let cancellationAtTwoSecondsAsync = Experiment(
    "cancellation-at-2s-async", source: ModernCounterpart.source(of: cancellationAtTwoSeconds)
) { context, workload in
    let loop = workload.operations[0]
    let pairs = Array(Summing.cancellationPairs.prefix(loop.steps))
    let summing = Task {
        var sums: [Int] = []
        // The loop ends by throwing CancellationError: what it summed until then is the result.
        try? await context.timeline.recording(loop.label) {
            for pair in pairs {
                try Task.checkCancellation()
                sums.append(await AsyncSumming.addToTheEnd(pair, articleSeconds: loop.articleSeconds, in: context))
            }
        }
        return sums
    }
    context.sleep(untilArticleSeconds: workload.cancellations[0].atArticleSeconds)
    context.print("cancel()")
    let cancelledAt = context.timeline.now()
    summing.cancel()
    let sums = try AwaitFromRun.wait { await summing.value }
    return Outcome([
        Outcome.Field("outputArray", Summing.value(sums)),
        Outcome.Field(.cancelledAtSeconds, cancelledAt),
    ])
}
.title("Task.cancel() on a loop that calls Task.checkCancellation()")
.summary(
    "One Task loops over (1,2) (3,4) (5,6) (7,8) (9,10): try Task.checkCancellation(), then a one-second addition that awaits Task.sleep in a task of its own, so that, like the article's slowAdd, it runs to its end once begun (a Task.sleep in the loop's own task would end at the cancel, throwing, and lose the sum under way). The experiment's thread calls cancel() on the Task at 1.75 s, a quarter of a sum before the article's 2 s, as cancellation-at-2s does."
)
.expectedOutcome(
    "[3, 7]: the loop finishes the sum under way, throws from checkCancellation() before the third, and stops at 2 s."
)
.platformDifference(ModernCounterpart.platformDifference)
.plannedAs {
    var workload = Workload()
    // The model has no timer that runs its steps to their end when cancelled: the loop is
    // planned as blocking steps that check before each one, which it times and cancels
    // alike; it is the only work, so the thread the model believes it holds changes nothing.
    let loop = workload.add(
        PlannedOperation(
            label: AsyncCancellation.loopLabel, articleSeconds: Summing.secondsPerSum, executor: .globalQueue(.default),
            steps: Summing.cancellationPairs.count, checksCancellation: true
        ))
    workload.cancel(.operation(loop), atArticleSeconds: Summing.instantClearOfSums(2))
    return workload
}
.checks { measurement, prediction in
    cancellationAtTwoSeconds.checks(measurement, prediction) + [
        ModernCounterpart.beside(cancellationAtTwoSeconds, prediction)
    ]
}

/// Labels of the cancellation counterparts.
enum AsyncCancellation {
    static let loopLabel = "summing Task"
}
