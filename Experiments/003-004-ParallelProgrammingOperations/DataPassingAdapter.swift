import ExperimentKit
import Foundation

/// Passing data through an adapter BlockOperation (article 003/004, "Passing Data").
let dataPassingAdapter = Experiment(
    "data-passing-adapter", article: "003_2ee32e0c735e8871.txt", section: "数据传递 (004: “Passing Data”)"
) { context in
    let queue = OperationQueue()
    let op1 = DataOperation(name: DataPassing.op1, produces: DataPassing.data)
    let op2 = DataOperation(name: DataPassing.op2)

    let adapter = BlockOperation() { [unowned op1, unowned op2] in
        op2.data = op1.data
    }
    adapter.name = DataPassing.adapter

    adapter.addDependency(op1)
    op2.addDependency(adapter)

    queue.addOperations([op1, op2, adapter], waitUntilFinished: true)
    context.record("Operation2 received", op2.data.map(JSONValue.string) ?? .null)
}
.title("An adapter BlockOperation passes op1's data to op2")
.summary(
    "Operation1 makes its data after 0.5 s of work (a sleep); an adapter BlockOperation, depending on Operation1, copies it into Operation2, which depends on the adapter and prints what it got after 0.5 s of its own. The three are added in the article's order, [op1, op2, adapter], with waitUntilFinished: true."
)
.claim(
    "The easiest way is to use BlockOperations. Using these, we can set properties for the next Operation, which requires the data. Don’t forget to set the dependency, otherwise, the operation might not be executed in time ;)",
    seconds: nil,
    file: "004_75652ba8307bb273.txt"
)
.expectedOutcome("Operation2 receives Operation1's data; the adapter runs between the two.")
.platformDifference("Three operations one after the other need one thread at a time, which every platform has.")
.checks { measurement, _ in
    [
        Check(
            "Operation2 received \"\(DataPassing.data)\"",
            passed: measurement.outcome["Operation2 received"] == .string(DataPassing.data)),
        Check(
            "the operations ran in the order Operation1, adapter, Operation2",
            passed: measurement.startOrder == [DataPassing.op1, DataPassing.adapter, DataPassing.op2]),
    ]
}

/// Names and data of the data-passing experiment.
enum DataPassing {
    static let op1 = "Operation1"
    static let op2 = "Operation2"
    static let adapter = "adapter"
    static let data = "Hello World!"
}
