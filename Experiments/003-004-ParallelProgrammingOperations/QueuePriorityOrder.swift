import ExperimentKit
import Foundation

// swift-format-ignore
/// On a serial queue, operations that become ready at the same instant start in `queuePriority`
/// order (article 004, "Readiness").
let queuePriorityOrder = Experiment("queue-priority-order", article: "004_75652ba8307bb273.txt", section: "Readiness") { context in
    let gateQueue = OperationQueue()
    let serialQueue = OperationQueue()
    serialQueue.maxConcurrentOperationCount = 1
    let gate = BlockOperation { print(Priorities.gate); sleep(0.25) }
    let first = BlockOperation { print(Priorities.first); sleep(1) }
    let prioritized = Priorities.set.map { priority in
        let operation = BlockOperation { print(Priorities.label(priority)); sleep(0.5) }
        operation.queuePriority = priority
        return operation
    }
    let interactive = BlockOperation { print(Priorities.interactive); sleep(0.5) }
    interactive.qualityOfService = .userInteractive
    let waiting = prioritized + [interactive]
    for operation in waiting {
        operation.addDependency(gate)
    }
    gateQueue.addOperation(gate)
    serialQueue.addOperation(first)
    for operation in waiting {
        serialQueue.addOperation(operation)
    }
    context.record("enqueueOrder", .strings(Priorities.added))
    context.record("queuePriority read back", .strings(zip(Priorities.added, waiting).map { "\($0): \($1.queuePriority)" }))
    serialQueue.waitUntilAllOperationsAreFinished()
}
.title("Ready at the same instant on a serial queue: queuePriority decides")
.summary("On a queue of width 1 a first operation runs for 1 s. Behind it wait five operations, added with queuePriority .veryLow, .low, .normal, .high and .veryHigh in that order, and a sixth, added last, given qualityOfService .userInteractive and no queuePriority. All six depend on a gate operation on another queue that sleeps 0.25 s, so they become ready together while the first still runs, and the queue chooses among them when it ends. Each prints and sleeps 0.5 s. (Were the serial queue idle when they became ready, corelibs would start the first one it marked ready, in no fixed order, before the others were: the busy first operation is what makes them all ready when the queue chooses.)")
.claim(
    "If there are multiple operations entering Ready state at the same time, the priority will decide.",
    seconds: nil
)
.expectedOutcome("After the first: .veryHigh, .high, .normal, then the .userInteractive one (its QoS gives it no priority on a serial queue, so it is normal and follows .normal, added before it), then .low and .veryLow: 4 s in all.")
.platformDifference("A queuePriority set on an operation orders a serial queue on every platform, so Linux matches.")
.checks { measurement, _ in
    // The gate starts with the first on its own queue; the claim is about the serial queue.
    let started = measurement.startOrder.filter { $0 != Priorities.gate && $0 != Priorities.first }
    let byPriority = started.filter { $0 != Priorities.interactive }
    let ready = max(measurement.span(Priorities.gate)?.end ?? .infinity, measurement.span(Priorities.first)?.end ?? .infinity)
    let waited = Priorities.added.compactMap(measurement.span)
    return [
        Check("the five with a queuePriority started highest first: \(Priorities.highestFirst.joined(separator: ", "))",
              passed: byPriority == Priorities.highestFirst),
        Check("'\(Priorities.interactive)' started among the normal ones: after '\(Priorities.label(.normal))', before '\(Priorities.label(.low))'",
              passed: started.firstIndex(of: Priorities.interactive) == started.firstIndex(of: Priorities.label(.normal)).map { $0 + 1 }
                  && started.firstIndex(of: Priorities.label(.low)) == started.firstIndex(of: Priorities.interactive).map { $0 + 1 }),
        Check("its queuePriority property reads .normal: setting qualityOfService does not change it (on a wider queue corelibs would still file it as very high)",
              passed: measurement.outcome["queuePriority read back"]?.stringArray?.last == "\(Priorities.interactive): normal"),
        Check("all six started only once the gate and the first had ended",
              passed: waited.count == 6 && waited.allSatisfy { $0.start >= ready - Overlap.touchingSeconds }),
    ]
}

/// Labels of the queue-priority-order experiment.
enum Priorities {
    static let gate = "gate"
    static let first = "first operation"
    static let interactive = "qualityOfService = .userInteractive"
    /// The priorities set, in the order their operations are added: lowest first.
    static let set: [Operation.QueuePriority] = [.veryLow, .low, .normal, .high, .veryHigh]

    static func label(_ priority: Operation.QueuePriority) -> String {
        "queuePriority = .\(priority)"
    }

    /// The six waiting operations, in the order added.
    static let added = set.map(label) + [interactive]
    /// The five with a priority set, as the claim orders them.
    static let highestFirst = set.reversed().map(label)
}
