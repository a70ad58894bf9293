import ExperimentKit

/// Seven children of a task group, each awaiting `Task.sleep(2 s)`: the Swift-concurrency
/// counterpart of ``concurrentPrinterQueue``.
let concurrentPrinterQueueAsync = Experiment(
    "concurrent-printer-queue-async", source: ModernCounterpart.source(of: concurrentPrinterQueue),
    run: AsyncPrinterQueue.run
)
.title("Seven Task.sleep children in a TaskGroup")
.summary(
    "The seven words as child tasks of one task group, all added at once; each prints its word and awaits try await Task.sleep for 2 s, which suspends the task and holds no thread. Compare concurrent-printer-queue, whose closures block their threads with sleep(2)."
)
.expectedOutcome(
    "All seven words print at once and the group ends after one sleep, about 2 s, on a pool of only as many threads as CPUs."
)
.platformDifference(ModernCounterpart.platformDifference)
.plannedAs { AsyncPrinterQueue.workload(inFlight: nil) }
.checks { measurement, prediction in
    concurrentPrinterQueue.checks(measurement, prediction) + [
        ModernCounterpart.beside(concurrentPrinterQueue, prediction)
    ]
}
