import ExperimentKit
import Foundation
import Pictures
import Synchronization

/// ImageTakeOperation of article 000, Pattern 2: the abstract operation (no `main()` of its own)
/// that the chain's filter, post-process and output operations are made from. Its input image is
/// the picture named at its creation (the playground's `UIImage(named:)`) or, without one, the
/// image the first of its dependencies passes on (``ImagePass``); what a subclass's `main()` makes
/// of it, it passes on in turn as `outputImage`.
///
/// `@unchecked Sendable` (required of every Operation subclass): its inputs are constants and
/// its output lives in a `Mutex`.
class ImageTakeOperation: Operation, ImagePass, @unchecked Sendable {
    /// The operation's row in the timeline, and its `name`.
    let label: String
    let context: RunContext
    private let inputName: String?
    private let output = Mutex<RGBAImage?>(nil)

    init(label: String, inputImageNamed inputName: String? = nil, context: RunContext) {
        self.label = label
        self.inputName = inputName
        self.context = context
        super.init()
        name = label
    }

    /// The picture named at creation, drawn when `main()` asks for it (in the child that runs
    /// it, not when a rehearsal creates the operation), or else the image a dependency passes on.
    var inputImage: RGBAImage? {
        inputName.flatMap(SourceImages.named) ?? imageFromDependencies
    }

    var outputImage: RGBAImage? {
        get { output.withLock { $0 } }
        set { output.withLock { $0 = newValue } }
    }

    var sourceName: String? {
        inputName ?? sourceNameFromDependencies
    }
}

/// FilterOperation of article 000: "mists" the upper and lower parts of an image (a blur of
/// radius 6 masked by a top-and-bottom gradient). Its input is an ``ImageTakeOperation``'s; the
/// filtering playground also sleeps a second first.
///
/// For the model (``ModelledOperation``): it blocks its thread for its sleep, then filters, real
/// CPU work left to measure (``ImageCosts/planned(_:of:label:)``):
/// ``Timeline/computing(_:after:_:)`` times it where it runs, and the prediction is made again
/// from that figure.
///
/// `@unchecked Sendable` (required of every Operation subclass): its one property is a constant.
final class FilterOperation: ImageTakeOperation, ModelledOperation, @unchecked Sendable {
    private let sleepSeconds: Double

    init(label: String, inputImageNamed inputName: String? = nil, sleepSeconds: Double = 0, context: RunContext) {
        self.sleepSeconds = sleepSeconds
        super.init(label: label, inputImageNamed: inputName, context: context)
    }

    var modelledWork: ModelledWork {
        ModelledWork(
            articleSeconds: sleepSeconds,
            cpuSeconds: sourceName.map { ImageCosts.planned(\.filter, of: $0, label: label) } ?? 0)
    }

    override func main() {
        guard !isCancelled, let input = inputImage else { return }
        outputImage = context.timeline.computing(
            label, after: { if sleepSeconds > 0 { context.sleep(articleSeconds: sleepSeconds) } }
        ) {
            input.mistedTopAndBottom(radius: ImageCosts.blurRadius)
        }
    }
}

/// PostProcessImageOperation of article 000, Pattern 2: the "instant" photo effect and a
/// vignette, on the image its dependency passes on.
///
/// For the model: real CPU work, left to measure and timed as ``FilterOperation``'s.
///
/// `@unchecked Sendable`: no stored state of its own.
final class PostProcessImageOperation: ImageTakeOperation, ModelledOperation, @unchecked Sendable {
    var modelledWork: ModelledWork {
        ModelledWork(
            articleSeconds: 0,
            cpuSeconds: sourceName.map { ImageCosts.planned(\.postProcess, of: $0, label: label) } ?? 0)
    }

    override func main() {
        guard !isCancelled, let input = inputImage else { return }
        outputImage = context.timeline.computing(label) { input.postProcessed() }
    }
}

/// ImageOutputOperation of article 000, Pattern 2: hands the finished image to the completion,
/// unless cancelled. For the model, an instant's work, drawn as a row only when it hands an
/// image on (a cancelled chain's output hands nothing, even if it started before the cancel).
///
/// `@unchecked Sendable`: its one property is a constant.
final class ImageOutputOperation: ImageTakeOperation, ModelledOperation, @unchecked Sendable {
    private let completion: @Sendable (RGBAImage) -> Void

    init(label: String, context: RunContext, completion: @escaping @Sendable (RGBAImage) -> Void) {
        self.completion = completion
        super.init(label: label, context: context)
    }

    var modelledWork: ModelledWork { ModelledWork(articleSeconds: 0) }

    override func main() {
        guard !isCancelled, let image = inputImage else { return }
        context.timeline.operation(label) {
            completion(image)
        }
    }
}
