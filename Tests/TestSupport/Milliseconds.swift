import ExperimentModel

/// `seconds` to the nearest millisecond: timelines computed by hand are written to the
/// millisecond, and the model's sums of scaled durations carry floating-point dust below it.
public func toTheMillisecond(_ seconds: Double) -> Double {
    (seconds * 1000).rounded() / 1000
}

extension PredictedTimeline {
    /// Each operation's start to the millisecond, in the workload's order; -1 for one that
    /// never starts (so a comparison with hand-computed starts fails instead of crashing).
    public var startsToTheMillisecond: [Double] {
        spans.map { toTheMillisecond($0?.start ?? -1) }
    }
}
