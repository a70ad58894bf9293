import ExperimentKit
import Foundation

// swift-format-ignore
/// A queue's qualityOfService: its default, and a queue-level value that an operation's own
/// overrides (article 000, "OperationQueue").
let queueQualityOfService = Experiment(
    "queue-quality-of-service", article: "000_d66eefb2b922d5e0.txt",
    section: "Basic concepts. OperationQueue: qualityOfService"
) { context in
    // Read first, while the pool is idle: the probe's cancelled operation takes a worker
    // for a moment when its queue lets it go.
    context.record(QueueQoS.closureTakes, .string(ServiceClass.name(QueueQoS.foundationClosureService(on: .background))))
    let queue = OperationQueue()
    context.record(QueueQoS.newQueue, .string(ServiceClass.name(queue.qualityOfService)))
    queue.qualityOfService = .background
    queue.maxConcurrentOperationCount = 2
    for label in QueueQoS.closures {
        queue.addOperation { print(label); sleep(0.5) }
    }
    let own = BlockOperation { print(QueueQoS.own); sleep(0.5) }
    own.qualityOfService = .userInitiated
    queue.addOperation(own)
    context.record(QueueQoS.ownKeeps, .string(ServiceClass.name(own.qualityOfService)))
    queue.waitUntilAllOperationsAreFinished()
}
.title("A queue's qualityOfService, overridden by an operation's own")
.summary("A new OperationQueue reports its default qualityOfService. Then the queue gets .background (the article's default) and width 2; four closures, each printing and sleeping 0.5 s, are added with addOperation, and last an operation whose own qualityOfService is .userInitiated. What qualityOfService a closure takes is read from Foundation's own OperationQueue, given .background and a closure the same way; this experiment's queue, which reports to the timeline, builds each closure's operation as Foundation does.")
.claim(
    "You can also set qualityOfService at a higher level — for the operation queue as a whole, but this value will be overridden by the qualityOfService value for a particular operation.",
    seconds: nil
)
.expectedOutcome("A new queue reports .default, not .background; a closure added to the .background queue takes its .background; the operation keeps its own .userInitiated and starts in the first free slot, before the fourth closure added ahead of it: 1.5 s in all.")
.platformDifference("A queue you create reports .default here, where Apple's documentation gives .background for it, as the article says: a difference of platform, not an error of the article's; an operation's own qualityOfService decides only the order in which the queue starts it, and a queue's own runs its operations on that class's pool, whose threads are its own (measured here with a .background and a default queue side by side).", beyondTheModel: true)
.checks { measurement, _ in
    let own = measurement.span(QueueQoS.own)
    let last = measurement.span(QueueQoS.closures[3])
    let newQueue = measurement.outcome[QueueQoS.newQueue]?.stringValue
    return [
        Check("a new queue reports .\(newQueue ?? "nothing"), not the article's .background (the platform difference)",
              passed: newQueue != nil && newQueue != ServiceClass.background.rawValue),
        Check("a closure added to Foundation's .background queue takes its .background",
              passed: measurement.outcome[QueueQoS.closureTakes]?.stringValue == ServiceClass.background.rawValue),
        Check("the operation, once added, still reports its own .userInitiated",
              passed: measurement.outcome[QueueQoS.ownKeeps]?.stringValue == ServiceClass.userInitiated.rawValue),
        Check("'\(QueueQoS.own)', added last, started before '\(QueueQoS.closures[3])'",
              passed: own.flatMap { own in last.map { own.start < $0.start } } ?? false),
    ]
}

/// Labels of the queue-quality-of-service experiment.
enum QueueQoS {
    static let closures = (1...4).map { "closure \($0)" }
    static let own = ".userInitiated operation"
    static let newQueue = "queue's default qualityOfService"
    static let closureTakes = "a closure's qualityOfService on a .background queue"
    static let ownKeeps = "the operation's own qualityOfService once added"

    /// The qualityOfService Foundation's own `addOperation(_:)` gives a closure's operation on
    /// a queue of `service`: read from a suspended Foundation queue, which runs nothing, before
    /// its operation is cancelled and let go.
    static func foundationClosureService(on service: QualityOfService) -> QualityOfService {
        let probe = Foundation.OperationQueue()
        probe.isSuspended = true
        probe.qualityOfService = service
        probe.addOperation {}
        let taken = probe.operations.first?.qualityOfService ?? .default
        probe.cancelAllOperations()
        probe.isSuspended = false
        return taken
    }
}

extension ServiceClass {
    /// Foundation's QoS as Swift spells it (`background`).
    static func name(_ qualityOfService: QualityOfService) -> String {
        ServiceClass(qualityOfService).rawValue
    }
}
