import ExperimentKit
import Foundation

/// The article's GroupOperation (003/004, "GroupOperation"): several operations considered as
/// one. It owns a private queue; when it runs it adds its operations there with
/// `waitUntilFinished: true`, blocking its own thread until they are all done, and then
/// finishes. Their dependencies, not the order in the array, decide the order they run in.
///
/// It records a timeline row (its label) from "group started" to "group done".
///
/// `@unchecked Sendable` (required of every Operation subclass): every stored property is a
/// constant, and the queue is thread-safe.
class GroupOperation: ObservableAsyncOperation, @unchecked Sendable {
    let label: String
    let operations: [Operation]
    let queue = OperationQueue()
    let context: RunContext

    /// - Parameter width: the private queue's `maxConcurrentOperationCount`; nil keeps the default.
    init(label: String, operations: [Operation], width: Int? = nil, context: RunContext) {
        self.label = label
        self.operations = operations
        self.context = context
        super.init()
        name = label
        queue.name = "\(label).queue"
        queue.maxConcurrentOperationCount = width ?? OperationQueue.defaultMaxConcurrentOperationCount
    }

    override func main() {
        context.timeline.operation(label) {
            context.print("group started")
            queue.addOperations(operations, waitUntilFinished: true)
            context.print("group done")
            return false
        }
        finish()
    }
}
