import ExperimentKit
import Foundation

/// Passing data through an adapter BlockOperation (article 003/004, "Passing Data").
let dataPassingAdapter = Experiment(
    name: "data-passing-adapter",
    title: "An adapter BlockOperation passes op1's data to op2",
    source: ArticleSource(file: "003_2ee32e0c735e8871.txt", section: "Passing Data (004: the same, in English)"),
    summary: "Operation1 makes its data after 0.5 s of work (a sleep); an adapter BlockOperation, depending on Operation1, copies it into Operation2, which depends on the adapter and prints what it got after 0.5 s of its own. The three are added in the article's order, [op1, op2, adapter], with waitUntilFinished: true.",
    claim: ArticleClaim(
        quote: "The easiest way is to use BlockOperations. Using these, we can set properties for the next Operation, which requires the data. Don’t forget to set the dependency, otherwise, the operation might not be executed in time ;)",
        seconds: nil,
        file: "004_75652ba8307bb273.txt"
    ),
    expectedOutcome: "Operation2 receives Operation1's data; the adapter runs between the two.",
    platformDifference: "Three operations one after the other need one thread at a time, which every platform has.",
    workload: DataPassing.workload,
    run: { context, workload in
        let (op1, op2, adapter) = DataPassing.operations(workload, context: context)
        let queue = OperationQueue()
        context.timeline.timeEnqueueing {
            queue.addOperations([op1, op2, adapter], waitUntilFinished: false)
        }
        queue.waitUntilAllOperationsAreFinished()
        var outcome = context.timeline.scheduleOutcome()
        outcome.set("Operation2 received", op2.data.map(JSONValue.string) ?? .null)
        return outcome
    },
    checks: { measurement, _ in
        [
            Check("Operation2 received \"\(DataPassing.data)\"", passed: measurement.outcome["Operation2 received"] == .string(DataPassing.data)),
            Check("the operations ran in the order Operation1, adapter, Operation2",
                  passed: measurement.startOrder == [DataPassing.op1, DataPassing.adapter, DataPassing.op2]),
        ]
    }
)

/// Labels, data and plan of the data-passing experiment.
enum DataPassing {
    static let op1 = "Operation1"
    static let op2 = "Operation2"
    static let adapter = "adapter"
    static let data = "Hello World!"
    /// Each data operation's stand-in for real work, in article seconds.
    static let workSeconds = 0.5

    /// In the article's order of adding: op1, op2 (waiting for the adapter), the adapter
    /// (waiting for op1, and doing nothing that takes time).
    static func workload() -> Workload {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
        let first = workload.add(PlannedOperation(label: op1, articleSeconds: workSeconds, executor: .queue(queue)))
        let second = workload.add(PlannedOperation(label: op2, articleSeconds: workSeconds, executor: .queue(queue)))
        let copy = workload.add(PlannedOperation(label: adapter, articleSeconds: 0, executor: .queue(queue), dependencies: [first]))
        workload.operations[second].dependencies = [copy]
        return workload
    }

    /// The planned operations, linked through the adapter.
    static func operations(_ workload: Workload, context: RunContext) -> (op1: DataOperation, op2: DataOperation, adapter: BlockOperation) {
        let planned = workload.operations
        let first = DataOperation(label: planned[0].label, produces: data, articleSeconds: planned[0].articleSeconds, context: context)
        let second = DataOperation(label: planned[1].label, produces: nil, articleSeconds: planned[1].articleSeconds, context: context)
        return (first, second, dataAdapter(label: planned[2].label, from: first, to: second, context: context))
    }
}
