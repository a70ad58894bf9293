import ExperimentKit
import Foundation
import Synchronization

/// A connectivity alert (article 003/004, "Mutual Exclusivity"): a dialog shown until the user
/// taps OK, simulated by a sleep (there is no UI here).
///
/// Every alert has the same `name`. When one appears it looks up, by that name, the other
/// alerts in the queue it runs on (`OperationQueue.current`) and cancels them: one outage, one
/// dialog, without anyone holding references to the alerts. A cancelled alert never shows.
///
/// `@unchecked Sendable` (required of every Operation subclass): the labels it cancelled live
/// in a `Mutex`; the other stored properties are constants.
final class ConnectivityAlertOperation: Operation, @unchecked Sendable {
    static let alertName = "connectivity alert"

    let label: String
    private let articleSeconds: Double
    private let context: RunContext
    private let cancelled = Mutex<[String]>([])

    init(label: String, articleSeconds: Double, context: RunContext) {
        self.label = label
        self.articleSeconds = articleSeconds
        self.context = context
        super.init()
        name = Self.alertName
    }

    /// The alerts this one cancelled when it appeared.
    var cancelledDuplicates: [String] {
        cancelled.withLock { $0 }
    }

    override func main() {
        guard !isCancelled else { return }
        let duplicates = (OperationQueue.current?.operations ?? []).filter { $0.name == name && $0 !== self }
        duplicates.forEach { $0.cancel() }
        cancelled.withLock { $0 = duplicates.compactMap { ($0 as? ConnectivityAlertOperation)?.label } }
        context.timeline.operation(label) {
            context.print("⚠️ \(label): no connection")
            context.sleep(articleSeconds: articleSeconds)
            return false
        }
    }
}
