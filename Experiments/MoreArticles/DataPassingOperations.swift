import ExperimentKit
import Foundation
import Synchronization

/// An operation with a `data` property, as the article's Operation1 and Operation2 have
/// (003/004, "Passing Data"): the first sets it, the second is given it by an adapter and
/// prints it. Each blocks its thread for `articleSeconds` (a sleep standing for real work).
///
/// `@unchecked Sendable` (required of every Operation subclass): `data` lives in a `Mutex`,
/// the other stored properties are constants.
final class DataOperation: Operation, @unchecked Sendable {
    let label: String
    private let produces: String?
    private let articleSeconds: Double
    private let context: RunContext
    private let storedData = Mutex<String?>(nil)

    /// - Parameter produces: the data it makes, or nil for an operation that receives its data.
    init(label: String, produces: String?, articleSeconds: Double, context: RunContext) {
        self.label = label
        self.produces = produces
        self.articleSeconds = articleSeconds
        self.context = context
        super.init()
        name = label
    }

    var data: String? {
        get { storedData.withLock { $0 } }
        set { storedData.withLock { $0 = newValue } }
    }

    override func main() {
        context.timeline.operation(label) {
            context.sleep(articleSeconds: articleSeconds)
            if let produces {
                data = produces
            }
            context.print("\(label): data = \(data ?? "nil")")
            return false
        }
    }
}

/// The article's adapter: a BlockOperation that copies `op1.data` into `op2.data`, depending on
/// op1 and depended on by op2, so the copy happens after op1 has made the data and before op2
/// starts. It holds both unowned, as the article does: op1 stays alive as the adapter's
/// dependency, op2 in its queue until it has run.
func dataAdapter(label: String, from op1: DataOperation, to op2: DataOperation, context: RunContext) -> BlockOperation {
    let adapter = BlockOperation { [unowned op1, unowned op2] in
        context.timeline.operation(label) {
            op2.data = op1.data
            return false
        }
    }
    adapter.name = label
    op1 ==> adapter ==> op2
    return adapter
}
