import ExperimentKit
import Foundation

// swift-format-ignore
/// `removeDependency(_:)`: the dependency leaves the list; whether the operation stops waiting
/// for it is the platform's (article 000, "Dependencies").
let removeDependency = Experiment("remove-dependency", article: "000_d66eefb2b922d5e0.txt", section: "Dependencies ( dependencies)") { context in
    let queue = OperationQueue()
    let download = BlockOperation { print(Removal.download); sleep(1) }
    let processing = BlockOperation { print(Removal.processing); sleep(0.5) }
    processing.addDependency(download)
    processing.removeDependency(download)
    context.record("after removeDependency", .strings(Removal.describe(processing)))

    queue.addOperation(download)
    queue.addOperation(processing)
    download.waitUntilFinished()
    context.record("when the download has finished", .strings(Removal.describe(processing)))
}
.title("removeDependency: off the list, yet on Linux the operation still waits")
.summary("A processing operation (0.5 s) is given a download (1 s) as its dependency with addDependency, which is then taken away with removeDependency before either is added to a queue. Both go to one queue. The experiment waits for the download only, then reads processing's state: on Linux, where processing never becomes ready, waiting for the queue would never return.")
.claim(
    "You can add and remove “dependencies” ( dependency), as well as get a list of “dependencies” dependencies added for this operation.",
    seconds: nil
)
.expectedOutcome("After removeDependency processing lists no dependencies, yet on Linux it is not ready and never starts: the download runs 0–1 s alone, and processing is still pending when it has finished (1 s). On Apple's Foundation processing would start at once, beside the download.")
.platformDifference("Linux's Foundation takes the dependency off the list but keeps the count of unfinished dependencies addDependency raised, so the operation waits for ever unless it is cancelled, where Apple's lets it start at once.")
.checks { measurement, prediction in
    // The model decides whether the platform lets processing go: the run must agree with it.
    let planned = prediction.workload.operations.firstIndex { $0.label == Removal.processing }
    let runs = planned.map { index in prediction.branches.allSatisfy { $0.spans[index] != nil } } ?? false
    let stillWaiting = ["dependencies: 0", "processing: pending"]
    return [
        Check("after removeDependency processing listed no dependencies",
              passed: measurement.outcome["after removeDependency"]?.stringArray?.first == "dependencies: 0"),
        runs
            ? Check("processing started at once, beside the download",
                    passed: measurement.span(Removal.processing).map { $0.start < (measurement.span(Removal.download)?.end ?? 0) } == true)
            : Check("processing had not started: still pending, with no dependencies, when the download had finished",
                    passed: measurement.span(Removal.processing) == nil && measurement.outcome["when the download has finished"]?.stringArray == stillWaiting),
    ]
}

/// Labels of the remove-dependency experiment.
enum Removal {
    static let download = "download"
    static let processing = "processing"

    /// How many dependencies `operation` lists, and its state.
    static func describe(_ operation: Foundation.Operation) -> [String] {
        ["dependencies: \(operation.dependencies.count)", "processing: \(Semantics.describe(operation))"]
    }
}
