/// What one operation's real CPU work (an image filter) cost, in real seconds, found in the
/// child process that ran it. That work does not follow the time scale and takes longer on a
/// busy machine, so the model predicts again from these figures once the run is over.
public struct CPUCost: Sendable, Codable, Equatable {
    /// Where the figure comes from.
    public enum Source: String, Sendable, Codable {
        /// Calibrated in the child: after the run, for work the run did not do (a cancelled
        /// filter), so every figure comes from the process that runs; or before its clock, for
        /// a figure the runner needs first (a benchmark's estimated length).
        case calibrated
        /// Timed in the operation while the experiment ran (all of its row but the sleep it may
        /// begin with): what the work really took there, load included.
        case measured
    }

    /// The operation's label (its row in the timeline).
    public var label: String
    /// Seconds of one step of its work (the mean, when it was timed several times).
    public var seconds: Double
    public var source: Source

    package init(label: String, seconds: Double, source: Source) {
        self.label = label
        self.seconds = seconds
        self.source = source
    }
}
