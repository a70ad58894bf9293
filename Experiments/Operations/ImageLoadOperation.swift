import ExperimentKit
import Foundation
import Synchronization

/// ImageLoadOperation of article 000 ("Asynchronous operation") and article 001: an
/// AsyncOperation whose `main()` starts a download. The download is simulated (no network
/// here): a timer on a global queue, then a placeholder image. The 2017 playground finished the
/// operation right after starting the download; the 2018 fix finishes it in the download's
/// callback. `finishesInCallback` chooses which.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants and
/// its output lives in a `Mutex`.
final class ImageLoadOperation: AsyncOperation, @unchecked Sendable {
    private let url: String
    private let label: String
    private let downloadLabel: String
    private let finishesInCallback: Bool
    private let context: RunContext
    private let downloaded = Mutex<String?>(nil)

    /// `label` names the operation's row in the timeline (from `main()` until it finishes),
    /// `downloadLabel` the download's row.
    init(url: String, label: String, downloadLabel: String, finishesInCallback: Bool, context: RunContext) {
        self.url = url
        self.label = label
        self.downloadLabel = downloadLabel
        self.finishesInCallback = finishesInCallback
        self.context = context
        super.init()
    }

    /// The downloaded image, once the download has called back.
    var outputImage: String? {
        downloaded.withLock { $0 }
    }

    override func main() {
        let span = context.timeline.begin(label)
        let download = context.timeline.begin(downloadLabel)
        // Like a network request, the simulated download holds no thread while it waits.
        DispatchQueue.global().asyncAfter(deadline: .now() + context.realSeconds(DependencyBug.downloadSeconds)) { [self] in
            downloaded.withLock { $0 = "image of \(url)" }
            context.timeline.end(download)
            if finishesInCallback { finishRecording(span) }
        }
        if !finishesInCallback { finishRecording(span) }
    }

    private func finishRecording(_ span: Timeline.OpenSpan) {
        context.timeline.end(span)
        finish()
    }
}

/// A filter that finds its input among its dependencies, as LoadAndFilter does, and reports
/// what it found.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants.
final class DependentFilterOperation: Operation, @unchecked Sendable {
    private let label: String
    private let context: RunContext

    init(label: String, context: RunContext) {
        self.label = label
        self.context = context
        super.init()
    }

    override func main() {
        context.timeline.operation(label) {
            let input = dependencies.compactMap { ($0 as? ImageLoadOperation)?.outputImage }.first
            context.print("\(label): input is \(input ?? "nil")")
            context.record(label, input.map { .string($0) } ?? .null)
            return false
        }
    }
}
