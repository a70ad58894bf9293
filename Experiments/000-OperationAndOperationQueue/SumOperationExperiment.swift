import ExperimentKit
import Foundation

/// Six asynchronous SumOperations (article 000, "Asynchronous operation"; AsyncOperations.playground).
let sumOperationExperiment = Experiment(
    "sum-operation", article: "000_d66eefb2b922d5e0.txt",
    section: "Asynchronous operation (AsyncOperations.playground)"
) { context in
    let pairs = Array(Summing.asyncPairs.prefix(context.parameters[.pairs]))
    let additionQueue = OperationQueue()
    // Completion blocks run on another thread after their operation finishes: the group
    // lets the experiment wait for the last one too.
    let completions = DispatchGroup()
    var operations: [SumOperation] = []
    for (lhs, rhs) in pairs {
        let operation = SumOperation(input: (lhs, rhs))
        completions.enter()
        operation.completionBlock = { [unowned operation] in
            defer { completions.leave() }
            guard let result = operation.result else { return }
            print("\(lhs) + \(rhs) = \(result)")
        }
        additionQueue.addOperation(operation)
        operations.append(operation)
    }
    additionQueue.waitUntilAllOperationsAreFinished()
    completions.wait()
    let inputOrder = pairs.map(Summing.label)
    // The sleeps as the pool ran them, recorded from its workers.
    let workerLabels = Set(pairs.map(Summing.workerLabel))
    let measured = context.timeline.measurement()
    let sleeps = (measured?.operations ?? []).filter { workerLabels.contains($0.label) }
    let completionOrder = SumCompletions(printed: measured?.output ?? [], pairs: pairs)
    context.record("inputOrder", .strings(inputOrder))
    context.record("completionOrder", .strings(completionOrder.order))
    context.record("tiedCompletions", .strings(completionOrder.ties))
    // The article's point: asynchronous operations complete in an order of their own.
    context.record("completionOrderDiffers", .bool(completionOrder.differs(from: inputOrder)))
    context.record("sleepsAtOnce", .number(Double(Overlap.maximum(of: sleeps.map { ($0.start, $0.end) }))))
    context.record("sums", Summing.value(operations.map { $0.result ?? -1 }))
}
.title("SumOperation: six asynchronous additions")
.summary(
    "One SumOperation (an AsyncOperation) per pair of (1,5) (5,8) (6,1) (3,9) (6,12) (1,0) on additionQueue. Its main() calls asyncAdd, which, as the author's playground does, adds an operation sleeping 1 s to a new OperationQueue of its own and calls back; the callback stores the sum and finishes the operation; its completion block prints \"l + r = sum\". The timeline draws each operation from main() to its callback, and each sleep (\"· asyncAdd\") on the pool worker that holds it."
)
.claim(
    "We see that the order of execution of asynchronous operations is slightly different from the order of the pairs of numbers in the array. It speaks about multi-threaded execution of our asynchronous operations.",
    seconds: nil
)
.expectedOutcome("Every sum is correct; they complete in an order of their own, as threads become free.")
.platformDifference(
    "The operations themselves hold no thread while they wait for their callbacks, but the one-second sleeps they hand to the addition queues block workers of the default pool those queues run on, which on Linux starts with one per CPU and grows by one a second: the sleeps (the \"· asyncAdd\" rows) take turns on the workers instead of all sleeping at once as on Apple platforms."
)
.parameters([StandardParameters.pairs(Summing.asyncPairs.count, 1...Summing.asyncPairs.count)])
.checks { measurement, prediction in
    let pairs = Summing.asyncPairs.prefix(prediction.workload.operations.count)
    let expected = pairs.map { $0.0 + $0.1 }
    let sums = measurement.outcome["sums"].flatMap { value -> [Int]? in
        guard case .array(let items) = value else { return nil }
        return items.compactMap { $0.numberValue.map { Int($0) } }
    }
    let completion = measurement.outcome["completionOrder"]?.stringArray ?? []
    let printed = SumCompletions(printed: measurement.output, pairs: Array(pairs)).order
    return [
        Check("every sum is correct: \(expected.map(String.init).joined(separator: ", "))", passed: sums == expected),
        Check("each operation completed once", passed: completion.sorted() == pairs.map(Summing.label).sorted()),
        Check("the completion order is the order of the printed lines", passed: completion == printed),
    ]
}

/// The order in which the sums completed, read from the lines their completion blocks printed,
/// and the completions too close together to be told apart.
///
/// Two sums whose one-second sleeps begin together end in an order that the clock records to
/// the nanosecond but the timers decide: a sleeping thread wakes up to a millisecond or more
/// late on this machine (the host line's timer jitter, 20 × 1 ms sleeps). Lines printed less
/// than ``tieSeconds`` apart are therefore a tie, not an order.
struct SumCompletions {
    /// Completions closer than this are tied.
    static let tieSeconds = 0.001

    /// Each sum's label (`3 + 9`), in the order its line was printed.
    let order: [String]
    /// The labels of each run of completions printed less than ``tieSeconds`` apart, in order;
    /// a completion not tied with another is a run of one.
    let runs: [[String]]

    /// From the printed lines `l + r = sum` of `pairs` (others are left out), ordered by time.
    init(printed: [PrintedLine], pairs: [(Int, Int)]) {
        let labels = Dictionary(
            pairs.map { ("\(Summing.label($0)) = \($0.0 + $0.1)", Summing.label($0)) },
            uniquingKeysWith: { first, _ in first })
        let lines = printed.filter { labels[$0.text] != nil }.sorted { $0.at < $1.at }
        order = lines.compactMap { labels[$0.text] }
        var runs: [[String]] = [], previous: Double?
        for line in lines {
            let label = labels[line.text] ?? line.text
            if let previous, line.at - previous < Self.tieSeconds {
                runs[runs.count - 1].append(label)
            } else {
                runs.append([label])
            }
            previous = line.at
        }
        self.runs = runs
    }

    /// Every pair's line `l + r = sum` printed once, with its sum right: what a task group's
    /// owner shows of the sums it received.
    static func everySumPrintedOnce(_ printed: [PrintedLine], pairs: [(Int, Int)]) -> Check {
        let completed = SumCompletions(printed: printed, pairs: pairs).order
        return Check(
            "every sum is correct, printed once: \(pairs.map { String($0.0 + $0.1) }.joined(separator: ", "))",
            passed: completed.sorted() == pairs.map(Summing.label).sorted())
    }

    /// `3 + 9 and 6 + 12 tied`: one entry for each run of more than one.
    var ties: [String] {
        runs.filter { $0.count > 1 }.map {
            $0.joined(separator: " and ") + " tied (printed less than \(Format.shortDuration(Self.tieSeconds)) apart)"
        }
    }

    /// Whether the sums completed in another order than `inputOrder`, tied ones counting as in
    /// any order.
    func differs(from inputOrder: [String]) -> Bool {
        let position = Dictionary(inputOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let untangled = runs.flatMap { $0.sorted { (position[$0] ?? 0) < (position[$1] ?? 0) } }
        return untangled != inputOrder
    }
}
