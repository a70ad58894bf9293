import ExperimentKit
import Foundation
import Pictures

/// ImageProvider of article 000, Pattern 3 (the table-view app), in the simplified form that
/// section gives it: three operations, load → filter → output, with no post-process; a queue
/// that is not suspended, so the chain starts as the provider is created, with no `start()` and
/// no `wait()` (an app cannot block its main thread); `cancel()` cancels the chain, as the
/// table does when a cell leaves the screen. Its queue runs two operations at a time, as
/// Pattern 2's (``ImageProvider``) does.
final class SimpleImageProvider: Sendable {
    /// The labels of one provider's three operations, in chain order.
    static func labels(_ title: String) -> [String] {
        ["load", "filter", "output"].map { "\(title) · \($0)" }
    }

    let queue = OperationQueue()
    /// The chain, kept for the provider's life: corelibs' dependency links do not retain the
    /// dependent operation (see ``ImageProvider``).
    private let operations: [Foundation.Operation]

    /// `title` prefixes the operations' rows; `latency` is the simulated download's, in article
    /// seconds; `completion` receives the filtered image, unless the provider was cancelled.
    init(
        imageName: String, title: String, latency: Double, context: RunContext,
        completion: @escaping @Sendable (RGBAImage) -> Void
    ) {
        queue.maxConcurrentOperationCount = 2
        let labels = Self.labels(title)
        let dataLoad = ImageLoadOperation(imageName: imageName, latency: latency, label: labels[0], context: context)
        let filter = FilterOperation(label: labels[1], context: context)
        let output = ImageOutputOperation(label: labels[2], context: context, completion: completion)
        filter.addDependency(dataLoad)
        output.addDependency(filter)
        operations = [dataLoad, filter, output]
        queue.addOperations(operations, waitUntilFinished: false)
    }

    /// Cancels every operation of the chain.
    func cancel() {
        queue.cancelAllOperations()
    }
}
