import ExperimentKit
import Foundation

// swift-format-ignore
/// `underlyingQueue`: operations run on a DispatchQueue the user supplies; changing it while the
/// queue holds operations is an error (article 001).
let underlyingQueueExperiment = Experiment(
    "underlying-queue", article: "001_9c3f48ba8c79e11b.txt",
    section: "Thread Safety: underlyingQueue (Figures 8.1, 8.2 and 9)"
) { context in
    // Figure 8.1: a serial DispatchQueue, tagged so that an operation can tell it runs there.
    let ourProvidedQueue = DispatchQueue(label: Underlying.suppliedLabel)
    let key = DispatchSpecificKey<String>()
    ourProvidedQueue.setSpecific(key: key, value: ourProvidedQueue.label)
    let queue = OperationQueue()
    // `underlyingQueue` is `unowned(unsafe)`: the OperationQueue does not keep the
    // DispatchQueue alive, the local does.
    queue.underlyingQueue = ourProvidedQueue

    // Figure 8.2: each operation finds the supplied queue's key.
    let seen = LockedArray<String>()
    queue.addOperation { print("operation 1"); seen.append("operation 1: \(DispatchQueue.getSpecific(key: key) ?? "no key")"); sleep(0.5) }
    queue.addOperation { print("operation 2"); seen.append("operation 2: \(DispatchQueue.getSpecific(key: key) ?? "no key")"); sleep(0.5) }
    queue.addOperation { print("operation 3"); seen.append("operation 3: \(DispatchQueue.getSpecific(key: key) ?? "no key")"); sleep(0.5) }
    queue.waitUntilAllOperationsAreFinished()
    // Recorded now: the trap below ends the process before anything else could be.
    context.record("queue seen from inside", .strings(seen.elements.sorted()))

    // Figure 9: a queue that holds an operation (suspended, so it certainly still holds it)
    // is given an underlyingQueue.
    let holdingQueue = OperationQueue()
    holdingQueue.isSuspended = true
    holdingQueue.addOperation { print("held") }
    context.record("operations held when underlyingQueue is set", .number(Double(holdingQueue.operationCount)))
    let anotherQueue = DispatchQueue(label: "another queue")
    print("underlyingQueue = another queue, while the queue holds 1 operation…")
    holdingQueue.underlyingQueue = anotherQueue
    print("…accepted: this platform did not refuse")
}
.title("underlyingQueue: run on a supplied DispatchQueue, then change it too late")
.summary("An OperationQueue of default width gets a serial DispatchQueue, tagged with a DispatchSpecificKey, as its underlyingQueue; three operations each print, read the key from inside (DispatchQueue.getSpecific) and sleep 0.5 s. Then a second, suspended queue is given an operation, and its underlyingQueue is set: Linux's Foundation stops the process with fatalError. The experiment ends in that trap, which is the demonstration.")
.claim(
    "As shown in Figure 9 setting the value of underlyingQueue property when operation count is not equal to 0 (means after we added operation to the operation queue) raises an invalidArgumentException",
    seconds: nil
)
.expectedOutcome("Each operation finds the supplied queue's key, and the serial queue runs them one at a time; setting underlyingQueue on the queue that holds an operation traps with \"operation queue must be empty in order to change underlying dispatch queue\".")
.platformDifference("Linux's Foundation stops the process with fatalError where Apple's raises NSInvalidArgumentException (which ends the process too unless Objective-C code catches it); running on the supplied queue works the same.", beyondTheModel: true)
.ending(.traps(containing: "operation queue must be empty"))
.checks { measurement, _ in
    let expected = Underlying.labels.map { "\($0): \(Underlying.suppliedLabel)" }
    return [
        Check("every operation ran on the supplied queue (found its DispatchSpecificKey)",
              passed: measurement.outcome["queue seen from inside"]?.stringArray == expected),
        Check("the queue held 1 operation when underlyingQueue was set",
              passed: measurement.outcome["operations held when underlyingQueue is set"] == .number(1)),
    ]
}

/// Names of the underlyingQueue experiment, for its checks.
enum Underlying {
    /// The article's name for the queue it supplies.
    static let suppliedLabel = "ourProvidedOperationQueueCustomQueue"
    static let labels = ["operation 1", "operation 2", "operation 3"]
}
