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
    /// How long one report takes, in article seconds (the broken one's widened window).
    var reportSeconds: Double { get }
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
/// so the race shows once in many runs; here a sleep of `reportSeconds` widens it so that two
/// operations reporting together always overlap in it.
final class UnsynchronisedErrors: ErrorReport {
    private let storage = Mutex<[RequestError]>([])
    let reportSeconds: Double

    init(raceWindowSeconds: Double) {
        reportSeconds = raceWindowSeconds
    }

    func finish(withError errors: [RequestError]) {
        let collected = storage.withLock { $0 }
        sleep(reportSeconds)
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
    let reportSeconds = 0.0

    func finish(withError errors: [RequestError]) {
        errors.forEach(storage.append)
    }

    var errors: [RequestError] {
        storage.elements
    }
}

/// A request that fails: it works for a while (a sleep: nothing is fetched), then reports its
/// error to its group, as the article has each AsyncOperation call `finish(withError:)`, and
/// finishes. Its timeline row covers both, the report's race window included, which is what it
/// declares to the model.
///
/// `@unchecked Sendable` (required of every Operation subclass): its stored properties are
/// constants, and the report is `Sendable`.
final class FailingRequestOperation: AsyncOperation, ModelledOperation, @unchecked Sendable {
    /// How long a request works before it fails, in article seconds.
    static let workSeconds = 0.5

    private let report: any ErrorReport

    init(name: String, report: any ErrorReport) {
        self.report = report
        super.init()
        self.name = name
    }

    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: Self.workSeconds + report.reportSeconds)
    }

    override func main() {
        work {
            sleep(Self.workSeconds)
            report.finish(withError: [RequestError(request: name ?? "")])
        }
        finish()
    }
}

/// The article's GroupOperation with error handling: a ``GroupOperation`` of failing requests,
/// two at a time on its queue, that report to one ``ErrorReport``, the broken one or the fixed one.
///
/// `@unchecked Sendable` (required of every Operation subclass): its one stored property is a
/// constant of a `Sendable` type.
final class ErrorCollectingGroup: GroupOperation, @unchecked Sendable {
    let report: any ErrorReport

    init(name: String, requests: Int, report: any ErrorReport) {
        self.report = report
        super.init()
        self.name = name
        queue.name = "\(name).queue"
        queue.maxConcurrentOperationCount = 2
        operations = (1...requests).map { FailingRequestOperation(name: "\(name): request \($0)", report: report) }
    }

    /// The errors the group kept.
    var errors: [RequestError] {
        report.errors
    }
}
