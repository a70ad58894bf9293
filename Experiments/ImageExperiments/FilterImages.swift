import ExperimentKit
import Foundation

/// Five FilterOperations on filterQueue, outputs appended through a serial appendQueue
/// (article 000, "Consider a more complicated case…", OperationQueue.playground).
let filterImages = Experiment(
    name: "filter-images",
    title: "Filtering five images on a queue",
    source: ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Consider a more complicated case (filterQueue and appendQueue)"),
    summary: "One FilterOperation per image (city, dark_road, train_day, train_dusk, train_night): sleep(1), then a blur of radius 6 masked by a top-and-bottom gradient, on filterQueue of default width. Each completion block appends the output through appendQueue, of width 1, so the array has one writer. The images and the filter are the project's own (no UIKit or Core Image here).",
    claim: ArticleClaim(
        quote: "The execution time of all operations of 1.19 seconds is comparable to the execution time of one operation (see previous section), that is, there is a multi-threaded execution of operations on the filterQueue queue.",
        seconds: 1.19,
        unreachableBecause: "The article does not say what its 0.19 s beyond the one-second sleep was; most likely the Mac's Core Image blur and the playground's own overhead, which no model of this machine can know. Here the same kind of blur costs a few milliseconds, measured and counted by the model."
    ),
    expectedOutcome: "All five filtered images arrive, none lost to a race on the array.",
    platformDifference: "Linux's Dispatch gives the five sleeping filters one thread per CPU and one more per second, where Apple's starts all five at once.",
    parameters: [StandardParameters.sleep(1, of: "each filter sleeps before blurring"), StandardParameters.width(nil)],
    workload: { values in
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "filterQueue", maxConcurrentOperationCount: values.width("width")))
        for name in SourceImages.filterNames {
            workload.add(PlannedOperation(label: name, articleSeconds: values.seconds("sleep"), executor: .queue(queue), cpuSeconds: ImageCosts.costs(of: name).filter))
        }
        return workload
    },
    run: { context, workload in
        let filterQueue = QueueWorkloadRunner(context: context, workload: workload).makeQueues()[0]
        let appendQueue = OperationQueue()
        appendQueue.maxConcurrentOperationCount = 1
        let filtered = LockedArray<(String, RGBAImage)>()
        let completions = DispatchGroup()
        let operations = SourceImages.filterNames.map { name in
            let operation = FilterOperation(label: name, inputImage: SourceImages.named(name), sleepSeconds: workload.operations[0].articleSeconds, context: context)
            completions.enter()
            operation.completionBlock = { [unowned operation] in
                if let image = operation.outputImage {
                    appendQueue.addOperation { filtered.append((name, image)) }
                }
                completions.leave()
            }
            return operation
        }
        context.timeline.timeEnqueueing { operations.forEach(filterQueue.addOperation) }
        filterQueue.waitUntilAllOperationsAreFinished()
        completions.wait()
        appendQueue.waitUntilAllOperationsAreFinished()
        context.timeline.stopClock()
        let images = filtered.elements.compactMap { name, image in
            ImageFiles.save(SourceImages.named(name).map { $0.sideBySide(image) } ?? image, experiment: "filter-images", name: name, in: context.imagesDirectory)
        }
        return Outcome([
            Outcome.Field("appended", .strings(filtered.elements.map(\.0))),
            Outcome.Field("images", .strings(images)),
        ])
    },
    checks: { measurement, _ in
        let appended = measurement.outcome["appended"]?.stringArray ?? []
        return [Check("all five outputs appended, none lost", passed: appended.sorted() == SourceImages.filterNames.sorted())]
    }
)
