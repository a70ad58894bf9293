import ExperimentKit
import Foundation

// swift-format-ignore
/// Dependent operations may reuse one thread; independent ones take two (article 001).
let dependentThreadReuse = Experiment(
    "dependent-thread-reuse", article: "001_9c3f48ba8c79e11b.txt",
    section: "Create an Asynchronous Operation: Figures 5 and 6, dependent operations use one thread, independent ones two"
) { context in
    // A queue and one-second printing BlockOperations; the dependencies that follow are
    // article 001's figures 5 and 6.
    let queue = OperationQueue()
    // Figure 5: operation 2 depends on operation 1.
    let operation1 = BlockOperation { print("operation 1"); sleep(1) }
    let operation2 = BlockOperation { print("operation 2"); sleep(1) }
    operation2.addDependency(operation1)
    // Figure 6: no dependency between them. They wait for operation 2 only so that the two
    // demonstrations do not share the pool's workers.
    let independentA = BlockOperation { print("independent A"); sleep(1) }
    let independentB = BlockOperation { print("independent B"); sleep(1) }
    independentA.addDependency(operation2)
    independentB.addDependency(operation2)

    queue.addOperations([operation1, operation2, independentA, independentB], waitUntilFinished: false)
    queue.waitUntilAllOperationsAreFinished()
    let measurement = context.timeline.measurement()
    context.record("dependent pair ran on", .string(ThreadObservation.describe([ThreadReuse.first, ThreadReuse.second], in: measurement)))
    context.record("independent pair ran on", .string(ThreadObservation.describe(ThreadReuse.independent, in: measurement)))
}
.title("Dependent operations one after another, independent ones side by side")
.summary("On a queue of default width, \"operation 2\" depends on \"operation 1\"; \"independent A\" and \"independent B\" have no dependency on each other. Each prints its name and sleeps 1 s. The independent pair waits for operation 2 only so that the two demonstrations do not share the pool's workers. Which threads ran what is reported, not checked.")
.claim(
    "As shown in Figure 5 operation queue uses one thread since these operations are dependent it smartly can use one thread for these tasks since it is dependent. Note thread reference can be swap but it will ask only one thread from shared pools of thread",
    seconds: nil
)
.expectedOutcome("Operation 2 starts only when operation 1 has ended, so they never overlap and one thread can serve both; the independent pair runs at the same time, on two threads.")
.platformDifference("Which worker runs operation 2 is the pool's choice, not the dependency's: one thread served both dependent operations in every run on an idle 2-CPU machine here but in only 20 of 40 on a busy one, so the checks hold the order and the overlap, not the thread.", beyondTheModel: true)
.checks { measurement, _ in
    let first = measurement.span(ThreadReuse.first), second = measurement.span(ThreadReuse.second)
    let independent = ThreadReuse.independent.compactMap(measurement.span)
    let dependentApart = first.flatMap { first in second.map { $0.start >= first.end - Overlap.touchingSeconds } } ?? false
    let independentTogether = independent.count == 2
        && independent[0].start < independent[1].end - Overlap.touchingSeconds
        && independent[1].start < independent[0].end - Overlap.touchingSeconds
    return [
        Check("'\(ThreadReuse.second)' started after '\(ThreadReuse.first)' ended: the dependent pair never overlapped", passed: dependentApart),
        Check("'\(ThreadReuse.independent[0])' and '\(ThreadReuse.independent[1])' ran at the same time", passed: independentTogether),
    ]
}

/// Labels of the thread-reuse experiment, for its checks.
enum ThreadReuse {
    static let first = "operation 1"
    static let second = "operation 2"
    static let independent = ["independent A", "independent B"]
}
