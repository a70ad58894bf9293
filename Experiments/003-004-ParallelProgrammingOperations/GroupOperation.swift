import ExperimentKit
import Foundation

/// The article's GroupOperation (003/004, "GroupOperation"): several operations considered as
/// one. It owns a private queue; when it runs it adds its operations there with
/// `waitUntilFinished: true`, blocking its own thread until they are all done, and then
/// finishes. Their dependencies, not the order in the array, decide the order they run in.
///
/// Its subclasses fill `operations` in their `init`, as the article's HelloWorldOperation does.
/// In a lab it records a timeline row, under its name or else its class's, from "group started" to "group done".
///
/// `@unchecked Sendable` (required of every Operation subclass): `operations` is set only in
/// the subclass's `init`, before the group can be started or shared; the queue is thread-safe.
class GroupOperation: ObservableAsyncOperation, @unchecked Sendable {
    let queue = OperationQueue()
    var operations: [Foundation.Operation] = []

    override init() {
        super.init()
        queue.name = "\(Self.self).queue"
    }

    override func main() {
        detailRow(name ?? "\(Self.self)") {
            print("group started")
            queue.addOperations(operations, waitUntilFinished: true)
            print("group done")
        }
        finish()
    }
}
