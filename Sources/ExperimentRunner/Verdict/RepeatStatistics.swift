import ExperimentModel
import ExperimentKit

/// One run's result when an experiment is repeated (`--repeat N`).
public struct RepeatSample: Sendable, Equatable {
    /// nil when nothing was measured (an error).
    public var measuredSeconds: Double?
    public var verdict: Verdict
    public var reason: String?
    /// The bounds this run's total was held to (nil when untimed). Each run has its own: the
    /// model counts the CPU work at what it cost in that run.
    public var bounds: ClosedRange<Double>?
    /// The run's wall time (``ExperimentResult/wallSeconds``); nil when it did not run.
    public var wallSeconds: Double?
}

/// What N runs of one experiment add up to: the spread of the measured totals and how many passed.
public struct RepeatStatistics: Sendable, Equatable {
    public var count: Int
    public var passed: Int
    /// Over the runs that measured a total; nil when none did.
    public var minimum: Double?
    public var median: Double?
    public var maximum: Double?

    public init(_ samples: [RepeatSample]) {
        count = samples.count
        passed = samples.filter { $0.verdict == .pass }.count
        let totals = samples.compactMap(\.measuredSeconds).sorted()
        minimum = totals.first
        maximum = totals.last
        if totals.isEmpty {
            median = nil
        } else if totals.count.isMultiple(of: 2) {
            median = (totals[totals.count / 2 - 1] + totals[totals.count / 2]) / 2
        } else {
            median = totals[totals.count / 2]
        }
    }
}
