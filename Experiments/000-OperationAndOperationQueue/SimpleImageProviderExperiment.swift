import ExperimentKit
import Foundation

/// Pattern 3's simplified ImageProvider: three operations whose chain starts as the provider is
/// created, and one provider cancelled as its cell leaves (article 000, "Pattern 3").
let simpleImageProvider = Experiment(
    "simple-image-provider", article: "000_d66eefb2b922d5e0.txt",
    section:
        "Pattern 3. We work with TableViewController and CollectionViewController (the table-view app's simplified ImageProvider)"
) { context in
    let arrived = LockedArray<String>()
    var imageProviders = [SimpleImageProvider]()
    for (index, image) in SimpleProvider.images.enumerated() {
        let title = SimpleProvider.title(index)
        imageProviders.append(
            SimpleImageProvider(
                imageName: image, title: title, latency: SimulatedDownloads.latency(image), context: context
            ) { _ in
                print("image \(title) arrived")
                arrived.append(title)
            })
    }

    context.sleep(untilArticleSeconds: SimpleProvider.cancelAt)
    print("cancel() the provider of \(SimpleProvider.title(0)): its cell left the screen")
    imageProviders[0].cancel()
    for provider in imageProviders { provider.queue.waitUntilAllOperationsAreFinished() }
    context.record("arrived", .strings(arrived.elements))
}
.title("Pattern 3's simplified ImageProvider: three operations, started as created")
.summary(
    "Three of the table-view app's pictures (Eiffel Tower, Scottish castle, Arctic-02), each with the simplified ImageProvider: load → filter → output on a queue that is not suspended, two at a time, started as the provider is created; no start(), no wait(). At 1 s the first provider is cancelled, as the table does when a cell leaves the screen. The downloads are simulated (timers with the latencies table-view-scroll gives these pictures, 2.5, 2 and 1.5 s, holding no thread); the filter is real (a blur of radius 6 masked top and bottom). An app cannot wait, so the experiment, which must time the run, waits on the providers' queues. table-view-scroll runs the same table with Pattern 2's four-operation provider."
)
.claim(
    "Namely, we do not need to ImageProvider stop ( isSuspended = true) the operation queue when initializing an instance of a class , and then specifically start an instance of the class ImageProvider using the method start()- we immediately start the chain of dependent operations during initialization and set waitUntilFinished equal false…",
    seconds: nil
)
.expectedOutcome(
    "Every load starts as its provider is created, at 0 s; the Eiffel Tower's is cancelled at 1 s and its filter and output never do their work; Arctic-02 and the Scottish castle arrive at about 1.5 and 2 s, each after its filter."
)
.platformDifference(
    "Downloads that hold no thread and a few milliseconds of filtering behave the same on every platform."
)
.checks { measurement, prediction in
    // The images the model lets through: those whose output operation does its work.
    let expected = Set(
        prediction.branches.map { branch in
            SimpleProvider.images.indices.map(SimpleProvider.title).filter { title in
                branch.spans.contains { $0?.label == SimpleImageProvider.labels(title)[2] && $0?.ranWork == true }
            }
        })
    let arrived = measurement.outcome["arrived"]?.stringArray ?? []
    let cancelledAt = measurement.output.first { $0.text.hasPrefix("cancel()") }?.at ?? 0
    let loads = SimpleProvider.images.indices.compactMap {
        measurement.span(SimpleImageProvider.labels(SimpleProvider.title($0))[0])
    }
    let cancelled = SimpleImageProvider.labels(SimpleProvider.title(0)).dropFirst()
    return [
        Check(
            "images \(arrived.joined(separator: ", ")) arrived, as predicted",
            passed: expected.contains(arrived.sorted())),
        Check(
            "every load started at once, before the cancel: no start() was needed",
            passed: loads.count == 3 && loads.allSatisfy { $0.start < cancelledAt }),
        Check(
            "the cancelled provider's filter and output never did their work",
            passed: measurement.operations.allSatisfy { !cancelled.contains($0.label) }),
    ]
}

/// The pictures and instant of the simple-image-provider experiment.
enum SimpleProvider {
    static let images = ["Eiffel Tower", "Scottish castle", "Arctic-02"]
    /// A second before the Eiffel Tower's download would arrive, half a second from any other arrival.
    static let cancelAt = 1.0

    static func title(_ index: Int) -> String {
        "\(index + 1) \(images[index])"
    }
}
