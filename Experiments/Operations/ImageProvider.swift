import ExperimentKit
import Foundation
import Pictures

/// ImageProvider of article 000, Pattern 2 (reused by Pattern 3's table): one image's chain
/// load → filter → post-process → output on a private queue, created suspended, two operations
/// at a time. Like GroupAdd it offers `start()`, `cancel()` and `wait()` for the whole chain
/// (``ComplexOperation``). The model reads the chain from these objects (``Lab``): the queue's
/// width and suspension, each operation's dependencies and the work its class declares.
final class ImageProvider: ComplexOperation, Sendable {
    /// The labels of one provider's four operations, in chain order.
    static func labels(_ title: String) -> [String] {
        ["load", "filter", "post-process", "output"].map { "\(title) · \($0)" }
    }

    let queue = OperationQueue()
    /// The chain, kept for the provider's life. swift-corelibs-foundation's dependency links do
    /// not retain the dependent operation: a cancelled filter that finishes (and is let go by the
    /// queue) before the load it depends on would leave the load pointing at freed memory when it
    /// finishes in turn. Holding the operations here for the provider's life (the article's
    /// builds them in `init` and leaves them to its queue) keeps every link valid.
    private let operations: [Foundation.Operation]

    /// `title` prefixes the operations' rows; `latency` is the simulated download's, in article
    /// seconds; `completion` receives the finished image, unless the provider was cancelled.
    init(
        imageName: String, title: String, latency: Double, context: RunContext,
        completion: @escaping @Sendable (RGBAImage) -> Void
    ) {
        queue.isSuspended = true
        queue.maxConcurrentOperationCount = 2
        let labels = Self.labels(title)
        let load = ImageLoadOperation(imageName: imageName, latency: latency, label: labels[0], context: context)
        let filter = FilterOperation(label: labels[1], context: context)
        let postProcess = PostProcessImageOperation(label: labels[2], context: context)
        let output = ImageOutputOperation(label: labels[3], context: context, completion: completion)
        filter.addDependency(load)
        postProcess.addDependency(filter)
        output.addDependency(postProcess)
        operations = [load, filter, postProcess, output]
        queue.addOperations(operations, waitUntilFinished: false)
    }
}
