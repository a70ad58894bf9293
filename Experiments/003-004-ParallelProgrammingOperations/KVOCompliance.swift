import ExperimentKit
import Foundation
import Synchronization

/// An asynchronous operation must tell its queue that it finished (articles 004 and 000,
/// "AsyncOperation").
let kvoCompliance = Experiment(
    "kvo-compliance", article: "004_75652ba8307bb273.txt",
    section: "AsyncOperation; 000 “Asynchronous operation”"
) { context in
    let queue = OperationQueue()
    let compliant = TimedAsyncOperation(label: KVO.compliant, notifiesFinish: true, context: context)
    let silent = TimedAsyncOperation(label: KVO.silent, notifiesFinish: false, context: context)
    let afterCompliant = BlockOperation { print(KVO.afterCompliant) }
    let afterSilent = BlockOperation { print(KVO.afterSilent) }
    afterCompliant.addDependency(compliant)
    afterSilent.addDependency(silent)
    afterSilent.name = KVO.afterSilent
    queue.addOperations([compliant, silent, afterCompliant, afterSilent], waitUntilFinished: false)

    context.sleep(untilArticleSeconds: KVO.readAt)
    // Everything worth knowing is recorded before the wait that never returns.
    context.record(
        KVO.atOneSecond,
        .strings([
            "\(KVO.compliant): \(Semantics.describe(compliant))",
            "\(KVO.silent): \(Semantics.describe(silent))",
            "\(KVO.afterSilent): \(Semantics.describe(afterSilent))",
            "the queue holds: [" + queue.operations.map { $0.name ?? "unnamed" }.joined(separator: ", ") + "]",
        ]))
    print("waitUntilAllOperationsAreFinished()…")
    queue.waitUntilAllOperationsAreFinished()
    print("…returned: the queue saw the silent operation finish")
}
.title("An asynchronous operation that finishes without didChangeValue: its queue never sees it finish")
.summary(
    "Two asynchronous operations on one queue, each waiting 0.5 s on a timer that holds no thread, each with a BlockOperation that depends on it. When its timer fires, the compliant one changes its state between willChangeValue and didChangeValue for \"isExecuting\" and \"isFinished\"; the silent one changes the same state and sends nothing. At 1 s the experiment reads both and the queue; then it waits for the queue, which never returns: the runner's watchdog stops it, and the hang is the demonstration."
)
.claim(
    "Furthermore changes to these need to be KVO compliant, otherwise, the OperationQueue won’t be able to observe the state of our operations.",
    seconds: nil
)
.expectedOutcome(
    "The compliant operation's dependent runs at 0.5 s. The silent one reports isFinished true from 0.5 s, yet its queue still holds it and its dependent, which never becomes ready; waiting for the queue hangs."
)
.platformDifference("A queue learns that an operation finished from its isFinished notification on every platform.")
.ending(.hangs)
.checks { measurement, _ in
    [
        Check("the compliant operation's dependent ran", passed: measurement.span(KVO.afterCompliant) != nil),
        Check(
            "at 1 s the silent operation reported itself finished, yet its queue still held it and its dependent, still pending",
            passed: measurement.outcome[KVO.atOneSecond]?.stringArray == [
                "\(KVO.compliant): finished", "\(KVO.silent): finished", "\(KVO.afterSilent): pending",
                "the queue holds: [\(KVO.silent), \(KVO.afterSilent)]",
            ]),
        Check("the silent operation's dependent never ran", passed: measurement.span(KVO.afterSilent) == nil),
    ]
}

/// An asynchronous operation whose work is a timer of ``KVO/seconds`` that holds no thread.
/// When it fires, the operation finishes: with `notifiesFinish`, its state changes between
/// willChangeValue and didChangeValue for "isExecuting" and "isFinished", as the articles'
/// AsyncOperation does; without, the state changes and nothing is sent.
///
/// For the model (``ModelledOperation``): a timer; the silent one never finishes, for its queue.
///
/// `@unchecked Sendable`: the state lives in a `Mutex`; the rest are constants.
final class TimedAsyncOperation: Operation, ModelledOperation, @unchecked Sendable {
    private let notifiesFinish: Bool
    private let context: RunContext
    private let state = Mutex(AsyncOperation.State.ready)

    init(label: String, notifiesFinish: Bool, context: RunContext) {
        self.notifiesFinish = notifiesFinish
        self.context = context
        super.init()
        name = label
    }

    override var isExecuting: Bool { state.withLock { $0 } == .executing }
    override var isFinished: Bool { state.withLock { $0 } == .finished }
    override var isAsynchronous: Bool { true }

    override func start() {
        willChangeValue(forKey: "isExecuting")
        state.withLock { $0 = .executing }
        didChangeValue(forKey: "isExecuting")
        main()
    }

    override func main() {
        asyncWork { workEnded in
            DispatchQueue.global().asyncAfter(deadline: .now() + KVO.seconds) { [self] in
                // The silent one's row stays open: for its queue, it never ends.
                if notifiesFinish {
                    workEnded()
                    willChangeValue(forKey: "isExecuting")
                    willChangeValue(forKey: "isFinished")
                }
                state.withLock { $0 = .finished }
                if notifiesFinish {
                    didChangeValue(forKey: "isExecuting")
                    didChangeValue(forKey: "isFinished")
                }
            }
        }
    }

    var modelledWork: ModelledWork {
        ModelledWork(articleSeconds: KVO.seconds, work: notifiesFinish ? .timer : .neverFinishes)
    }
}

/// Labels and instants of the kvo-compliance experiment.
enum KVO {
    static let compliant = "compliant"
    static let silent = "silent"
    static let afterCompliant = "after the compliant one"
    static let afterSilent = "after the silent one"
    static let atOneSecond = "at 1 s"
    static let seconds = 0.5
    static let readAt = 1.0
}
