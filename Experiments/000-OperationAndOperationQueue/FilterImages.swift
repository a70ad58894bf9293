import ExperimentKit
import Foundation
import Pictures

/// Five FilterOperations on filterQueue, outputs appended through a serial appendQueue
/// (article 000, "Consider a more complicated case…", OperationQueue.playground).
let filterImages = Experiment(
    "filter-images", article: "000_d66eefb2b922d5e0.txt",
    section: "Experiment 1. Creating an OperationQueue and Adding Closures: filterQueue and appendQueue"
) { context in
    let knobs = context.parameters
    let filterQueue = OperationQueue()
    filterQueue.maxConcurrentOperationCount = knobs[.width].maxConcurrentOperationCount
    // appendQueue is Foundation's own queue, not the lab's: its appends are added by the
    // completion blocks while the filters finish, take no time, and are left out of the plan.
    let appendQueue = Foundation.OperationQueue()
    appendQueue.maxConcurrentOperationCount = 1
    let filteredImages = LockedArray<(String, RGBAImage)>()
    let appended = DispatchGroup()
    for name in SourceImages.filterNames {
        let filterOp = FilterOperation(
            label: name, inputImageNamed: name, sleepSeconds: knobs[.sleep], context: context)
        appended.enter()
        filterOp.completionBlock = { [unowned filterOp] in
            defer { appended.leave() }
            guard let output = filterOp.outputImage else { return }
            appendQueue.addOperation { filteredImages.append((name, output)) }
        }
        filterQueue.addOperation(filterOp)
    }
    filterQueue.waitUntilAllOperationsAreFinished()
    // corelibs runs a completion block after the queue has let its operation go (in the
    // rehearsal nothing ran, so there is nothing to wait for).
    if !context.isRehearsal { appended.wait() }
    appendQueue.waitUntilAllOperationsAreFinished()
    context.timeline.stopClock()
    context.record("appended", .strings(filteredImages.elements.map(\.0)))
    let images = filteredImages.elements.compactMap { name, image in
        ImageFiles.save(
            SourceImages.named(name).map { $0.sideBySide(image) } ?? image, experiment: "filter-images", name: name,
            in: context.imagesDirectory)
    }
    context.record(.images, images)
}
.title("Filtering five images on a queue")
.summary(
    "One FilterOperation per image (city, dark_road, train_day, train_dusk, train_night): sleep(1), then a blur of radius 6 masked by a top-and-bottom gradient, on filterQueue of default width. Each completion block appends the output through appendQueue, of width 1, so the array has one writer. The images and the filter are the project's own (no UIKit or Core Image here)."
)
.claim(
    "The execution time of all operations of 1.19 seconds is comparable to the execution time of one operation (see previous section), that is, there is a multi-threaded execution of operations on the filterQueue queue.",
    seconds: 1.19,
    unreachableBecause:
        "The article does not say what its 0.19 s beyond the one-second sleep was; most likely the Mac's Core Image blur and the playground's own overhead, which no model of this machine can know. Here the same kind of blur costs a few milliseconds, measured and counted by the model."
)
.expectedOutcome("All five filtered images arrive, none lost to a race on the array.")
.platformDifference(
    "Linux's Dispatch gives the five sleeping filters one thread per CPU and one more per second, where Apple's starts all five at once."
)
.parameters([StandardParameters.sleep(1, of: "each filter sleeps before blurring"), StandardParameters.width(nil)])
.checks { measurement, _ in
    let appended = measurement.outcome["appended"]?.stringArray ?? []
    return [
        Check("all five outputs appended, none lost", passed: appended.sorted() == SourceImages.filterNames.sorted())
    ]
}
