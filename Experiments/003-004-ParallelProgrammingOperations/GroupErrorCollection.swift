import ExperimentKit
import Foundation

/// A race in the article's GroupOperation with error handling (003/004, "Error Handling"), shown
/// and fixed. The author says the code has a bug ("Conclusion") but not which: this is the
/// project's reading of the code, and says so.
let groupErrorCollection = Experiment(
    "group-error-collection", article: "003_2ee32e0c735e8871.txt",
    section: "错误处理; the warning of a bug in “结论” (004: “Error Handling”, “Conclusion”)"
) { context in
    let broken = ErrorCollectingGroup(
        name: ErrorCollection.broken, requests: ErrorCollection.count,
        report: UnsynchronisedErrors(raceWindowSeconds: ErrorCollection.raceWindowSeconds))
    broken.start()
    context.record("\(ErrorCollection.broken): errors kept", .strings(broken.errors.map(\.request)))

    let fixed = ErrorCollectingGroup(
        name: ErrorCollection.fixed, requests: ErrorCollection.count, report: SynchronisedErrors())
    fixed.start()
    context.record("\(ErrorCollection.fixed): errors kept", .strings(fixed.errors.map(\.request)))
}
.title("A race in the GroupOperation's error handling: errors lost when two fail at once")
.summary(
    "Two GroupOperations, each of four requests that fail after 0.5 s (a sleep: nothing is fetched) on its private queue, two at a time, started one after the other with start() on the experiment's own thread. Each request reports its error to the group. The broken group does what the article's finish(withError:) does, errors += newErrors: read the array, append, write it back, with the window between read and write widened to 0.5 s so that two requests reporting together always overlap in it. The fixed group appends under one lock. The author warns that this code contains a bug but does not say which, and the post that was to fix it is not among the articles: the race shown here is this project's reading of the code."
)
.claim(
    "One option would be to add a method finished(withErrors:) and let each AsyncOperation call this instead of the AsyncOperation handling it in start(). This way, we could check for errors and add it to an array.",
    seconds: nil,
    file: "004_75652ba8307bb273.txt"
)
.expectedOutcome(
    "The fixed group keeps all four errors; the broken one keeps one per pair of requests that reported together: two of four."
)
.platformDifference(
    "The queue's width of 2 decides which requests report together on every platform, so the same errors are lost everywhere."
)
.checks { measurement, prediction in
    let kept = { (group: String) in measurement.outcome["\(group): errors kept"]?.stringArray ?? [] }
    let expectedBroken = ErrorCollection.reportingTogether(prediction)
    return [
        Check(
            "the fixed group kept all \(ErrorCollection.count) errors",
            passed: kept(ErrorCollection.fixed).sorted() == ErrorCollection.requests(ErrorCollection.fixed)),
        Check(
            "the broken group lost errors: it kept \(expectedBroken) of \(ErrorCollection.count), one per group of requests that reported together",
            passed: kept(ErrorCollection.broken).count == expectedBroken),
    ]
}

/// Labels and durations of the error-collection experiment.
enum ErrorCollection {
    static let broken = "broken group"
    static let fixed = "fixed group"
    static let count = 4
    /// The broken report's widened window between reading and writing the array, in article
    /// seconds: at the smallest time scale still 25 ms, far more than two requests of a pair
    /// ever drift apart.
    static let raceWindowSeconds = 0.5

    static func requests(_ group: String) -> [String] {
        (1...count).map { "\(group): request \($0)" }
    }

    /// How many errors the broken group keeps as the model predicts its requests' starts: the
    /// requests that start together report together, and of those only the last write stays.
    static func reportingTogether(_ prediction: Prediction) -> Int {
        let starts = zip(prediction.workload.operations, prediction.nominal.spans).compactMap { planned, span in
            planned.label.hasPrefix(broken) ? span.map { ($0.start * 1000).rounded() } : nil
        }
        return Set(starts).count
    }
}
