import ExperimentKit

/// Seven children of a task group, each awaiting `Task.sleep(2 s)`: the Swift-concurrency
/// counterpart of ``concurrentPrinterQueue``.
let concurrentPrinterQueueAsync = Experiment(
    name: "concurrent-printer-queue-async",
    title: "Seven Task.sleep children in a TaskGroup",
    source: ModernCounterpart.source(of: concurrentPrinterQueue),
    summary: "The seven words as child tasks of one task group, all added at once; each prints its word and awaits try await Task.sleep for 2 s, which suspends the task and holds no thread. Compare concurrent-printer-queue, whose closures block their threads with sleep(2).",
    claim: .none,
    expectedOutcome: "All seven words print at once and the group ends after one sleep, about 2 s, on a pool of only as many threads as CPUs.",
    platformDifference: ModernCounterpart.platformDifference,
    workload: { AsyncPrinterQueue.workload(inFlight: nil) },
    run: AsyncPrinterQueue.run,
    checks: { measurement, prediction in
        concurrentPrinterQueue.checks(measurement, prediction) + [ModernCounterpart.beside(concurrentPrinterQueue, prediction)]
    }
)
