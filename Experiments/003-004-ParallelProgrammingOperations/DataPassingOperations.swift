import ExperimentKit
import Foundation
import Synchronization

/// An operation with a `data` property, as the article's Operation1 and Operation2 have
/// (003/004, "Passing Data"): the first makes its data, the second is given it by an adapter
/// and prints it. Each first sleeps `workSeconds`, standing for real work.
///
/// `@unchecked Sendable` (required of every Operation subclass): `data` lives in a `Mutex`,
/// the other stored property is a constant.
final class DataOperation: Operation, @unchecked Sendable {
    /// The stand-in for real work, in article seconds.
    static let workSeconds = 0.5

    private let produces: String?
    private let storedData = Mutex<String?>(nil)

    /// - Parameter produces: the data it makes, or nil for an operation that receives its data.
    init(name: String, produces: String? = nil) {
        self.produces = produces
        super.init()
        self.name = name
    }

    var data: String? {
        get { storedData.withLock { $0 } }
        set { storedData.withLock { $0 = newValue } }
    }

    override func main() {
        sleep(Self.workSeconds)
        if let produces {
            data = produces
        }
        print("\(name ?? ""): data = \(data ?? "nil")")
    }
}
