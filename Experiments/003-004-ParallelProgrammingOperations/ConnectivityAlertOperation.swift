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
/// For the model (``ModelledOperation``): its dialog blocks its thread until OK, and it cancels
/// the others of its name as it appears.
///
/// `@unchecked Sendable` (required of every Operation subclass): what it cancelled and whether
/// it was shown live in `Mutex`es; `message` is a constant.
final class ConnectivityAlertOperation: Operation, ModelledOperation, @unchecked Sendable {
    static let alertName = "connectivity alert"
    /// How long the dialog stays up until the simulated OK, in article seconds.
    static let dialogSeconds = 1.0

    let message: String
    private let cancelled = Mutex<[String]>([])
    private let shown = Mutex(false)

    init(message: String) {
        self.message = message
        super.init()
        name = Self.alertName
    }

    /// The messages of the alerts this one cancelled when it appeared.
    var cancelledDuplicates: [String] {
        cancelled.withLock { $0 }
    }

    /// Whether its dialog appeared.
    var wasShown: Bool {
        shown.withLock { $0 }
    }

    override func main() {
        guard !isCancelled else { return }
        let duplicates = (OperationQueue.current?.operations ?? []).filter { $0.name == name && $0 !== self }
        duplicates.forEach { $0.cancel() }
        cancelled.withLock { $0 = duplicates.compactMap { ($0 as? ConnectivityAlertOperation)?.message } }
        work {
            shown.withLock { $0 = true }
            print("⚠️ \(message): no connection")
            sleep(Self.dialogSeconds)
        }
    }

    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: Self.dialogSeconds, cancelsOthersOfItsName: true)
    }
}
