import ExperimentKit
import Foundation

/// A queue's qualityOfService: its default, and a queue-level value that an operation's own
/// overrides (article 000, "OperationQueue").
let queueQualityOfService = Experiment(
    name: "queue-quality-of-service",
    title: "A queue's qualityOfService, overridden by an operation's own",
    source: ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "OperationQueue: qualityOfService"),
    summary: "A new OperationQueue reports its default qualityOfService. Then the queue gets .background (the article's default) and width 2; four closures, each printing and sleeping 0.5 s, are added with addOperation, and last an operation whose own qualityOfService is .userInitiated.",
    claim: ArticleClaim(
        quote: "You can also set qualityOfService at a higher level — for the operation queue as a whole, but this value will be overridden by the qualityOfService value for a particular operation. The default qualityOfService for OperationQueue is .background .",
        seconds: nil
    ),
    expectedOutcome: "The closures take the queue's .background; the operation keeps its own .userInitiated and starts in the first free slot, before the fourth closure added ahead of it: 1.5 s in all.",
    platformDifference: "A queue you create reports .default here (this run's outcome), where Apple's documentation gives .background, as the article says; the operation's own QoS overrides the queue's on both platforms, as a higher queue priority.",
    code: { context in
        let queue = OperationQueue()
        context.record("queue's default qualityOfService", .string(ServiceClass.name(queue.qualityOfService)))
        queue.qualityOfService = .background
        queue.maxConcurrentOperationCount = 2
        for label in QueueQoS.closures {
            queue.addOperation { print(label); sleep(0.5) }
        }
        let own = BlockOperation { print(QueueQoS.own); sleep(0.5) }
        own.qualityOfService = .userInitiated
        queue.addOperation(own)
        context.record("qualityOfService after adding",
                       .strings(["queue: \(ServiceClass.name(queue.qualityOfService))", "\(QueueQoS.own): \(ServiceClass.name(own.qualityOfService))"]))
        queue.waitUntilAllOperationsAreFinished()
    },
    checks: { measurement, _ in
        let own = measurement.span(QueueQoS.own)
        let last = measurement.span(QueueQoS.closures[3])
        return [
            Check("the queue kept .background and the operation its own .userInitiated",
                  passed: measurement.outcome["qualityOfService after adding"]?.stringArray == ["queue: background", "\(QueueQoS.own): userInitiated"]),
            Check("'\(QueueQoS.own)', added last, started before '\(QueueQoS.closures[3])'",
                  passed: own.flatMap { own in last.map { own.start < $0.start } } ?? false),
        ]
    }
)

/// Labels of the queue-quality-of-service experiment.
enum QueueQoS {
    static let closures = (1...4).map { "closure \($0)" }
    static let own = ".userInitiated operation"
}

extension ServiceClass {
    /// Foundation's QoS as Swift spells it (`background`).
    static func name(_ qualityOfService: QualityOfService) -> String {
        ServiceClass(qualityOfService).rawValue
    }
}
