import ExperimentKit
import Foundation

/// Mutually exclusive alerts found by operation name (article 003/004, "Mutual Exclusivity").
let mutualExclusivityByName = Experiment(
    name: "mutual-exclusivity-by-name",
    title: "One connectivity alert: the others found by name and cancelled",
    source: ArticleSource(file: "003_2ee32e0c735e8871.txt", section: "Mutual Exclusivity (004: the same, in English)"),
    summary: "Three failed requests each queue a \"connectivity alert\" operation, with a \"sync status\" message among them, on a width-1 queue (standing in for the main queue: this process runs no main loop). An alert is a dialog shown for 1 s (a sleep until the simulated OK). When the first alert appears it searches its queue's operations for the name \"connectivity alert\" and cancels the others.",
    claim: ArticleClaim(
        quote: "One problem is to keep track of the operation. But it can be solved by naming operations and then accessing the OperationQueue and searching for the name. This way you don’t have to hold a reference.",
        seconds: nil,
        file: "004_75652ba8307bb273.txt"
    ),
    expectedOutcome: "Only alert #1 is shown; alerts #2 and #3 are cancelled and never appear; \"sync status\", another name, still runs.",
    platformDifference: "Operation names and cancellation work the same on every platform.",
    workload: {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "alerts (for the main queue)", maxConcurrentOperationCount: 1))
        for label in Alerts.added {
            workload.add(PlannedOperation(label: label, articleSeconds: Alerts.seconds, executor: .queue(queue)))
        }
        // The first alert cancels the others as it appears, a moment after they were all added
        // in one call and before any of them could start (the queue is busy with it): the model
        // has them cancelled from the start, which leads to the same run.
        for (index, label) in Alerts.added.enumerated() where Alerts.duplicates.contains(label) {
            workload.cancel(.operation(index), atArticleSeconds: 0)
        }
        return workload
    },
    run: { context, workload in
        let runner = QueueWorkloadRunner(context: context, workload: workload)
        let operations: [Operation] = workload.operations.map { planned in
            guard planned.label != Alerts.syncStatus else { return runner.printingOperation(planned) }
            return ConnectivityAlertOperation(label: planned.label, articleSeconds: planned.articleSeconds, context: context)
        }
        let queue = runner.makeQueues()[0]
        // One call: the queue starts nothing before all are in it, so the first alert finds the others.
        context.timeline.timeEnqueueing {
            queue.addOperations(operations, waitUntilFinished: false)
        }
        queue.waitUntilAllOperationsAreFinished()
        let alerts = operations.compactMap { $0 as? ConnectivityAlertOperation }
        let shown = Set(context.timeline.measurement()?.operations.map(\.label) ?? [])
        return Outcome([
            Outcome.Field("shown", .strings(alerts.map(\.label).filter(shown.contains))),
            Outcome.Field("cancelled, never shown", .strings(alerts.filter(\.isCancelled).map(\.label))),
            Outcome.Field("cancelled by the first alert, found by name", .strings(alerts.flatMap(\.cancelledDuplicates))),
            Outcome.Field("other names ran", .strings(operations.filter { $0.name != ConnectivityAlertOperation.alertName && shown.contains($0.name ?? "") }.compactMap(\.name))),
        ])
    },
    checks: { measurement, _ in
        let outcome = measurement.outcome
        return [
            Check("only '\(Alerts.first)' was shown", passed: outcome["shown"]?.stringArray == [Alerts.first]),
            Check("\(Alerts.duplicates.joined(separator: " and ")) were found by name, cancelled, and never shown",
                  passed: outcome["cancelled, never shown"]?.stringArray == Alerts.duplicates
                      && outcome["cancelled by the first alert, found by name"]?.stringArray == Alerts.duplicates),
            Check("'\(Alerts.syncStatus)', of another name, still ran", passed: outcome["other names ran"]?.stringArray == [Alerts.syncStatus]),
        ]
    }
)

/// Labels and duration of the mutual-exclusivity experiment.
enum Alerts {
    static let first = "connectivity alert #1"
    static let duplicates = ["connectivity alert #2", "connectivity alert #3"]
    static let syncStatus = "sync status"
    /// In the order they are added.
    static let added = [first, duplicates[0], syncStatus, duplicates[1]]
    /// How long a dialog stays up, and how long the sync message takes.
    static let seconds = 1.0
}
