import ExperimentKit
import Foundation

// swift-format-ignore
/// On a serial queue the operation that becomes ready first runs first, whatever its position
/// (article 004, "LifeCycle").
let serialQueueReadinessOrder = Experiment("serial-queue-readiness-order", article: "004_75652ba8307bb273.txt", section: "Readiness") { context in
    // Operations 1 to 8 depend on a gate that runs on a queue of its own; the ninth, added
    // last to the serial queue, depends on nothing: it is the one ready first, whatever its
    // position.
    let gateQueue = OperationQueue()
    let serialQueue = OperationQueue()
    serialQueue.maxConcurrentOperationCount = 1
    let gate = BlockOperation { print(Readiness.gate); sleep(0.25) }
    gate.name = Readiness.gate
    let operations = Readiness.labels.map { label in
        BlockOperation { print(label); sleep(1) }
    }
    for operation in operations.dropLast() {
        operation.addDependency(gate)
    }
    gateQueue.addOperation(gate)
    for operation in operations {
        serialQueue.addOperation(operation)
    }
    context.record("enqueueOrder", .strings(Readiness.labels))
    serialQueue.waitUntilAllOperationsAreFinished()
}
.title("A serial queue runs the first ready operation, even the 9th")
.summary("Nine operations, each printing its position and sleeping 1 s, are added in order to a queue of width 1. The first eight depend on a gate operation on another queue, which sleeps 0.25 s; the ninth depends on nothing, so it is the only one ready when added. The gate ends well inside the ninth's second (a margin that holds at the smallest time scale on a busy machine), so when the queue next chooses, operations 1 to 8 are all ready and their position decides.")
.claim(
    "In a serial queue the Operation, which enters Ready state first, will be executed first, even though it might be at position 9 within the queue.",
    seconds: nil
)
.expectedOutcome("The ninth starts at once; operations 1 to 8 start one after another once it has ended: added 1…9, started 9, 1, 2, …, 8; 9 s in all.")
.platformDifference("A serial queue starts only ready operations on every platform, so Linux matches.")
.checks { measurement, _ in
    // The gate starts with the ninth on its own queue; the claim is about the serial queue.
    let started = measurement.startOrder.filter { $0 != Readiness.gate }
    let gateEnd = measurement.span(Readiness.gate)?.end ?? .infinity
    let waited = Readiness.labels.dropLast().compactMap(measurement.span)
    return [
        Check("started \(Readiness.labels.last!) first, then 1 to 8 in the order added",
              passed: started == [Readiness.labels.last!] + Readiness.labels.dropLast()),
        Check("operations 1 to 8 started only after the gate had finished",
              passed: waited.count == 8 && waited.allSatisfy { $0.start >= gateEnd - Overlap.touchingSeconds }),
    ]
}

/// Labels of the serial-queue-readiness-order experiment.
enum Readiness {
    static let gate = "gate"
    static let labels = (1...9).map { "operation \($0)" }
}
