import ExperimentKit
import Foundation
import Pictures

/// Four ImageProviders, waited for (article 000, "Pattern 2", CancellationFourImages.playground),
/// optionally cancelled at an instant. The chain and its work are read from the providers'
/// objects (``ImageProvider``, ``ImageLoadOperation``, ``FilterOperation``).
func fourImagesExperiment(name: String, cancelAt: Double?) -> Experiment {
    Experiment(
        name, article: "000_d66eefb2b922d5e0.txt",
        section: "Pattern 2. We work with a group of dependent operations (CancellationFourImages.playground)"
    ) { context in
        let knobs = context.parameters
        let arrived = LockedArray<(String, RGBAImage)>()
        var imageProviders = [ImageProvider]()
        for (index, image) in SimulatedDownloads.providerImages.enumerated() {
            let title = "\(index + 1) \(image)"
            let latency = knobs[.latency(image)]
            imageProviders.append(
                ImageProvider(imageName: image, title: title, latency: latency, context: context) { output in
                    print("image \(title) arrived")
                    arrived.append((title, output))
                })
        }
        for provider in imageProviders { provider.start() }
        if cancelAt != nil {
            context.sleep(untilArticleSeconds: knobs[.cancelAt])
            print("cancel() all providers")
            for provider in imageProviders { provider.cancel() }
        }
        for provider in imageProviders { provider.wait() }
        context.timeline.stopClock()
        context.record(.arrived, arrived.elements.map(\.0))
        // The pictures' files are the tool's work, written after the clock stopped.
        let images = arrived.elements.compactMap { title, output in
            let original = SourceImages.named(String(title.drop { $0 != " " }.dropFirst()))
            return ImageFiles.save(
                original.map { $0.sideBySide(output) } ?? output, experiment: name, name: title,
                in: context.imagesDirectory)
        }
        context.record(.images, images)
    }
    .title(cancelAt.map { "Four ImageProviders, cancelled at \($0.decimalText) s" } ?? "Four ImageProviders")
    .summary(
        "Four ImageProviders (the Eiffel Tower, Venice, a screenshot, arctic-12), each a chain load → filter → post-process → output on its own queue, created suspended, two at a time; start() all, "
            + (cancelAt.map { "cancel() all at \($0.decimalText) s, " } ?? "")
            + "then wait() for all. The downloads are simulated (timers with latencies of 2.5, 10, 2 and 5 s, holding no thread); the filters are real: a blur of radius 6 masked top and bottom, then an \"instant\" colour effect and a vignette."
    )
    .claim(
        cancelAt == nil
            ? "The duration of all operations is a little more than 10 seconds."
            : "We start loading images, wait 6 seconds and use the method cancel() to delete all operations. As a result, we get the download of only three images - 1st, 3rd and 4th",
        seconds: cancelAt == nil ? 10 : nil
    )
    .expectedOutcome(
        cancelAt == nil
            ? "All four images arrive; Venice, the slowest to load, last."
            : "Images 1, 3 and 4 arrive; Venice's load is cancelled and its filter, post-process and output never do their work."
    )
    .platformDifference(
        "Downloads that hold no thread and a few milliseconds of filtering behave the same on every platform."
    )
    .parameters(
        SimulatedDownloads.providerImages.map {
            StandardParameters.latency($0, SimulatedDownloads.latency($0), why: SimulatedDownloads.why)
        }
            + (cancelAt.map { [StandardParameters.cancelAt($0)] } ?? [])
    )
    .checks { measurement, prediction in
        // The images the model lets through: those whose output operation does its work.
        let expected = Set(
            prediction.branches.map { branch in
                branch.spans.compactMap { span in
                    span.flatMap {
                        $0.ranWork && $0.label.hasSuffix("· output")
                            ? String($0.label.dropLast(" · output".count)) : nil
                    }
                }.sorted()
            })
        let arrived = measurement.outcome[.arrived] ?? []
        let text = expected.map { $0.map { String($0.prefix(1)) }.joined(separator: ", ") }.sorted().joined(
            separator: " or ")
        var checks = [
            Check(
                "images \(arrived.map { String($0.prefix(1)) }.joined(separator: ", ")) arrived, as predicted (\(text))",
                passed: expected.contains(arrived.sorted()))
        ]
        if cancelAt == nil, prediction.parameters.isArticleSetting {
            checks.append(Check("Venice, the slowest to load, arrived last", passed: arrived.last == "2 Venice"))
        } else if cancelAt != nil, prediction.parameters.isArticleSetting {
            let venice = Set(ImageProvider.labels("2 Venice").dropFirst())
            let ran = measurement.operations.filter { venice.contains($0.label) }
            checks.append(Check("Venice's filter, post-process and output never did their work", passed: ran.isEmpty))
        }
        return checks
    }
    .namingOutcomes(
        OutcomeNaming(
            // A race is told by the images that arrive: those whose output operation does its work.
            predicted: { branch, _ in
                imageOutcome(
                    branch.spans.compactMap { span in
                        span.flatMap { $0.ranWork && $0.label.hasSuffix("· output") ? String($0.label.prefix(1)) : nil }
                    })
            },
            measured: { $0.outcome[.arrived].map { imageOutcome($0.map { String($0.prefix(1)) }) } }
        ))
}

/// `images 1, 3, 4`: how the four-images experiments name an outcome.
private func imageOutcome(_ numbers: [String]) -> String {
    numbers.isEmpty ? "no image" : "images " + numbers.sorted().joined(separator: ", ")
}

let fourImages = fourImagesExperiment(name: "four-images", cancelAt: nil)
let fourImagesCancelledAtSixSeconds = fourImagesExperiment(name: "four-images-cancel-6s", cancelAt: 6)
