import ExperimentKit
import Foundation

/// A dependency that does not wait (article 001; the 2017 ImageLoadOperation of article 000).
let asyncDependencyBug = Experiment(
    name: "async-dependency-bug",
    title: "A dependency that does not wait",
    source: ArticleSource(file: "001_9c3f48ba8c79e11b.txt", section: "Dependencies and asynchronous operations; the 2017 ImageLoadOperation of article 000"),
    summary: "Two load → filter pairs on one queue, the filter depending on the load. The 2017 ImageLoadOperation finishes as soon as main() has started its download; the fixed one (an AsyncOperation finishing in the download's callback) finishes when the image is there. The download is simulated: a 1 s timer that, like a network request, holds no thread.",
    claim: ArticleClaim(
        quote: "As shown in Figure 2 even though we added the dependency rule still, task 2 started and the reason is that task 1 dispatch its task on another queue and return immediately and the operation queue assume that it finishes that’s why it started task2",
        seconds: nil
    ),
    expectedOutcome: "The filter after the 2017 load starts at once and finds nil; the filter after the fixed load starts when the download ends and finds the image.",
    platformDifference: "Dependencies work the same on every platform.",
    workload: {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
        let brokenLoad = workload.add(PlannedOperation(label: DependencyBug.brokenLoad, articleSeconds: 0, executor: .queue(queue)))
        workload.add(PlannedOperation(label: DependencyBug.brokenDownload, articleSeconds: DependencyBug.downloadSeconds, executor: .globalQueue(.default), dependencies: [brokenLoad], work: .timer))
        workload.add(PlannedOperation(label: DependencyBug.brokenFilter, articleSeconds: 0, executor: .queue(queue), dependencies: [brokenLoad]))
        let fixedLoad = workload.add(PlannedOperation(label: DependencyBug.fixedLoad, articleSeconds: DependencyBug.downloadSeconds, executor: .queue(queue), work: .timer))
        workload.add(PlannedOperation(label: DependencyBug.fixedFilter, articleSeconds: 0, executor: .queue(queue), dependencies: [fixedLoad]))
        return workload
    },
    run: { context, _ in
        let queue = OperationQueue()
        func loadThenFilter(load: String, download: String, filter: String, finishesWhenDelivered: Bool) -> [Operation] {
            let loadOperation = ImageLoadOperation(
                imageName: DependencyBug.image, latency: DependencyBug.downloadSeconds, label: load, downloadLabel: download,
                finishesWhenDelivered: finishesWhenDelivered, context: context
            )
            let filterOperation = InputReportingOperation(label: filter, context: context)
            filterOperation.addDependency(loadOperation)
            return [loadOperation, filterOperation]
        }
        context.timeline.timeEnqueueing {
            loadThenFilter(load: DependencyBug.brokenLoad, download: DependencyBug.brokenDownload, filter: DependencyBug.brokenFilter, finishesWhenDelivered: false)
                .forEach(queue.addOperation)
            loadThenFilter(load: DependencyBug.fixedLoad, download: DependencyBug.fixedDownload, filter: DependencyBug.fixedFilter, finishesWhenDelivered: true)
                .forEach(queue.addOperation)
        }
        queue.waitUntilAllOperationsAreFinished()
        // The 2017 download outlives its operation: nothing waits for it but the experiment.
        context.sleep(untilArticleSeconds: DependencyBug.downloadSeconds)
        return Outcome()
    },
    checks: { measurement, _ in
        let broken = measurement.outcome[DependencyBug.brokenFilter]
        let fixed = measurement.outcome[DependencyBug.fixedFilter]
        return [
            Check("the filter after the 2017 load found nil", passed: broken == .string("nil")),
            Check("the filter after the fixed load found the downloaded image", passed: fixed?.stringValue == InputReportingOperation.describe(SourceImages.named(DependencyBug.image))),
        ]
    }
)

/// Labels and the simulated download's length.
enum DependencyBug {
    static let image = "Eiffel Tower"
    static let downloadSeconds = 1.0
    static let brokenLoad = "2017 load (finishes at once)"
    static let brokenDownload = "download of the 2017 load"
    static let brokenFilter = "filter after the 2017 load"
    static let fixedLoad = "fixed load (AsyncOperation)"
    static let fixedDownload = "download of the fixed load"
    static let fixedFilter = "filter after the fixed load"
}

/// The filter of the dependency-bug experiment: it looks for its input among its dependencies,
/// as LoadAndFilter's FilterOperation does, and reports what it found instead of filtering.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants.
final class InputReportingOperation: Operation, @unchecked Sendable {
    private let label: String
    private let context: RunContext

    init(label: String, context: RunContext) {
        self.label = label
        self.context = context
        super.init()
    }

    /// `nil`, or the image's size: what the filter found.
    static func describe(_ image: RGBAImage?) -> String {
        image.map { "an image of \($0.width)×\($0.height)" } ?? "nil"
    }

    override func main() {
        context.timeline.operation(label) {
            let found = Self.describe(imageFromDependencies)
            context.print("\(label): input is \(found)")
            context.record(label, .string(found))
            return false
        }
    }
}
