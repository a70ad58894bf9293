import ExperimentKit

/// A task group that keeps two of the seven sleeping children in flight: the Swift-concurrency
/// counterpart of ``printerQueueMaxTwo``.
let printerQueueMaxTwoAsync = Experiment(
    name: "printer-queue-max-2-async",
    title: "Seven Task.sleep children, two in flight",
    source: ModernCounterpart.source(of: printerQueueMaxTwo),
    summary: "The seven words as child tasks, two at a time: the group adds two, then one more each time group.next() returns a finished child. A task group has no maxConcurrentOperationCount; this is how it limits its width. Compare printer-queue-max-2.",
    claim: .none,
    expectedOutcome: printerQueueMaxTwo.expectedOutcome,
    platformDifference: ModernCounterpart.platformDifference,
    workload: { AsyncPrinterQueue.workload(inFlight: 2) },
    run: AsyncPrinterQueue.run,
    checks: { measurement, prediction in
        printerQueueMaxTwo.checks(measurement, prediction) + [ModernCounterpart.beside(printerQueueMaxTwo, prediction)]
    }
)
