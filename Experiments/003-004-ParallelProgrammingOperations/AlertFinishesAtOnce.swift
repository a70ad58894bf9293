import ExperimentKit
import Foundation
import Synchronization

// swift-format-ignore
/// Article 003's UIOperation on its AsyncOperation, whose `start()` finishes the operation as
/// soon as `execute()` returns (articles 003/004, "UI Operations").
let alertFinishesAtOnce = Experiment(
    "alert-finishes-at-once", article: "003_2ee32e0c735e8871.txt",
    section: "UI Operations (004: “UI Operations”)"
) { context in
    let queue = OperationQueue()
    let alert = UIOperation(context: context)
    alert.name = AlertAtOnce.alert
    let next = BlockOperation { print(AlertAtOnce.next); sleep(0.5) }
    next.addDependency(alert)
    queue.addOperation(alert)
    queue.addOperation(next)
    queue.waitUntilAllOperationsAreFinished()
    guard !context.isRehearsal else { return }
    alert.okPressed.wait()
    context.record(AlertAtOnce.whenOK, .string(Semantics.describe(alert)))
}
.title("An alert on 003's AsyncOperation is finished as soon as it is shown")
.summary("Article 003's UIOperation subclasses its AsyncOperation, whose start() sets isExecuting, calls execute() and, when execute() returns, sets isExecuting to false and isFinished to true. execute() presents an alert; its OK button calls handleInput(). There is no UI here: presenting prints, and the user presses OK 1 s later (a timer that holds no thread). An operation that depends on the alert prints and sleeps 0.5 s; the experiment records whether the alert was finished when OK came.")
.claim(
    "As you can see, it will pause its execution until a button is pressed. Afterwards, it will enter its finished state and then all other Operations depending on this one can continue.",
    seconds: nil,
    file: "004_75652ba8307bb273.txt"
)
.corrections(
    ArticleCorrection(
        quote: "Afterwards, it will enter its finished state and then all other Operations depending on this one can continue.",
        file: "004_75652ba8307bb273.txt",
        here: "on the AsyncOperation it subclasses, whose start() sets isFinished to true as soon as execute() returns, the alert is finished as soon as it is presented: the operation depending on it started at once, a second before OK was pressed, and the alert was long finished when handleInput() ran (the run's checks). For the alert to hold its dependents until OK, start() must leave it executing and handleInput() finish it (this project's AsyncOperation and its finish())."
    )
)
.expectedOutcome("The alert is finished as soon as execute() returns: its dependent starts at 0 s, while the alert stays on screen until OK at 1 s; 1 s in all.")
.platformDifference("An operation that reports itself finished is finished on every platform.")
.checks { measurement, _ in
    let okAt = measurement.span(AlertAtOnce.onScreen)?.end ?? -.infinity
    return [
        Check("the operation depending on the alert started before OK was pressed",
              passed: measurement.span(AlertAtOnce.next).map { $0.start < okAt - Overlap.touchingSeconds } == true),
        Check("the alert was already finished when OK was pressed",
              passed: measurement.outcome[AlertAtOnce.whenOK]?.stringValue == "finished"),
    ]
}

/// Article 003's AsyncOperation: `isExecuting` and `isFinished` are stored, and setting them
/// sends willChangeValue/didChangeValue; `start()` runs `execute()` and then reports the
/// operation finished, whatever `execute()` started.
///
/// `@unchecked Sendable`: the two flags live in a `Mutex`.
class ArticleAsyncOperation: Operation, @unchecked Sendable {
    private let flags = Mutex((isExecuting: false, isFinished: false))

    override var isAsynchronous: Bool {
        return true
    }

    override var isFinished: Bool {
        set {
            willChangeValue(forKey: "isFinished")
            flags.withLock { $0.isFinished = newValue }
            didChangeValue(forKey: "isFinished")
        }
        get {
            return flags.withLock { $0.isFinished }
        }
    }

    override var isExecuting: Bool {
        set {
            willChangeValue(forKey: "isExecuting")
            flags.withLock { $0.isExecuting = newValue }
            didChangeValue(forKey: "isExecuting")
        }
        get {
            return flags.withLock { $0.isExecuting }
        }
    }

    func execute() {
    }

    override func start() {
        isExecuting = true
        execute()
        isExecuting = false
        isFinished = true
    }
}

/// Article 003's UIOperation: `execute()` presents an alert whose OK button calls
/// `handleInput()`. Without UIKit, presenting prints, and a timer that holds no thread stands
/// for the user, who presses OK after ``AlertAtOnce/secondsUntilOK``.
///
/// For the model (``ModelledOperation``): it finishes at once, and the alert stays on screen
/// after it, a row of its own until OK.
///
/// `@unchecked Sendable`: `context` and `okPressed` are constants.
final class UIOperation: ArticleAsyncOperation, ModelledOperation, @unchecked Sendable {
    private let context: RunContext
    /// Signalled when OK has been pressed and handled.
    let okPressed = DispatchSemaphore(value: 0)

    init(context: RunContext) {
        self.context = context
        super.init()
    }

    var modelledWork: ModelledWork {
        ModelledWork(
            articleSeconds: 0,
            outliving: OutlivingWork(
                label: AlertAtOnce.onScreen, articleSeconds: AlertAtOnce.secondsUntilOK, work: .timer))
    }

    // The operation's own row, from start() to the finish start() reports, for the timeline.
    override func start() {
        let row = context.timeline.begin(name ?? "")
        super.start()
        context.timeline.end(row)
    }

    override func execute() {
        print("present: My Alert")
        let onScreen = context.timeline.begin(AlertAtOnce.onScreen)
        DispatchQueue.global().asyncAfter(deadline: .now() + AlertAtOnce.secondsUntilOK) { [self] in
            context.timeline.end(onScreen)
            handleInput()
        }
    }

    func handleInput() {
        print("OK pressed")
        okPressed.signal()
    }
}

/// Labels and durations of the alert-finishes-at-once experiment.
enum AlertAtOnce {
    static let alert = "UIOperation"
    static let onScreen = "the alert on screen, until OK"
    static let next = "the operation that depends on the alert"
    static let whenOK = "the alert when OK was pressed"
    static let secondsUntilOK = 1.0
}
