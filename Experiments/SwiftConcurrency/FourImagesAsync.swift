import ExperimentKit
import Foundation
import Pictures

/// Four structured child tasks, each a download, a filter and a post-process: the
/// Swift-concurrency counterpart of ``fourImages``.
///
/// Its run and plan stay declared, not a learner's code the rehearsal reads: its children filter
/// real pictures, CPU work that a rehearsal would do whenever the experiment is predicted (`list`
/// and `describe` draw no picture) and that the model counts only as an operation's declared work.
let fourImagesAsync = Experiment(ArrivedImage.experiment, source: ModernCounterpart.source(of: fourImages)) {
    context, workload in
    let latencies = Dictionary(uniqueKeysWithValues: workload.operations.map { ($0.label, $0.articleSeconds) })
    let arrived = try AwaitFromRun.wait {
        try await withThrowingTaskGroup(of: FinishedImage.self) { group in
            for (index, name) in SimulatedDownloads.providerImages.enumerated() {
                let title = "\(index + 1) \(name)"
                let labels = ImageProvider.labels(title)
                // A picture the program cannot draw, or the plan does not download, gets no
                // child: its rows stay empty and the check on which images arrived says so.
                guard let picture = SourceImages.named(name), let latency = latencies[labels[0]] else { continue }
                group.addTask {
                    let original = try await context.timeline.recording(labels[0]) {
                        try await context.taskSleep(articleSeconds: latency)
                        return picture
                    }
                    let filtered = context.timeline.computing(labels[1]) {
                        original.mistedTopAndBottom(radius: ImageCosts.blurRadius)
                    }
                    let processed = context.timeline.computing(labels[2]) { filtered.postProcessed() }
                    return FinishedImage(title: title, original: original, output: processed)
                }
            }
            // The owner hands each image on as it arrives (its output).
            var arrived: [FinishedImage] = []
            for try await image in group {
                await context.timeline.recording(ImageProvider.labels(image.title)[3]) {
                    context.print("image \(image.title) arrived")
                    arrived.append(image)
                }
            }
            return arrived
        }
    }
    // Filing an image (its PNG file, its checksum) is the tool's work, not the article's:
    // done once the clock has stopped, so it delays no output (see ImageFiles).
    context.timeline.stopClock()
    let filed = arrived.map { ArrivedImage($0, savedIn: context.imagesDirectory) }
    return Outcome([
        Outcome.Field(.arrived, filed.map(\.title)),
        Outcome.Field(.images, filed.compactMap(\.file)),
        Outcome.Field("outputCRC32", .object(filed.map { Outcome.Field($0.title, .string($0.checksum)) })),
    ])
}
.title("Four images as child tasks of a TaskGroup")
.summary(
    "One child task per image (the Eiffel Tower, Venice, a screenshot, arctic-12): a simulated download that awaits Task.sleep for the picture's latency (2.5, 10, 2 and 5 s, holding no thread), then the real filter (a blur of radius 6 masked top and bottom) and post-process (the \"instant\" colour effect and a vignette). The group's owner receives each finished image as its output, as ImageOutputOperation hands it on. Compare four-images, where each image is a chain of four operations on a queue of its own."
)
.expectedOutcome(fourImages.expectedOutcome)
.platformDifference(ModernCounterpart.platformDifference)
.plannedAs {
    var workload = Workload()
    for (index, image) in SimulatedDownloads.providerImages.enumerated() {
        let labels = ImageProvider.labels("\(index + 1) \(image)")
        // The download awaits Task.sleep: a timer. The filters compute on a thread of the
        // pool for what they cost where they run (left to measure until then).
        let load = workload.add(
            PlannedOperation(
                label: labels[0], articleSeconds: SimulatedDownloads.latency(image), executor: .globalQueue(.default),
                work: .timer))
        let filter = workload.add(
            PlannedOperation(
                label: labels[1], articleSeconds: 0, executor: .globalQueue(.default), dependencies: [load],
                cpuSeconds: ImageCosts.planned(\.filter, of: image, label: labels[1])))
        let postProcess = workload.add(
            PlannedOperation(
                label: labels[2], articleSeconds: 0, executor: .globalQueue(.default), dependencies: [filter],
                cpuSeconds: ImageCosts.planned(\.postProcess, of: image, label: labels[2])))
        workload.add(
            PlannedOperation(
                label: labels[3], articleSeconds: 0, executor: .globalQueue(.default), dependencies: [postProcess]))
    }
    return workload
}
.checks { measurement, prediction in
    fourImages.checks(measurement, prediction) + [ModernCounterpart.beside(fourImages, prediction)]
}

/// One child's result: the downloaded picture and what the filters made of it.
struct FinishedImage: Sendable {
    var title: String
    var original: RGBAImage
    var output: RGBAImage
}

/// An image as the group's owner records it: its title, the file showing it before and after,
/// and the CRC-32 of its output's pixels, which identifies the output in the outcome.
struct ArrivedImage {
    /// The experiment's name, which prefixes its image files.
    static let experiment = "four-images-async"

    var title: String
    var file: String?
    var checksum: String

    init(_ image: FinishedImage, savedIn directory: URL?) {
        title = image.title
        file = ImageFiles.save(
            image.original.sideBySide(image.output), experiment: Self.experiment, name: image.title, in: directory)
        checksum = Self.checksum(image.output)
    }

    static func checksum(_ image: RGBAImage) -> String {
        String(PNGEncoder.crc32(image.pixels), radix: 16)
    }
}
