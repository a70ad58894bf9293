import ExperimentKit
import Foundation

/// GroupAdd cancelled at an instant (article 000, "Pattern 1", CancellationGroup.playground).
///
/// At the article's 1 s the first two sums end together with the cancel, so which sums arrive
/// is a race; at 0.5 s and 1.5 s nothing ends near the cancel, so the outcome is certain. All
/// three are registered, and the model derives each one's possible outcomes.
func groupCancellationExperiment(name: String, cancelAt: Double) -> Experiment {
    let raced = cancelAt == 1
    return Experiment(
        name, article: "000_d66eefb2b922d5e0.txt",
        section: "Pattern 1. Working with a group of independent operations (CancellationGroup.playground)"
    ) { context in
        let groupAdd = GroupAdd(
            input: Summing.cancellationPairs(context.parameters[.pairs]),
            width: context.parameters[.width].maxConcurrentOperationCount)
        groupAdd.start()
        context.sleep(untilArticleSeconds: context.parameters[.cancelAt])
        print("cancel()")
        context.record(.cancelledAtSeconds, context.timeline.now())
        groupAdd.cancel()
        groupAdd.wait()
        context.record(.outputTuples, groupAdd.outputArray.map { "(\($0.0), \($0.1), \($0.2))" })
    }
    .title("GroupAdd cancelled at \(cancelAt.decimalText) s" + (raced ? " (the article's instant: a race)" : ""))
    .summary(
        "GroupAdd owns a queue created suspended, two operations at a time, with one SumOperation (check isCancelled, then a one-second slowAdd) per pair of (1,2) (3,4) (5,6) (7,8) (9,10); completion blocks append (l, r, sum) through a serial appendQueue. start(), then cancel() at \(cancelAt.decimalText) s, then wait()."
            + (raced
                ? ""
                : " The article waits 1 s before the cancel; this variant moves the instant away from any sum's end, so which sums arrive is certain.")
            + (raced
                ? " At 1 s the first two sums end at the same instant as the cancel: whether the next two have already started is decided by fractions of a millisecond."
                : "")
    )
    .claim(
        "We start groupAdd, wait for 1 second and use the method cancel () to remove all the summation operations from the operation queue. As a result, after the completion of all operations (we use wait(), which can NOT be used on main queue, but can be on Playground), we get a shortened output array",
        seconds: nil
    )
    .expectedOutcome(
        raced
            ? "A shortened array: the two sums under way at 1 s, plus the next one or two if they started before the cancel reached them; which, the run shows."
            : "Exactly the sums under way at \(cancelAt.decimalText) s arrive; the others are cancelled before they start and never add."
    )
    .platformDifference("Two operations at a time is the bottleneck on every platform.")
    .parameters([
        raced
            ? StandardParameters.cancelAt(cancelAt)
            : StandardParameters.cancelAt(
                cancelAt,
                origin: .chosen(
                    "the article's 1 s moved away from any sum's end, so the outcome is certain", insteadOf: 1.0)),
        StandardParameters.pairs(Summing.cancellationPairs.count, 1...10),
        StandardParameters.width(2),
    ])
    .checks { measurement, prediction in
        var checks = [GroupAddTuples.arrivedAsPredicted(measurement.outcome[.outputTuples] ?? [], prediction)]
        if raced, let cancel = measurement.outcome[.cancelledAtSeconds] {
            let firstEnds = prediction.workload.operations.prefix(2).compactMap { measurement.span($0.label)?.end }
            let gaps = firstEnds.map { String(format: "%+.2f ms", ($0 - cancel) * 1000) }.joined(separator: ", ")
            checks.append(.note("the race, measured: the first two sums ended \(gaps) from the cancel"))
        }
        return checks
    }
    .namingOutcomes(
        OutcomeNaming(
            // A race is told by how many tuples arrive: the sums whose work ran.
            predicted: { branch, _ in tuples(branch.spans.filter { $0?.ranWork == true }.count) },
            measured: { $0.outcome[.outputTuples].map { tuples($0.count) } }
        ))
}

/// The check of the GroupAdd experiments and of their Swift-concurrency counterpart: the tuples
/// that arrived are those of the sums whose work the model lets run, in one of its outcomes.
enum GroupAddTuples {
    static func arrivedAsPredicted(_ arrived: [String], _ prediction: Prediction) -> Check {
        // A sum's row is its operation's (`SumOperation 1 + 2`) or its child task's (`1 + 2`).
        let tuples = Dictionary(
            uniqueKeysWithValues: Summing.cancellationPairs(prediction.workload.operations.count).flatMap { pair in
                let tuple = "(\(pair.0), \(pair.1), \(pair.0 + pair.1))"
                return [(Summing.label(pair), tuple), (GroupSumOperation.label(pair), tuple)]
            })
        let predicted = Set(
            prediction.branches.map { branch in
                branch.spans.compactMap { span in span.flatMap { $0.ranWork ? tuples[$0.label] : nil } }.sorted()
            })
        let options = Set(predicted.map(\.count)).sorted().map(String.init).joined(separator: " or ")
        return Check(
            "\(arrived.count) tuples arrived, each a correct sum the model lets through (\(options) possible)",
            passed: predicted.contains(arrived.sorted()))
    }
}

/// `2 tuples`: how the group-cancellation experiments name an outcome.
private func tuples(_ count: Int) -> String {
    "\(count) tuple\(count == 1 ? "" : "s")"
}

let groupCancellation = groupCancellationExperiment(name: "group-cancellation", cancelAt: 1)
let groupCancellationEarly = groupCancellationExperiment(name: "group-cancellation-at-500ms", cancelAt: 0.5)
let groupCancellationLate = groupCancellationExperiment(name: "group-cancellation-at-1500ms", cancelAt: 1.5)
