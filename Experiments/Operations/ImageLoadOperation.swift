import ExperimentKit
import Foundation
import Pictures
import Synchronization

/// ImageLoadOperation of articles 000 and 001: an AsyncOperation whose `main()` starts a
/// download. There is no network here, so the download is simulated: the image (one of
/// ``SourceImages``) arrives after a latency, from a timer that, like a network request, holds
/// no thread while it waits. A cancel stops the download: nothing is delivered and the
/// operation finishes at once.
///
/// The 2017 playground finished the operation right after starting the download; the 2018 fix
/// finishes it when the image arrives. `finishesWhenDelivered` chooses which.
///
/// For the model (``ModelledOperation``): the fixed operation waits on a timer for its latency,
/// holding no thread; the 2017 one finishes at once.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants, and
/// the download's state and output live in a `Mutex`.
final class ImageLoadOperation: AsyncOperation, ImagePass, ModelledOperation, @unchecked Sendable {
    private enum Download {
        case notStarted
        case pending(operationRow: Timeline.OpenSpan, downloadRow: Timeline.OpenSpan?)
        case delivered(RGBAImage)
        case cancelled
    }

    private let imageName: String
    private let latency: Double
    private let label: String
    private let downloadLabel: String?
    private let finishesWhenDelivered: Bool
    private let context: RunContext
    private let download = Mutex<Download>(.notStarted)

    /// `label` names the operation's row in the timeline (from `main()` until it finishes);
    /// `downloadLabel`, when given, a row of its own for the download (which outlives the
    /// operation when it finishes at once); `latency` is in article seconds.
    init(
        imageName: String, latency: Double, label: String, downloadLabel: String? = nil,
        finishesWhenDelivered: Bool = true, context: RunContext
    ) {
        self.imageName = imageName
        self.latency = latency
        self.label = label
        self.downloadLabel = downloadLabel
        self.finishesWhenDelivered = finishesWhenDelivered
        self.context = context
        super.init()
        name = label
    }

    var outputImage: RGBAImage? {
        download.withLock { if case .delivered(let image) = $0 { image } else { nil } }
    }

    var sourceName: String? {
        imageName
    }

    /// The 2017 one's download, with a row of its own, goes on after it has finished. Read before
    /// the clock starts, so the picture the download will deliver is drawn then.
    var modelledWork: ModelledWork {
        ImageCosts.drawBeforeTheClock(imageName)
        return finishesWhenDelivered
            ? ModelledWork(articleSeconds: latency, work: .timer)
            : ModelledWork(
                articleSeconds: 0,
                outliving: downloadLabel.map { OutlivingWork(label: $0, articleSeconds: latency, work: .timer) })
    }

    override func main() {
        let rows = (context.timeline.begin(label), downloadLabel.map(context.timeline.begin))
        download.withLock { $0 = .pending(operationRow: rows.0, downloadRow: rows.1) }
        DispatchQueue.global().asyncAfter(deadline: .now() + latency) { [self] in
            deliver()
        }
        if !finishesWhenDelivered {
            context.timeline.end(rows.0)
            finish()
        }
    }

    private func deliver() {
        endDownload(as: SourceImages.named(imageName).map(Download.delivered), cancelled: false)
    }

    /// Stops a download under way: nothing will be delivered, and the operation finishes now.
    override func cancel() {
        super.cancel()
        endDownload(as: .cancelled, cancelled: true)
    }

    /// Ends the download under way, if there is one, as `ending` (nil leaves it under way): its
    /// rows close, and the fixed operation, which waits for the download, finishes.
    private func endDownload(as ending: Download?, cancelled: Bool) {
        let rows: (Timeline.OpenSpan, Timeline.OpenSpan?)? = download.withLock { state in
            guard case .pending(let operationRow, let downloadRow) = state, let ending else { return nil }
            state = ending
            return (operationRow, downloadRow)
        }
        guard let rows else { return }
        if let downloadRow = rows.1 { context.timeline.end(downloadRow, cancelled: cancelled) }
        if finishesWhenDelivered {
            context.timeline.end(rows.0, cancelled: cancelled)
            finish()
        }
    }
}
