import ExperimentKit

/// GroupAdd as a task group, two sums in flight, cancelled at 0.5 s: the Swift-concurrency
/// counterpart of ``groupCancellationEarly`` (cancelled away from the article's race at 1 s).
let groupCancellationAsync = Experiment(
    "group-cancellation-async", source: ModernCounterpart.source(of: groupCancellationEarly)
) { context, workload in
    let additions = Array(zip(Summing.cancellationPairs, workload.operations))
    let inFlight = workload.operations.filter(\.dependencies.isEmpty).count
    let groupOwner = Task {
        var outputArray: [(Int, Int, Int)] = []
        try await BoundedTaskGroup.run(
            additions, inFlight: inFlight,
            child: { pair, planned in
                // GroupAdd's SumOperation checks isCancelled before it adds.
                guard !Task.isCancelled else { return nil }
                return (
                    pair.0, pair.1,
                    await AsyncSumming.addToTheEnd(pair, articleSeconds: planned.articleSeconds, in: context)
                )
            },
            arrived: { (tuple: (Int, Int, Int)?) in
                if let tuple { outputArray.append(tuple) }
            })
        return outputArray
    }
    context.sleep(untilArticleSeconds: workload.cancellations[0].atArticleSeconds)
    context.print("cancel()")
    let cancelledAt = context.timeline.now()
    groupOwner.cancel()
    let tuples = try AwaitFromRun.wait { try await groupOwner.value }
    return Outcome([
        Outcome.Field(.outputTuples, tuples.map { "(\($0.0), \($0.1), \($0.2))" }),
        Outcome.Field(.cancelledAtSeconds, cancelledAt),
    ])
}
.title("GroupAdd as a TaskGroup, cancelled at 0.5 s")
.summary(
    "One child task per pair of (1,2) (3,4) (5,6) (7,8) (9,10), two in flight: the group adds two, then, each time one returns, the next with addTaskUnlessCancelled. A child returns nothing if already cancelled, else (l, r, sum) after a one-second addition that runs to its end (its Task.sleep in a task of its own, as the article's slowAdd). The group's owner appends each tuple as it arrives, the one writer the article's appendQueue provides. At 0.5 s, away from the race at the article's 1 s, the experiment's thread cancels the Task that owns the group, which cancels the group and every child as cancelAll() does."
)
.expectedOutcome(
    "Exactly the two sums under way at 0.5 s arrive, (1, 2, 3) and (3, 4, 7); the group adds no other child."
)
.platformDifference(ModernCounterpart.platformDifference)
.plannedAs {
    var workload = Workload()
    let inFlight = 2
    // The model has no timer that runs to its end when cancelled: each sum is planned as a
    // blocking step, timed and cancelled alike; two in flight on a pool of at least two
    // threads, the threads the model believes they hold change nothing. A sum waits for the
    // one two places earlier: both of a round end together.
    let sums = Summing.cancellationPairs.indices.map { index in
        workload.add(
            PlannedOperation(
                label: Summing.label(Summing.cancellationPairs[index]), articleSeconds: Summing.secondsPerSum,
                executor: .globalQueue(.default), dependencies: index >= inFlight ? [index - inFlight] : []
            ))
    }
    // Cancelling the group cancels every child at once; the model takes one cancel at a
    // time, and would start a sum whose predecessor's cancel finished it before its own
    // cancel came: the last are cancelled first.
    for sum in sums.reversed() {
        workload.cancel(.operation(sum), atArticleSeconds: 0.5)
    }
    return workload
}
.checks { measurement, prediction in
    groupCancellationEarly.checks(measurement, prediction) + [
        ModernCounterpart.beside(groupCancellationEarly, prediction)
    ]
}
