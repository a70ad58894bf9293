import ExperimentKit
import Foundation

/// `underlyingQueue`: operations run on a DispatchQueue the user supplies; changing it while the
/// queue holds operations is an error (article 001).
let underlyingQueueExperiment = Experiment(
    name: "underlying-queue",
    title: "underlyingQueue: run on a supplied DispatchQueue, then change it too late",
    source: ArticleSource(file: "001_9c3f48ba8c79e11b.txt", section: "underlyingQueue (Figures 8.1, 8.2 and 9)"),
    summary: "An OperationQueue of default width gets a serial DispatchQueue, tagged with a DispatchSpecificKey, as its underlyingQueue; three operations each print, read the key from inside (DispatchQueue.getSpecific) and sleep 0.5 s. Then the same queue is suspended, given one more operation, and its underlyingQueue is set again: Linux's Foundation stops the process with fatalError. The experiment ends in that trap, which is the demonstration.",
    claim: ArticleClaim(
        quote: "As shown in Figure 9 setting the value of underlyingQueue property when operation count is not equal to 0 (means after we added operation to the operation queue) raises an invalidArgumentException",
        seconds: nil
    ),
    expectedOutcome: "Each operation finds the supplied queue's key, and the serial queue runs them one at a time; setting underlyingQueue on the queue that holds an operation traps with \"operation queue must be empty in order to change underlying dispatch queue\".",
    platformDifference: "Linux's Foundation stops the process with fatalError where Apple's raises NSInvalidArgumentException (which ends the process too unless Objective-C code catches it); running on the supplied queue works the same.",
    workload: {
        var workload = Workload()
        // The OperationQueue keeps its default width, but it hands every operation to the
        // supplied serial DispatchQueue, which runs one block at a time in the order given: a
        // queue of width 1 predicts exactly that.
        let queue = workload.addQueue(QueueSpec(name: "queue on \(Underlying.suppliedLabel)", maxConcurrentOperationCount: 1))
        for label in Underlying.labels {
            workload.add(PlannedOperation(label: label, articleSeconds: Underlying.seconds, executor: .queue(queue)))
        }
        return workload
    },
    run: { context, workload in
        let supplied = DispatchQueue(label: Underlying.suppliedLabel)
        let key = DispatchSpecificKey<String>()
        supplied.setSpecific(key: key, value: supplied.label)
        let queue = OperationQueue()
        // `underlyingQueue` is `unowned(unsafe)`: the OperationQueue does not keep the
        // DispatchQueue alive, these locals do.
        queue.underlyingQueue = supplied

        let seen = LockedArray<String>()
        let operations = workload.operations.map { planned in
            BlockOperation {
                context.timeline.operation(planned.label) {
                    context.print(planned.label)
                    seen.append("\(planned.label): \(DispatchQueue.getSpecific(key: key) ?? "no key")")
                    context.sleep(articleSeconds: planned.articleSeconds)
                    return false
                }
            }
        }
        context.timeline.timeEnqueueing {
            queue.addOperations(operations, waitUntilFinished: false)
        }
        queue.waitUntilAllOperationsAreFinished()
        // Recorded now: the trap below ends the process before anything could be returned.
        context.record("queue seen from inside", .strings(seen.elements.sorted()))

        // Suspended, the queue holds the new operation without starting it, so it certainly
        // still holds it when underlyingQueue is set.
        queue.isSuspended = true
        queue.addOperation {}
        context.record("operations held when underlyingQueue is set", .number(Double(queue.operationCount)))
        let another = DispatchQueue(label: "another queue")
        context.print("underlyingQueue = another queue, while the queue holds 1 operation…")
        queue.underlyingQueue = another
        context.print("…accepted: this platform did not refuse")
        return Outcome()
    },
    expectedEnding: .traps(containing: "operation queue must be empty"),
    checks: { measurement, _ in
        let expected = Underlying.labels.map { "\($0): \(Underlying.suppliedLabel)" }
        return [
            Check("every operation ran on the supplied queue (found its DispatchSpecificKey)",
                  passed: measurement.outcome["queue seen from inside"]?.stringArray == expected),
            Check("the queue held 1 operation when underlyingQueue was set",
                  passed: measurement.outcome["operations held when underlyingQueue is set"] == .number(1)),
        ]
    }
)

/// Labels and duration of the underlyingQueue experiment.
enum Underlying {
    /// The article's name for the queue it supplies.
    static let suppliedLabel = "ourProvidedOperationQueueCustomQueue"
    static let labels = ["operation 1", "operation 2", "operation 3"]
    static let seconds = 0.5
}
