import ExperimentKit
import Foundation
import Synchronization

/// FilterOperation of article 000: "mists" the upper and lower parts of an image (a blur of
/// radius 6 masked by a top-and-bottom gradient). Its input is the picture named at its
/// creation (the playground's `UIImage(named:)`), or found among its dependencies
/// (``ImagePass``); the filtering playground also sleeps a second first.
///
/// For the model (``ModelledOperation``): it blocks its thread for its sleep, then filters, real
/// CPU work left to measure (``ImageCosts/planned(_:of:label:)``):
/// ``Timeline/computing(_:after:_:)`` times it where it runs, and the prediction is made again
/// from that figure. Its picture is drawn in the child that runs it, not when a rehearsal
/// creates it.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants and
/// its output lives in a `Mutex`.
final class FilterOperation: Operation, ImagePass, ModelledOperation, @unchecked Sendable {
    private let label: String
    private let inputName: String?
    private let sleepSeconds: Double
    private let context: RunContext
    private let output = Mutex<RGBAImage?>(nil)

    init(label: String, inputImageNamed inputName: String? = nil, sleepSeconds: Double = 0, context: RunContext) {
        self.label = label
        self.inputName = inputName
        self.sleepSeconds = sleepSeconds
        self.context = context
        super.init()
        name = label
    }

    var outputImage: RGBAImage? {
        output.withLock { $0 }
    }

    var sourceName: String? {
        inputName ?? sourceNameFromDependencies
    }

    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: sleepSeconds, cpuSeconds: sourceName.map { ImageCosts.planned(\.filter, of: $0, label: label) } ?? 0)
    }

    override func main() {
        guard !isCancelled, let input = inputName.flatMap(SourceImages.named) ?? imageFromDependencies else { return }
        let filtered = context.timeline.computing(label, after: { if sleepSeconds > 0 { context.sleep(articleSeconds: sleepSeconds) } }) {
            input.mistedTopAndBottom(radius: ImageCosts.blurRadius)
        }
        output.withLock { $0 = filtered }
    }
}

/// PostProcessImageOperation of article 000, Pattern 2: the "instant" photo effect and a
/// vignette, on the image its dependency passes on.
///
/// For the model: real CPU work, left to measure and timed as ``FilterOperation``'s.
///
/// `@unchecked Sendable`: as ``FilterOperation``.
final class PostProcessImageOperation: Operation, ImagePass, ModelledOperation, @unchecked Sendable {
    private let label: String
    private let context: RunContext
    private let output = Mutex<RGBAImage?>(nil)

    init(label: String, context: RunContext) {
        self.label = label
        self.context = context
        super.init()
        name = label
    }

    var outputImage: RGBAImage? {
        output.withLock { $0 }
    }

    var sourceName: String? {
        sourceNameFromDependencies
    }

    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: 0, cpuSeconds: sourceName.map { ImageCosts.planned(\.postProcess, of: $0, label: label) } ?? 0)
    }

    override func main() {
        guard !isCancelled, let input = imageFromDependencies else { return }
        let processed = context.timeline.computing(label) { input.postProcessed() }
        output.withLock { $0 = processed }
    }
}

/// ImageOutputOperation of article 000, Pattern 2: hands the finished image to the completion,
/// unless cancelled. For the model, an instant's work (it adopts no ``ModelledOperation``).
///
/// `@unchecked Sendable`: its inputs are constants.
final class ImageOutputOperation: Operation, @unchecked Sendable {
    private let label: String
    private let context: RunContext
    private let completion: @Sendable (RGBAImage) -> Void

    init(label: String, context: RunContext, completion: @escaping @Sendable (RGBAImage) -> Void) {
        self.label = label
        self.context = context
        self.completion = completion
        super.init()
        name = label
    }

    override func main() {
        guard !isCancelled, let image = imageFromDependencies else { return }
        context.timeline.operation(label) {
            completion(image)
        }
    }
}
