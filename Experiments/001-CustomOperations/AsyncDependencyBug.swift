import ExperimentKit
import Foundation
import Pictures

/// A dependency that does not wait (article 001; the 2017 ImageLoadOperation of article 000).
let asyncDependencyBug = Experiment(
    "async-dependency-bug", article: "001_9c3f48ba8c79e11b.txt",
    section:
        "Concurrency in Swift (Custom Operations Part 4): Figures 1 and 2, a dependency and an asynchronous task; the 2017 ImageLoadOperation of 000 “Asynchronous operation”"
) { context in
    let queue = OperationQueue()
    // The 2017 ImageLoadOperation finishes as soon as main() has started the download.
    let load2017 = ImageLoadOperation(
        imageName: DependencyBug.image, latency: DependencyBug.downloadSeconds, label: DependencyBug.brokenLoad,
        downloadLabel: DependencyBug.brokenDownload, finishesWhenDelivered: false, context: context
    )
    let filter2017 = InputReportingOperation(label: DependencyBug.brokenFilter, context: context)
    filter2017.addDependency(load2017)
    // Waiting for this pair lasts no longer than its filter (the load does not wait for its
    // download): it keeps that filter's instant apart from the fixed load's start.
    queue.addOperations([load2017, filter2017], waitUntilFinished: true)
    // The fixed one, an AsyncOperation, finishes in the download's callback.
    let load = ImageLoadOperation(
        imageName: DependencyBug.image, latency: DependencyBug.downloadSeconds, label: DependencyBug.fixedLoad,
        context: context)
    let filter = InputReportingOperation(label: DependencyBug.fixedFilter, context: context)
    filter.addDependency(load)
    queue.addOperations([load, filter], waitUntilFinished: true)
    // The 2017 download outlives its operation: nothing waits for it but the experiment.
    context.sleep(untilArticleSeconds: DependencyBug.downloadSeconds)
}
.title("A dependency that does not wait")
.summary(
    "Two load → filter pairs on one queue, the filter depending on the load, the second pair added once the first has finished. The 2017 ImageLoadOperation finishes as soon as main() has started its download; the fixed one (an AsyncOperation finishing in the download's callback) finishes when the image is there. The download is simulated: a 1 s timer that, like a network request, holds no thread."
)
.claim(
    "As shown in Figure 2 even though we added the dependency rule still, task 2 started and the reason is that task 1 dispatch its task on another queue and return immediately and the operation queue assume that it finishes that’s why it started task2…",
    seconds: nil
)
.expectedOutcome(
    "The filter after the 2017 load starts at once and finds nil; the filter after the fixed load starts when the download ends and finds the image."
)
.platformDifference("Dependencies work the same on every platform.")
.checks { measurement, _ in
    let broken = measurement.outcome[DependencyBug.brokenFilter]
    let fixed = measurement.outcome[DependencyBug.fixedFilter]
    return [
        Check("the filter after the 2017 load found nil", passed: broken == .string("nil")),
        Check(
            "the filter after the fixed load found the downloaded image",
            passed: fixed?.stringValue == InputReportingOperation.describe(SourceImages.named(DependencyBug.image))),
    ]
}

/// Labels and the simulated download's length.
enum DependencyBug {
    static let image = "Eiffel Tower"
    static let downloadSeconds = 1.0
    static let brokenLoad = "2017 load (finishes at once)"
    static let brokenDownload = "download of the 2017 load"
    static let brokenFilter = "filter after the 2017 load"
    static let fixedLoad = "fixed load (AsyncOperation)"
    static let fixedFilter = "filter after the fixed load"
}

/// The filter of the dependency-bug experiment: it looks for its input among its dependencies,
/// as LoadAndFilter's FilterOperation does, and reports what it found instead of filtering.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants.
final class InputReportingOperation: Operation, @unchecked Sendable {
    private let context: RunContext

    init(label: String, context: RunContext) {
        self.context = context
        super.init()
        name = label
    }

    /// `nil`, or the image's size: what the filter found.
    static func describe(_ image: RGBAImage?) -> String {
        image.map { "an image of \($0.width)×\($0.height)" } ?? "nil"
    }

    override func main() {
        let found = Self.describe(imageFromDependencies)
        print("\(name ?? ""): input is \(found)")
        context.record(name ?? "", .string(found))
    }
}
