import ExperimentKit
import Foundation

/// ImageLoadOperation → FilterOperation, the filter finding its input through `dependencies`
/// (article 000, "Dependencies", LoadAndFilter.playground).
let loadAndFilter = Experiment(
    name: "load-and-filter",
    title: "LoadAndFilter: a download, then a filter that depends on it",
    source: ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Dependencies (LoadAndFilter.playground)"),
    summary: "ImageLoadOperation downloads the Eiffel Tower picture; FilterOperation (sleep(1), then the blur) depends on it and finds its input among its dependencies through the ImagePass protocol. The download is simulated: a timer with the picture's latency, holding no thread.",
    claim: ArticleClaim(
        quote: "We can determine that the “filter” depends on the “loader”, and then the queue of operations OperationQueue will know that the “filter” is set to the state ready only after the “loader” operation ends.",
        seconds: nil
    ),
    expectedOutcome: "The filter starts when the download ends, and its output is the downloaded picture, filtered.",
    platformDifference: "A dependency and a download that holds no thread behave the same on every platform.",
    workload: {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
        let load = workload.add(PlannedOperation(label: LoadAndFilterLabels.load, articleSeconds: SimulatedDownloads.latency(LoadAndFilterLabels.image), executor: .queue(queue), work: .timer))
        workload.add(PlannedOperation(label: LoadAndFilterLabels.filter, articleSeconds: 1, executor: .queue(queue), dependencies: [load], cpuSeconds: ImageCosts.costs(of: LoadAndFilterLabels.image).filter))
        return workload
    },
    run: { context, workload in
        let load = ImageLoadOperation(imageName: LoadAndFilterLabels.image, latency: workload.operations[0].articleSeconds, label: LoadAndFilterLabels.load, context: context)
        let filter = FilterOperation(label: LoadAndFilterLabels.filter, sleepSeconds: 1, context: context)
        filter.addDependency(load)
        let queue = OperationQueue()
        context.timeline.timeEnqueueing { queue.addOperations([load, filter], waitUntilFinished: false) }
        queue.waitUntilAllOperationsAreFinished()
        // Checking the output filters the picture again: the check's work, after the clock.
        context.timeline.stopClock()
        let matches = filter.outputImage != nil && filter.outputImage == SourceImages.named(LoadAndFilterLabels.image)?.mistedTopAndBottom(radius: ImageCosts.blurRadius)
        let saved = [load.outputImage, filter.outputImage].allSatisfy { $0 != nil }
            ? ImageFiles.save(load.outputImage!.sideBySide(filter.outputImage!), experiment: "load-and-filter", name: LoadAndFilterLabels.image, in: context.imagesDirectory)
            : nil
        return Outcome([
            Outcome.Field("outputIsTheFilteredDownload", .bool(matches)),
            Outcome.Field("images", .strings(saved.map { [$0] } ?? [])),
        ])
    },
    checks: { measurement, _ in
        [Check("the filter's output is the downloaded picture, filtered", passed: measurement.outcome["outputIsTheFilteredDownload"] == .bool(true))]
    }
)

enum LoadAndFilterLabels {
    static let image = "Eiffel Tower"
    static let load = "ImageLoadOperation"
    static let filter = "FilterOperation"
}
