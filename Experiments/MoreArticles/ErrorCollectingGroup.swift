import ExperimentKit
import Foundation
import Synchronization

/// The error a failing request reports: which request failed.
struct RequestError: Error, Sendable, Equatable {
    let request: String
}

/// Where a group's operations report their errors: the article's `finish(withError:)`.
protocol ErrorReport: Sendable {
    /// Adds the errors of one finishing operation; called from that operation's thread.
    func finish(withError errors: [RequestError])
    /// Every error kept so far.
    var errors: [RequestError] { get }
}

/// The article's error collection (003/004, "Error Handling"), and its bug.
///
/// The article's GroupOperation keeps `var errors: [Error]` and its `finish(withError:)` does
/// `self.errors += errors`, called by each operation of the group as it finishes. The group's
/// queue runs several at once, so two can report at the same moment: each reads the array,
/// appends to its copy and writes it back, and the second write replaces the first. An error is
/// lost (and in Swift 6 the unsynchronised array is a data race the compiler refuses).
///
/// This class keeps the bug and stays memory-safe: each read and each write of the array takes
/// a lock, which shows that locking every access is not enough, because the lost update happens
/// *between* them. The window between read and write is a few instructions in the original,
/// so the race shows once in many runs; here `raceWindow` widens it (a scaled sleep) so that
/// two operations reporting together always overlap in it.
final class UnsynchronisedErrors: ErrorReport {
    private let storage = Mutex<[RequestError]>([])
    private let raceWindow: @Sendable () -> Void

    init(raceWindow: @escaping @Sendable () -> Void) {
        self.raceWindow = raceWindow
    }

    func finish(withError errors: [RequestError]) {
        let collected = storage.withLock { $0 }
        raceWindow()
        storage.withLock { $0 = collected + errors }
    }

    var errors: [RequestError] {
        storage.withLock { $0 }
    }
}

/// The fix: the whole read-append-write happens under one lock (``LockedArray``), so reports
/// that come together wait for each other and none is lost.
final class SynchronisedErrors: ErrorReport {
    private let storage = LockedArray<RequestError>()

    func finish(withError errors: [RequestError]) {
        errors.forEach(storage.append)
    }

    var errors: [RequestError] {
        storage.elements
    }
}

/// A request that fails: it works for a while (a sleep: nothing is fetched), then reports its
/// error to its group, as the article has each AsyncOperation call `finish(withError:)`, and
/// finishes. Its timeline row covers both, the report's race window included.
///
/// `@unchecked Sendable` (required of every Operation subclass): its stored properties are
/// constants, and the report is `Sendable`.
final class FailingRequestOperation: AsyncOperation, @unchecked Sendable {
    let label: String
    private let workArticleSeconds: Double
    private let report: any ErrorReport
    private let context: RunContext

    init(label: String, workArticleSeconds: Double, report: any ErrorReport, context: RunContext) {
        self.label = label
        self.workArticleSeconds = workArticleSeconds
        self.report = report
        self.context = context
        super.init()
        name = label
    }

    override func main() {
        context.timeline.operation(label) {
            context.sleep(articleSeconds: workArticleSeconds)
            report.finish(withError: [RequestError(request: label)])
            return false
        }
        finish()
    }
}

/// The article's GroupOperation with error handling: a ``GroupOperation`` of failing requests
/// that report to one ``ErrorReport``, the broken one or the fixed one.
///
/// `@unchecked Sendable` (required of every Operation subclass): its one stored property is a
/// constant of a `Sendable` type.
final class ErrorCollectingGroup: GroupOperation, @unchecked Sendable {
    let report: any ErrorReport

    init(label: String, requests: [PlannedOperation], workArticleSeconds: Double, report: any ErrorReport, width: Int?, context: RunContext) {
        self.report = report
        let operations = requests.map {
            FailingRequestOperation(label: $0.label, workArticleSeconds: workArticleSeconds, report: report, context: context)
        }
        super.init(label: label, operations: operations, width: width, context: context)
    }

    /// The errors the group kept.
    var errors: [RequestError] {
        report.errors
    }
}
