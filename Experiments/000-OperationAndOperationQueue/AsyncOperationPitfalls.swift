import ExperimentKit
import Foundation

/// The 2017 playground's AsyncOperation against the fixed one (articles 000 and 001).
let asyncOperationPitfalls = Experiment(
    "async-operation-pitfalls", article: "000_d66eefb2b922d5e0.txt",
    section: "Asynchronous operation (AsyncOperations.playground, 2017)"
) { context in
    let queue = OperationQueue()
    let brokenCancel = PlaygroundSteppedOperation()
    brokenCancel.name = Pitfalls.brokenCancel
    let fixedCancel = FixedSteppedOperation()
    fixedCancel.name = Pitfalls.fixedCancel
    let fixedInstant = FixedInstantOperation()
    fixedInstant.name = Pitfalls.fixedInstant
    let brokenInstant = PlaygroundInstantOperation()
    brokenInstant.name = Pitfalls.brokenInstant
    queue.addOperation(brokenCancel)
    queue.addOperation(fixedCancel)
    queue.addOperation(fixedInstant)
    queue.addOperation(brokenInstant)

    // The cancel comes first: nothing the experiment's thread waits for may delay it.
    context.sleep(untilArticleSeconds: Pitfalls.cancelAt)
    print("cancel() both loops")
    brokenCancel.cancel()
    fixedCancel.cancel()
    context.record("2017 isCancelled after cancel()", .bool(brokenCancel.isCancelled))
    context.record("fixed isCancelled after cancel()", .bool(fixedCancel.isCancelled))
    brokenCancel.loop.waitUntilEnded()
    fixedCancel.loop.waitUntilEnded()
    context.record("2017 loop steps", .number(Double(brokenCancel.loop.stepsCompleted)))
    context.record("fixed loop steps", .number(Double(fixedCancel.loop.stepsCompleted)))

    fixedInstant.waitUntilFinished()
    context.record("fixed work done inside main()", .string(Pitfalls.states(fixedInstant)))

    context.record("2017 work done inside main()", .string(Pitfalls.states(brokenInstant)))
    print("waitUntilFinished() on the 2017 operation whose work ended inside main()…")
    brokenInstant.waitUntilFinished()
    brokenInstant.recordEnd()
    print("…returned: the bug did not show")
}
.title("The 2017 AsyncOperation's two bugs, beside the fix")
.summary(
    "Four operations on one queue. Two run a loop of four half-second steps on a global queue, checking isCancelled, and are cancelled at 0.75 s: one on the 2017 base class, whose cancel() sets .finished without super.cancel(), one on AsyncOperation. Two finish their work inside main(): on the 2017 base class, start() then overwrites .finished with .executing. The experiment ends waiting for that one, and the runner's watchdog stops it: the hang is the demonstration."
)
.claim(
    "In the method, start() we check whether the operation is destroyed … If the operation is not destroyed, we call main(). Remember that there main() is an ASYNCHRONOUS function, and it returns immediately, so we should manually set the operation state [state] to be equal .executing.",
    seconds: nil
)
.corrections(
    ArticleCorrection(
        quote:
            "If the operation is not destroyed, we call main(). Remember that there main() is an ASYNCHRONOUS function, and it returns immediately, so we should manually set the operation state [state] to be equal .executing.",
        here:
            "an operation whose work ends before main() returns has already set .finished, which the .executing set after main() overwrites: the 2017 operation whose work is done inside main() is still executing when the run ends, and waiting for it hangs (this run's checks and the watchdog). Setting .executing before calling main(), as article 002's start() and this project's AsyncOperation do, finishes it."
    )
)
.expectedOutcome(
    "2017 cancel(): isCancelled stays false and the loop runs all four steps; fixed: it stops after two. Fixed instant work finishes; the 2017 one stays executing forever, and waiting for it hangs."
)
.platformDifference(
    "The bugs are the operation's own and show on every platform; but the loops' sleeping steps hold Linux's two pool workers, so the two operations that finish inside main() may wait for a thread, where Apple's pool starts all four at once."
)
.ending(.hangs)
.checks { measurement, prediction in
    let outcome = measurement.outcome
    let fixedSteps = prediction.stepsCompleted(1).sorted().map { Double($0) }
    return [
        Check(
            "2017 cancel(): isCancelled stayed false and the loop ran all \(Pitfalls.steps) steps",
            passed: outcome["2017 isCancelled after cancel()"] == .bool(false)
                && outcome["2017 loop steps"]?.numberValue == Double(Pitfalls.steps)),
        Check(
            "fixed cancel(): isCancelled became true and the loop stopped after \(fixedSteps.map { $0.decimalText }.joined(separator: " or ")) steps",
            passed: outcome["fixed isCancelled after cancel()"] == .bool(true)
                && outcome["fixed loop steps"]?.numberValue.map(fixedSteps.contains) == true),
        Check(
            "fixed work done inside main(): finished",
            passed: outcome["fixed work done inside main()"]?.stringValue == "finished"),
        Check(
            "2017 work done inside main(): still executing, never finished, as the correction of the article's start() says",
            passed: outcome["2017 work done inside main()"]?.stringValue == "executing"),
    ]
}

/// Names, the cancel's instant and a state reader for the pitfalls experiment.
enum Pitfalls {
    static let steps = SteppedLoop.steps
    /// Between the ends of the second and third steps, a quarter of a second from each.
    static let cancelAt = 0.75
    static let brokenCancel = "2017: loop, cancelled"
    static let fixedCancel = "fixed: loop, cancelled"
    static let fixedInstant = "fixed: work done in main()"
    static let brokenInstant = "2017: work done in main()"

    /// `executing`, `finished`, or what else the operation's flags say.
    static func states(_ operation: Foundation.Operation) -> String {
        switch (operation.isExecuting, operation.isFinished) {
        case (true, false): return "executing"
        case (false, true): return "finished"
        case (false, false): return "not started"
        case (true, true): return "executing and finished"
        }
    }
}
