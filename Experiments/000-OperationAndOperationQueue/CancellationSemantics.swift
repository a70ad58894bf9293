import ExperimentKit
import Foundation

// swift-format-ignore
/// What `cancel()` does at each point of an operation's life (articles 000 and 003/004).
let cancellationSemantics = Experiment(
    "cancellation-semantics", article: "000_d66eefb2b922d5e0.txt",
    section: "Destruction of operations on OperationQueue; 004 “LifeCycle”, “Cancellation”"
) { context in
    let queue = OperationQueue()
    let serialQueue = OperationQueue()
    serialQueue.maxConcurrentOperationCount = 1
    let a = BlockOperation { print(Semantics.a); sleep(1) }
    let b = BlockOperation { print(Semantics.b); sleep(1) }
    let c = BlockOperation { print(Semantics.c); sleep(0.1) }
    let d = BlockOperation { print(Semantics.d); sleep(1) }
    let e = BlockOperation { print(Semantics.e); sleep(1) }
    let f = BlockOperation { print(Semantics.f); sleep(1) }

    a.cancel()
    context.record("A cancelled, not yet added", .string(Semantics.describe(a)))
    queue.addOperations([a, b, c], waitUntilFinished: false)
    serialQueue.addOperations([d, e, f], waitUntilFinished: false)
    a.waitUntilFinished()
    context.record("A after the queue took it", .string(Semantics.describe(a)))

    context.sleep(untilArticleSeconds: Semantics.cancelAt)
    print("cancel() B and C; cancelAllOperations() on the serial queue")
    b.cancel()
    c.cancel()
    serialQueue.cancelAllOperations()
    for (name, operation) in [("B", b), ("C", c), ("D", d), ("E", e)] {
        context.record("\(name) right after the cancel", .string(Semantics.describe(operation)))
    }
    queue.waitUntilAllOperationsAreFinished()
    serialQueue.waitUntilAllOperationsAreFinished()
    for (name, operation) in [("B", b), ("E", e)] {
        context.record("\(name) at the end", .string(Semantics.describe(operation)))
    }
}
.title("cancel() before, during and after; cancelAllOperations()")
.summary("Operation A is cancelled before it is added to a queue; B is cancelled at 0.5 s while it runs; C, finished at 0.1 s, is cancelled at 0.5 s. On a serial queue, D runs while E and F wait when cancelAllOperations() comes at 0.5 s. The states are read right after each step.")
.claim(
    "But the fact is that the method cancel () only sets the property isCancelled to true, and the actions necessary to delete the operation fall on the developer of the operation.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote: "It is important to note that when a method is called cancel(), the properties isExecuting and isFinished also change to false and, true respectively.",
        here: "cancel() changes neither: B, cancelled while it runs, reads “cancelled, executing” right after the cancel and finishes only when its main() returns; A, cancelled before it is added, reads “cancelled, ready” until its queue starts it (this run's checks). swift-corelibs-foundation's Operation.cancel() sets isCancelled and returns at once for an operation already executing. The article's later sentence, that cancel() “only sets the property isCancelled to true”, is the accurate one."
    )
)
.expectedOutcome("A finishes without running main(); B and D only get the flag and run to their end; C stays uncancelled; E and F finish without running main().")
.platformDifference("Cancellation follows the same rules on every platform; but on Linux the pool's two workers are busy with B and C, so D starts only when C ends, where Apple's pool would start it at once.")
.checks { measurement, _ in
    let expected: [(String, String)] = [
        ("A cancelled, not yet added", "cancelled, ready"),
        ("A after the queue took it", "cancelled, finished"),
        ("B right after the cancel", "cancelled, executing"),
        ("C right after the cancel", "finished"),
        ("D right after the cancel", "cancelled, executing"),
        ("E right after the cancel", "cancelled, ready"),
        ("B at the end", "cancelled, finished"),
        ("E at the end", "cancelled, finished"),
    ]
    let ran = Set(measurement.operations.map(\.label))
    return expected.map { key, state in
        Check("\(key): \(state)", passed: measurement.outcome[key]?.stringValue == state)
    } + [
        Check("main() never ran for A, E and F; it ran to the end for B, C and D",
              passed: ran == [Semantics.b, Semantics.c, Semantics.d]),
    ]
}

/// Labels, instants and a state reader for the cancellation-semantics experiment.
enum Semantics {
    static let a = "A: cancelled before added"
    static let b = "B: cancelled while running"
    static let c = "C: cancelled after finishing"
    static let d = "D: running at cancelAll"
    static let e = "E: waiting at cancelAll"
    static let f = "F: waiting at cancelAll"
    /// Half a second: four tenths of a second after C's end, when D starts on Linux, and half a
    /// second before B's end: at the smallest time scale, 20 ms and more either side, more than
    /// a late wake-up on a loaded 2-core machine, so D always runs and B is always running.
    static let cancelAt = 0.5

    /// The flags that are set, in the order of an operation's life: `cancelled, executing`.
    static func describe(_ operation: Foundation.Operation) -> String {
        let flags = [
            operation.isCancelled ? "cancelled" : nil,
            operation.isFinished
                ? "finished" : operation.isExecuting ? "executing" : operation.isReady ? "ready" : "pending",
        ]
        return flags.compactMap { $0 }.joined(separator: ", ")
    }
}
