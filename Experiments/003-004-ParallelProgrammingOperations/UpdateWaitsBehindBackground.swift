import ExperimentKit
import Foundation

// swift-format-ignore
/// A UI update that depends on background work, on a serial queue standing for the main one
/// (article 004, "Dependencies").
let updateWaitsBehindBackground = Experiment("update-waits-behind-background", article: "004_75652ba8307bb273.txt", section: "Dependencies") { context in
    let backgroundQueue = OperationQueue()
    let uiQueue = OperationQueue()
    uiQueue.maxConcurrentOperationCount = 1

    let loadFeed = BlockOperation { print(Stutter.background); sleep(2) }
    let update = BlockOperation { print(Stutter.update); sleep(0.25) }
    update.addDependency(loadFeed)
    backgroundQueue.addOperation(loadFeed)
    uiQueue.addOperation(update)
    for label in Stutter.uiOperations {
        uiQueue.addOperation { print(label); sleep(0.25) }
    }
    uiQueue.waitUntilAllOperationsAreFinished()
    backgroundQueue.waitUntilAllOperationsAreFinished()
}
.title("An update waiting for background work blocks nothing on its serial queue")
.summary("A serial queue (width 1) stands for the main queue (an app's main queue runs one operation at a time; this process's main thread is the experiment's). A UI update on it depends on a 2 s operation on a background queue. Three more UI operations (0.25 s each: two taps and a scroll) are added to the serial queue after the update.")
.claim(
    "…this can create unexpected locking behavior. E.g. your UI might stutter, as an update depends on an operation in the background and blocks other operations.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote: "E.g. your UI might stutter, as an update depends on an operation in the background and blocks other operations.",
        here: "the waiting update blocks nothing: a queue starts only ready operations, so the serial queue runs the taps and the scroll added after the update while the update waits, and runs the update when the background operation has ended (the run's start order). What is late is the update itself, by the background operation's whole duration."
    )
)
.expectedOutcome("The taps and the scroll, added after the update, run first, one after another from 0 s; the update runs when the background operation ends, at 2 s: 2.25 s in all.")
.platformDifference("A queue skips operations that are not ready on every platform.")
.checks { measurement, _ in
    let started = measurement.startOrder.filter { $0 != Stutter.background }
    let backgroundEnd = measurement.span(Stutter.background)?.end ?? .infinity
    return [
        Check("the serial queue ran the operations added after the update first: \(Stutter.uiOperations.joined(separator: ", ")), then the update",
              passed: started == Stutter.uiOperations + [Stutter.update]),
        Check("the update started only once the background operation had ended",
              passed: measurement.span(Stutter.update).map { $0.start >= backgroundEnd - Overlap.touchingSeconds } == true),
    ]
}

/// Labels of the update-waits-behind-background experiment.
enum Stutter {
    static let background = "load the feed (background queue)"
    static let update = "update the table (depends on it)"
    static let uiOperations = ["tap 1", "tap 2", "scroll"]
}
