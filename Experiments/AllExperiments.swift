import ExperimentKit

/// Every registered experiment, in the order `run-experiments all` runs them.
/// Adding an experiment: one new file declaring an ``Experiment``, and one line here.
public let allExperiments: [Experiment] = [
    concurrentPrinterQueue,
    printerQueueMaxTwo,
    qosOrdering,
    serialQueue,
    blockOperationMultiPrinter,
    sumOperationExperiment,
    asyncDependencyBug,
    asyncOperationPitfalls,
    cancellationIgnored,
    cancellationAtTwoSeconds,
    cancellationProgressAtTwoSeconds,
    cancellationProgressAtFourSeconds,
    cancellationSemantics,
    groupCancellation,
    groupCancellationEarly,
    groupCancellationLate,
    filterImages,
    loadAndFilter,
    fourImages,
    fourImagesCancelledAtSixSeconds,
]
