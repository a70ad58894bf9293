import ExperimentKit
import Foundation
import Synchronization

/// The downloaded image handed to the processing operation in the download's completionBlock
/// (article 002, "Real-World Example: Image Download and Processing"), with 002's AsyncOperation
/// and its `setState`.
let completionBlockHandOff = Experiment(
    "completion-block-hand-off", article: "002_207e8afa59e11a7d.txt",
    section: "Real-World Example: Image Download and Processing"
) { context in
    let operationQueue = OperationQueue()
    operationQueue.maxConcurrentOperationCount = 2 // Limit concurrent downloads

    let imageUrls = [
        URL(string: "https://example.com/image1.jpg")!,
        URL(string: "https://example.com/image2.jpg")!,
        URL(string: "https://example.com/image3.jpg")!,
    ]

    // The experiment's thread is the main thread and blocks waiting for the queue, so the
    // main queue would never drain: a serial queue plays its part.
    let main = DispatchQueue(label: "main")
    let processedImages = Mutex<[Article002.UIImage]>([])
    var downloads: [Article002.ImageDownloadOperation] = []
    var processings: [Article002.ImageProcessingOperation] = []

    for imageUrl in imageUrls {
        let downloadOperation = Article002.ImageDownloadOperation(imageURL: imageUrl, context: context)
        let processingOperation = Article002.ImageProcessingOperation(inputImage: Article002.UIImage())
        downloadOperation.name = HandOff.download(imageUrl)
        processingOperation.name = HandOff.processing(imageUrl)

        // Set up dependency
        processingOperation.addDependency(downloadOperation)

        // Completion Block for Processing Operation
        processingOperation.completionBlock = {
            if let processedImage = processingOperation.outputImage {
                // Append to array in a thread-safe manner
                main.async {
                    processedImages.withLock { $0.append(processedImage) }
                }
            }
        }

        // Update the input image for processing operation after download
        downloadOperation.completionBlock = {
            if let downloadedImage = downloadOperation.downloadedImage {
                processingOperation.inputImage = downloadedImage
            }
        }

        // Add operations to the queue
        operationQueue.addOperation(downloadOperation)
        operationQueue.addOperation(processingOperation)
        downloads.append(downloadOperation)
        processings.append(processingOperation)
    }

    operationQueue.waitUntilAllOperationsAreFinished()
    guard !context.isRehearsal else { return }
    // The completion blocks run after the queue lets the operations go: wait for them, then
    // for the appends the processing operations' blocks sent to `main`.
    downloads.forEach { $0.completed.wait() }
    processings.forEach { $0.completed.wait() }
    main.sync {}
    context.record(HandOff.found, .strings(processings.map { "\($0.name ?? ""): \($0.found.description)" }))
    context.record(HandOff.processedImages, .number(Double(processedImages.withLock(\.count))))
    context.record(HandOff.signals, .strings(downloads[0].signals.withLock { $0 }))
}
.title("A completionBlock hands the download to its dependent: a race with the dependent's start")
.summary(
    "Article 002's three download → process pairs on a queue of width 2: each ImageProcessingOperation, made with a placeholder UIImage(), depends on its ImageDownloadOperation (002's AsyncOperation: a concurrent state queue, barrier writes, setState), and the download's completionBlock sets the processing operation's inputImage. Which comes first, that completion block or the processing operation's main(), is up to Foundation: the run records what each processing operation found. There is no network, UIKit or Core Image here: the download is a timer of 1 s holding no thread, the image a stand-in that knows whether it is the placeholder, and the sepia filter returns nil for the placeholder, as CIImage(image:) does for an empty UIImage. setState calls small wrappers that record each willChangeValue/didChangeValue before sending it (Linux's Operation does not let a subclass override them)."
)
.claim(
    "Dependencies: Each ImageProcessingOperation depends on its corresponding ImageDownloadOperation, ensuring that processing starts only after the download is complete.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote: "let inputImage: UIImage",
        here:
            "its completion block assigns processingOperation.inputImage = downloadedImage, which a let forbids; the experiment declares it var."
    ),
    ArticleCorrection(
        quote: "didChangeValue(forKey: _state.keyPath) didChangeValue(forKey: newState.keyPath)",
        here:
            "reading setState, the pair runs after the barrier has written the new state, so both lines name the new key: the old key (isReady, then isExecuting) gets willChangeValue but never didChangeValue, and the new key gets didChangeValue twice, as the run's signal record shows. swift-corelibs-foundation's willChangeValue(forKey:) does nothing and a second didChangeValue(forKey: \"isFinished\") returns early for an operation already finished, so the slip goes unseen on Linux; KVO on Apple platforms expects each willChange paired with its didChange. This project's AsyncOperation signals the old key and the new one once each."
    ),
    ArticleCorrection(
        quote:
            "downloadOperation.completionBlock = { if let downloadedImage = downloadOperation.downloadedImage { processingOperation.inputImage = downloadedImage } }",
        here:
            "this completion block is the only thing that hands processing its input, and nothing makes processing wait for it: the dependency waits for the download to finish, not for its completion block, which Foundation runs on a thread of its own about when it starts the dependents. So whether processing finds the downloaded image or the placeholder (and outputs nil) is a race; the outcome shows who won in this run. Passing the image through the dependency itself (000's ImagePass, load-and-filter) does not race."
    )
)
.expectedOutcome(
    "Each processing operation starts when its download ends (about 2 s in all: two pairs, then the third); whether it found the downloaded image or the placeholder is the race's outcome, shown for every pair. Each setState sends willChange for the old key and the new one, then didChange for the new key twice."
)
.platformDifference("Two downloads at a time and dependencies behave the same on every platform.")
.checks { measurement, _ in
    let found = measurement.outcome[HandOff.found]?.stringArray ?? []
    let transitions = HandOff.transitions(measurement.outcome[HandOff.signals]?.stringArray ?? [])
    return [
        Check(
            "every processing operation started after its download had ended",
            passed: HandOff.imageNames.allSatisfy { name in
                guard let download = measurement.span(HandOff.download(name)),
                    let processing = measurement.span(HandOff.processing(name))
                else { return false }
                return processing.start >= download.end - Overlap.touchingSeconds
            }),
        Check(
            "each processing operation found the placeholder or the downloaded image (\(HandOff.possible.joined(separator: " or ")))",
            passed: found.count == HandOff.imageNames.count
                && found.allSatisfy { line in HandOff.Found.allCases.contains { line.hasSuffix(": \($0.description)") }
                }),
        Check(
            "only the processing operations that found the downloaded image added a processed image",
            passed: measurement.outcome[HandOff.processedImages]?.numberValue
                == Double(found.filter { $0.hasSuffix(HandOff.Found.downloaded.description) }.count)),
        Check(
            "each setState sent didChange for the new key twice and none for the old one",
            passed: transitions.count == 2 && transitions.allSatisfy(\.signalsTheNewKeyTwice)),
    ]
}
.namingOutcomes(
    OutcomeNaming(
        declared: HandOff.possible,
        measured: { run in
            run.outcome[HandOff.found]?.stringArray.map {
                HandOff.outcome(handedOver: $0.filter { $0.hasSuffix(HandOff.Found.downloaded.description) }.count)
            }
        }
    ))

/// Article 002's types, under its own names (the project has an `AsyncOperation` of its own).
enum Article002 {
    /// The article's AsyncOperation: the state read on a concurrent queue, written with a barrier.
    ///
    /// `@unchecked Sendable`: `_state` is read only inside `stateQueue.sync` and written only in
    /// a barrier block of it; `signals` is a `Mutex`.
    class AsyncOperation: Operation, @unchecked Sendable {
        enum State: String {
            case isReady, isExecuting, isFinished

            fileprivate var keyPath: String {
                return rawValue
            }
        }

        private var _state = State.isReady

        private let stateQueue = DispatchQueue(label: "com.example.operation.state", attributes: .concurrent)

        /// Every willChangeValue/didChangeValue setState sends, in order (`willChange(isReady)`).
        let signals = Mutex<[String]>([])

        private func setState(_ newState: State) {
            recordedWillChangeValue(forKey: _state.keyPath)
            recordedWillChangeValue(forKey: newState.keyPath)
            stateQueue.sync(flags: .barrier) {
                _state = newState
            }
            recordedDidChangeValue(forKey: _state.keyPath)
            recordedDidChangeValue(forKey: newState.keyPath)
        }

        // The recording wrappers: Linux's Operation declares willChangeValue/didChangeValue in
        // an extension, so a subclass cannot override them to watch what setState sends.
        private func recordedWillChangeValue(forKey key: String) {
            signals.withLock { $0.append("willChange(\(key))") }
            willChangeValue(forKey: key)
        }

        private func recordedDidChangeValue(forKey key: String) {
            signals.withLock { $0.append("didChange(\(key))") }
            didChangeValue(forKey: key)
        }

        override var isReady: Bool {
            return super.isReady && state == .isReady
        }

        override var isExecuting: Bool {
            return state == .isExecuting
        }

        override var isFinished: Bool {
            return state == .isFinished
        }

        override var isAsynchronous: Bool {
            return true
        }

        // The article declares it private, which its subclasses' `self.state = .isFinished`
        // cannot reach.
        var state: State {
            get {
                return stateQueue.sync {
                    _state
                }
            }
            set {
                setState(newValue)
            }
        }

        override func start() {
            if isCancelled {
                state = .isFinished
                return
            }
            state = .isExecuting
            main()
        }

        override func cancel() {
            super.cancel()
            state = .isFinished
        }
    }

    /// A stand-in for UIKit's image: the placeholder `UIImage()`, or one made from downloaded data.
    struct UIImage: Sendable, Equatable {
        let data: Data?

        init() {
            data = nil
        }

        init?(data: Data) {
            self.data = data
        }
    }

    /// The article's ImageDownloadOperation; the download is simulated (no network here): after
    /// 1 s a timer, holding no thread, hands the task's callback some data.
    ///
    /// `@unchecked Sendable`: `imageURL` and `context` are constants; `downloadedImage` is
    /// written once, by the download's callback, before the operation finishes, and read after.
    final class ImageDownloadOperation: AsyncOperation, ModelledOperation, @unchecked Sendable {
        let imageURL: URL
        var downloadedImage: UIImage?
        private let context: RunContext
        /// Signalled when the completion block has run (Foundation runs it after the queue lets go).
        let completed = DispatchSemaphore(value: 0)

        init(imageURL: URL, context: RunContext) {
            self.imageURL = imageURL
            self.context = context
            super.init()
        }

        var modelledWork: ModelledWork {
            ModelledWork(articleSeconds: HandOff.downloadSeconds, work: .timer)
        }

        override var completionBlock: (@Sendable () -> Void)? {
            get { super.completionBlock }
            set { super.completionBlock = signalling(completed, after: newValue) }
        }

        override func main() {
            let row = context.timeline.begin(name ?? "")
            let task = SimulatedDataTask(url: imageURL, seconds: HandOff.downloadSeconds) { data, response, error in
                defer {
                    self.context.timeline.end(row)
                    self.state = .isFinished
                }

                if self.isCancelled {
                    return
                }

                if let data = data {
                    self.downloadedImage = UIImage(data: data)
                }
            }
            task.resume()
        }
    }

    /// The article's ImageProcessingOperation, with `var inputImage` (see the corrections).
    ///
    /// `@unchecked Sendable`: `inputImage` is written by the download's completion block and read
    /// by `main()`, on two threads, with nothing between them: the race this experiment shows
    /// (a `Mutex` makes each access whole; it cannot order them).
    final class ImageProcessingOperation: Operation, @unchecked Sendable {
        private let input: Mutex<UIImage>
        var inputImage: UIImage {
            get { input.withLock { $0 } }
            set { input.withLock { $0 = newValue } }
        }
        var outputImage: UIImage?
        /// What `main()` found in `inputImage`.
        private(set) var found = HandOff.Found.placeholder
        /// Signalled when the completion block has run: its `main.async` append is then on its way.
        let completed = DispatchSemaphore(value: 0)

        init(inputImage: UIImage) {
            input = Mutex(inputImage)
            super.init()
        }

        override var completionBlock: (@Sendable () -> Void)? {
            get { super.completionBlock }
            set { super.completionBlock = signalling(completed, after: newValue) }
        }

        override func main() {
            if isCancelled {
                return
            }

            let image = inputImage
            found = image.data == nil ? .placeholder : .downloaded
            // Apply a sepia filter as an example
            outputImage = applySepiaFilter(to: image)
        }

        /// No Core Image here: like `CIImage(image: UIImage())`, the placeholder gives nil.
        private func applySepiaFilter(to image: UIImage) -> UIImage? {
            guard let data = image.data else { return nil }
            return UIImage(data: Data(data.reversed()))
        }
    }

    /// A completion block that signals `completed` once it has run, so the experiment can wait
    /// for it: Foundation runs it on a thread of its own, after the queue has let its operation go.
    private static func signalling(_ completed: DispatchSemaphore, after block: (@Sendable () -> Void)?) -> (
        @Sendable () -> Void
    )? {
        guard let block else { return nil }
        return {
            block()
            completed.signal()
        }
    }

    /// A URLSession data task, simulated: `resume()` starts a timer that, like a network request,
    /// holds no thread, and then calls back on a global queue with some bytes.
    struct SimulatedDataTask {
        let url: URL
        /// Article seconds, which `asyncAfter` scales by the time scale in a run.
        let seconds: Double
        // The response is `Any?`: URLResponse lives in FoundationNetworking, which nothing else here needs.
        let completionHandler: @Sendable (Data?, Any?, Error?) -> Void

        func resume() {
            let (url, handler) = (url, completionHandler)
            DispatchQueue.global().asyncAfter(deadline: .now() + seconds) {
                handler(Data(url.absoluteString.utf8), nil, nil)
            }
        }
    }
}

/// Labels, keys and outcomes of the completion-block-hand-off experiment.
enum HandOff {
    static let downloadSeconds = 1.0
    static let imageNames = ["image1.jpg", "image2.jpg", "image3.jpg"]
    static let found = "what each processing operation found"
    static let processedImages = "processedImages.count"
    static let signals = "setState's signals (image1.jpg's download)"

    static func download(_ url: URL) -> String { download(url.lastPathComponent) }
    static func processing(_ url: URL) -> String { processing(url.lastPathComponent) }
    static func download(_ name: String) -> String { "download \(name)" }
    static func processing(_ name: String) -> String { "process \(name)" }

    /// What a processing operation's `main()` found in its `inputImage`.
    enum Found: CaseIterable, CustomStringConvertible {
        case placeholder, downloaded

        var description: String {
            switch self {
            case .placeholder: return "the placeholder"
            case .downloaded: return "the downloaded image"
            }
        }
    }

    /// `1 of 3 hand-offs in time`: the race named by how many completion blocks came first.
    static func outcome(handedOver: Int) -> String {
        "\(handedOver) of \(imageNames.count) hand-offs in time"
    }

    static let possible = (0...imageNames.count).map { outcome(handedOver: $0) }

    /// One setState's signals, read back from the record.
    struct Transition {
        let willChange: [String]
        let didChange: [String]

        /// willChange for the old key and the new one, then didChange for the new key twice.
        var signalsTheNewKeyTwice: Bool {
            willChange.count == 2 && willChange[0] != willChange[1]
                && didChange == [willChange[1], willChange[1]]
        }
    }

    /// The record split into setState calls: each begins with its first willChange.
    static func transitions(_ calls: [String]) -> [Transition] {
        var groups: [[String]] = []
        for call in calls {
            if call.hasPrefix("willChange"), groups.last?.last?.hasPrefix("willChange") != true { groups.append([]) }
            if groups.isEmpty { groups.append([]) }
            groups[groups.count - 1].append(call)
        }
        return groups.map { calls in
            func keys(_ name: String) -> [String] {
                calls.filter { $0.hasPrefix(name + "(") }.map { String($0.dropFirst(name.count + 1).dropLast()) }
            }
            return Transition(willChange: keys("willChange"), didChange: keys("didChange"))
        }
    }
}
