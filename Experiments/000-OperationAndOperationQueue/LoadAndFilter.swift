import ExperimentKit
import Foundation
import Pictures

/// ImageLoadOperation → FilterOperation, the filter finding its input through `dependencies`
/// (article 000, "Dependencies", LoadAndFilter.playground).
let loadAndFilter = Experiment(
    "load-and-filter", article: "000_d66eefb2b922d5e0.txt",
    section: "Dependencies ( dependencies): LoadAndFilter.playground"
) { context in
    let load = ImageLoadOperation(
        imageName: LoadAndFilterLabels.image, latency: SimulatedDownloads.latency(LoadAndFilterLabels.image),
        label: LoadAndFilterLabels.load, context: context)
    let filter = FilterOperation(label: LoadAndFilterLabels.filter, sleepSeconds: 1, context: context)
    filter.addDependency(load)
    let queue = OperationQueue()
    queue.addOperations([load, filter], waitUntilFinished: false)
    queue.waitUntilAllOperationsAreFinished()
    // Checking the output filters the picture again: the check's work, after the clock.
    context.timeline.stopClock()
    let matches =
        filter.outputImage != nil
        && filter.outputImage
            == SourceImages.named(LoadAndFilterLabels.image)?.mistedTopAndBottom(radius: ImageCosts.blurRadius)
    context.record("outputIsTheFilteredDownload", .bool(matches))
    let saved = load.outputImage.flatMap { loaded in
        filter.outputImage.flatMap {
            ImageFiles.save(
                loaded.sideBySide($0), experiment: "load-and-filter", name: LoadAndFilterLabels.image,
                in: context.imagesDirectory)
        }
    }
    context.record(.images, saved.map { [$0] } ?? [])
}
.title("LoadAndFilter: a download, then a filter that depends on it")
.summary(
    "ImageLoadOperation downloads the Eiffel Tower picture; FilterOperation (sleep(1), then the blur) depends on it and finds its input among its dependencies through the ImagePass protocol. The download is simulated: a timer with the picture's latency, holding no thread."
)
.claim(
    "We can determine that the “filter” depends on the “loader”, and then the queue of operations OperationQueue will know that the “filter” is set to the state ready only after the “loader” operation ends.",
    seconds: nil
)
.expectedOutcome("The filter starts when the download ends, and its output is the downloaded picture, filtered.")
.platformDifference("A dependency and a download that holds no thread behave the same on every platform.")
.checks { measurement, _ in
    [
        Check(
            "the filter's output is the downloaded picture, filtered",
            passed: measurement.outcome["outputIsTheFilteredDownload"] == .bool(true))
    ]
}

enum LoadAndFilterLabels {
    static let image = "Eiffel Tower"
    static let load = "ImageLoadOperation"
    static let filter = "FilterOperation"
}
