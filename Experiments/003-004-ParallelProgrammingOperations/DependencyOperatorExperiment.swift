import ExperimentKit
import Foundation

// swift-format-ignore
/// `operation1 ==> operation2 ==> operation3` (article 003/004, "Dependencies").
let dependencyOperator = Experiment(
    "dependency-operator", article: "003_2ee32e0c735e8871.txt",
    section: "依赖: the ==> operator (004: “Dependencies”)"
) { context in
    let queue = OperationQueue()
    let operation1 = BlockOperation { print("operation 1"); sleep(1) }
    let operation2 = BlockOperation { print("operation 2"); sleep(1) }
    let operation3 = BlockOperation { print("operation 3"); sleep(1) }
    (operation1.name, operation2.name, operation3.name) = ("operation 1", "operation 2", "operation 3")

    operation1 ==> operation2 ==> operation3 // Execute in order 1 to 3

    // Added in reverse, so that only the dependencies can put them in order.
    let operations = [operation3, operation2, operation1]
    context.record("dependencies set by ==>", .strings(ChainedOperations.describeDependencies(operations)))
    queue.addOperations(operations, waitUntilFinished: false)
    queue.waitUntilAllOperationsAreFinished()
}
.title("The ==> operator orders three operations left to right")
.summary("Three one-second printing operations on a queue of default width, chained with the article's ==> operator (its own precedence group, associative to the left; it returns its right-hand side after making it depend on the left). They are added to the queue in reverse order, so only the dependencies can put them in order.")
.claim(
    "I don’t think this is very easy to read, so let’s create our own operator (==>) to create dependencies. This way we can say, execute the operations in this order from left to right.",
    seconds: nil,
    file: "004_75652ba8307bb273.txt"
)
.expectedOutcome("Operation 1, 2, 3 start in that order, each after the one before has ended, although the queue could run all three at once.")
.platformDifference("Dependencies order operations the same on every platform.")
.checks { measurement, prediction in
    let operations = prediction.workload.operations
    let planned = operations.filter { !$0.dependencies.isEmpty }.map { operation in
        "\(operation.label) after \(operation.dependencies.map { operations[$0].label }.joined(separator: ", "))"
    }
    let spans = ChainedOperations.labels.compactMap(measurement.span)
    let oneAfterAnother = spans.count == 3 && zip(spans, spans.dropFirst()).allSatisfy { $1.start >= $0.end - Overlap.touchingSeconds }
    return [
        Check("==> set the planned dependencies: \(planned.joined(separator: "; "))",
              passed: measurement.outcome["dependencies set by ==>"]?.stringArray?.sorted() == planned.sorted()),
        Check("started in the order \(ChainedOperations.labels.joined(separator: ", "))", passed: measurement.startOrder == ChainedOperations.labels),
        Check("each started after the one before had ended: they never overlapped", passed: oneAfterAnother),
    ]
}

/// Labels of the ==> experiment, for its checks.
enum ChainedOperations {
    static let labels = ["operation 1", "operation 2", "operation 3"]

    /// "operation 2 after operation 1" for each operation that has dependencies, read from the
    /// real operations' `dependencies`.
    static func describeDependencies(_ operations: [Foundation.Operation]) -> [String] {
        operations.filter { !$0.dependencies.isEmpty }.map { operation in
            "\(operation.name ?? "unnamed") after \(operation.dependencies.map { $0.name ?? "unnamed" }.joined(separator: ", "))"
        }
    }
}
