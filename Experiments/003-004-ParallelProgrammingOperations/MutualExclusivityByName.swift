import ExperimentKit
import Foundation

// swift-format-ignore
/// Mutually exclusive alerts found by operation name (article 003/004, "Mutual Exclusivity").
let mutualExclusivityByName = Experiment(
    "mutual-exclusivity-by-name", article: "003_2ee32e0c735e8871.txt",
    section: "互斥 (004: “Mutual Exclusivity”)"
) { context in
    // The main queue shows dialogs one at a time: a queue of width 1 stands in for it.
    let queue = OperationQueue()
    queue.name = "alerts (for the main queue)"
    queue.maxConcurrentOperationCount = 1
    // Three failed requests each queue an alert; a message of another name comes between.
    let alert1 = ConnectivityAlertOperation(message: Alerts.first)
    let alert2 = ConnectivityAlertOperation(message: Alerts.duplicates[0])
    let syncStatus = BlockOperation { print(Alerts.syncStatus); sleep(1) }
    let alert3 = ConnectivityAlertOperation(message: Alerts.duplicates[1])
    // One call: the queue starts nothing before all are in it, so the first alert finds the others.
    queue.addOperations([alert1, alert2, syncStatus, alert3], waitUntilFinished: false)
    queue.waitUntilAllOperationsAreFinished()

    let alerts = [alert1, alert2, alert3]
    context.record("shown", .strings(alerts.filter(\.wasShown).map(\.message)))
    context.record("cancelled, never shown", .strings(alerts.filter { $0.isCancelled && !$0.wasShown }.map(\.message)))
    context.record("cancelled by the first alert, found by name", .strings(alerts.flatMap(\.cancelledDuplicates)))
    let ran = Set(context.timeline.measurement()?.operations.map(\.label) ?? [])
    context.record("other names ran", .strings(ran.contains(Alerts.syncStatus) ? [Alerts.syncStatus] : []))
}
.title("One connectivity alert: the others found by name and cancelled")
.summary("Three failed requests each queue a \"connectivity alert\" operation, with a \"sync status\" message among them, on a width-1 queue (standing in for the main queue: this process runs no main loop). An alert is a dialog shown for 1 s (a sleep until the simulated OK). When the first alert appears it searches its queue's operations for the name \"connectivity alert\" and cancels the others.")
.claim(
    "One problem is to keep track of the operation. But it can be solved by naming operations and then accessing the OperationQueue and searching for the name. This way you don’t have to hold a reference.",
    seconds: nil,
    file: "004_75652ba8307bb273.txt"
)
.expectedOutcome("Only alert #1 is shown; alerts #2 and #3 are cancelled and never appear; \"sync status\", another name, still runs.")
.platformDifference("Operation names and cancellation work the same on every platform.")
.checks { measurement, _ in
    let outcome = measurement.outcome
    return [
        Check("only '\(Alerts.first)' was shown", passed: outcome["shown"]?.stringArray == [Alerts.first]),
        Check("\(Alerts.duplicates.joined(separator: " and ")) were found by name, cancelled, and never shown",
              passed: outcome["cancelled, never shown"]?.stringArray == Alerts.duplicates
                  && outcome["cancelled by the first alert, found by name"]?.stringArray == Alerts.duplicates),
        Check("'\(Alerts.syncStatus)', of another name, still ran", passed: outcome["other names ran"]?.stringArray == [Alerts.syncStatus]),
    ]
}

/// The messages of the mutual-exclusivity experiment, for its checks.
enum Alerts {
    static let first = "connectivity alert #1"
    static let duplicates = ["connectivity alert #2", "connectivity alert #3"]
    static let syncStatus = "sync status"
}
