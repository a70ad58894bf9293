import ExperimentKit

/// A task group that keeps two of the seven sleeping children in flight: the Swift-concurrency
/// counterpart of ``printerQueueMaxTwo``.
let printerQueueMaxTwoAsync = Experiment(
    "printer-queue-max-2-async", source: ModernCounterpart.source(of: printerQueueMaxTwo), run: AsyncPrinterQueue.run
)
.title("Seven Task.sleep children, two in flight")
.summary(
    "The seven words as child tasks, two at a time: the group adds two, then one more each time group.next() returns a finished child. A task group has no maxConcurrentOperationCount; this is how it limits its width. Compare printer-queue-max-2."
)
.expectedOutcome(printerQueueMaxTwo.expectedOutcome)
.platformDifference(ModernCounterpart.platformDifference)
.plannedAs { AsyncPrinterQueue.workload(inFlight: 2) }
.checks { measurement, prediction in
    printerQueueMaxTwo.checks(measurement, prediction) + [ModernCounterpart.beside(printerQueueMaxTwo, prediction)]
}
