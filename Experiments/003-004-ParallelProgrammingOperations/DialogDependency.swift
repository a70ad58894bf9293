import ExperimentKit
import Foundation

// swift-format-ignore
/// Two dialogs made mutually exclusive by a dependency, on different queues (article 004,
/// "Mutual Exclusivity").
let dialogDependency = Experiment("dialog-dependency", article: "004_75652ba8307bb273.txt", section: "Mutual Exclusivity") { context in
    let networkQueue = OperationQueue()
    let downloadQueue = OperationQueue()

    let networkAlert = BlockOperation { print(Dialogs.together[0]); sleep(1) }
    let downloadAlert = BlockOperation { print(Dialogs.together[1]); sleep(1) }
    networkQueue.addOperation(networkAlert)
    downloadQueue.addOperation(downloadAlert)
    networkQueue.waitUntilAllOperationsAreFinished()
    downloadQueue.waitUntilAllOperationsAreFinished()

    let firstAlert = BlockOperation { print(Dialogs.exclusive[0]); sleep(1) }
    let secondAlert = BlockOperation { print(Dialogs.exclusive[1]); sleep(1) }
    secondAlert.addDependency(firstAlert)
    networkQueue.addOperation(firstAlert)
    downloadQueue.addOperation(secondAlert)
    networkQueue.waitUntilAllOperationsAreFinished()
    downloadQueue.waitUntilAllOperationsAreFinished()
}
.title("A dependency between two dialogs on different queues shows them one after the other")
.summary("Each dialog is an operation that shows itself (a print) and waits 1 s for its button to be pressed (a sleep: there is no UI here). First two dialogs without a dependency, one on each of two queues: they pop up together. Then two more, the second depending on the first, again one on each queue.")
.claim(
    "Even though the idea is complex, it’s quite easy to implement with dependencies. Just create a dependency between these dialogs and you are done.",
    seconds: nil
)
.expectedOutcome("Without the dependency both dialogs are up at once, from 0 to 1 s; with it, the second appears only once the first has been dismissed, at 2 s: 3 s in all.")
.platformDifference("A dependency across queues orders operations on every platform.")
.checks { measurement, _ in
    let together = Dialogs.together.compactMap(measurement.span)
    let exclusive = Dialogs.exclusive.compactMap(measurement.span)
    return [
        Check("without a dependency the two dialogs were up at the same time",
              passed: together.count == 2 && Overlap.maximum(of: together.map { ($0.start, $0.end) }) == 2),
        Check("with it, the second appeared only once the first had been dismissed",
              passed: exclusive.count == 2 && exclusive[1].start >= exclusive[0].end - Overlap.touchingSeconds),
    ]
}

/// Labels of the dialog-dependency experiment.
enum Dialogs {
    static let together = ["⚠️ no network (no dependency)", "⚠️ download failed (no dependency)"]
    static let exclusive = ["⚠️ no network", "⚠️ download failed (depends on it)"]
}
