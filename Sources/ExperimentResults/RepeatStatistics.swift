/// One run's result when an experiment is repeated (`--repeat N`).
package struct RepeatSample: Sendable, Equatable {
    /// nil when nothing was measured (an error).
    package var measuredSeconds: Double?
    package var verdict: Verdict
    package var reason: String?
    /// The bounds this run's total was held to (nil when untimed). Each run has its own: the
    /// model counts the CPU work at what it cost in that run.
    package var bounds: ClosedRange<Double>?
    /// The run's wall time (``ExperimentResult/wallSeconds``); nil when it did not run.
    package var wallSeconds: Double?
}

/// What N runs of one experiment add up to: the spread of the measured totals and how many passed.
package struct RepeatStatistics: Sendable, Equatable {
    package var count: Int
    package var passed: Int
    /// Over the runs that measured a total; nil when none did.
    package var minimum: Double?
    package var median: Double?
    package var maximum: Double?

    package init(_ samples: [RepeatSample]) {
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
