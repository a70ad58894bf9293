import ExperimentModel

/// How an experiment whose outcome can be a race names one outcome, the same way for a branch of
/// the model and for a run, so a reader can see which of the possible ones happened.
public struct OutcomeNaming: Sendable {
    /// The outcome one branch of the model leads to, as the run would report it.
    public var predicted: @Sendable (PredictedTimeline, Workload) -> String
    /// The outcome the run reported; nil when it reported none.
    public var measured: @Sendable (MeasuredRun) -> String?
    /// The possible outcomes, when the race is one the model does not time (which of two of
    /// Foundation's own threads gets somewhere first): the experiment states them; nil when the
    /// model's branches tell them.
    public var declared: [String]?

    public init(
        predicted: @escaping @Sendable (PredictedTimeline, Workload) -> String,
        measured: @escaping @Sendable (MeasuredRun) -> String?
    ) {
        self.predicted = predicted
        self.measured = measured
    }

    /// A race the model does not time, between the outcomes `possible`; `measured` names the one
    /// a run produced.
    public init(declared possible: [String], measured: @escaping @Sendable (MeasuredRun) -> String?) {
        self.init(predicted: { _, _ in possible[0] }, measured: measured)
        declared = possible
    }
}
