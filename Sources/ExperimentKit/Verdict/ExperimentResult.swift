/// Everything known about one experiment after a run: the predictions, the measurement, the verdict.
public struct ExperimentResult: Sendable {
    public var experiment: Experiment
    /// What the model expects on the profile the run used.
    public var prediction: Prediction
    /// What the model expects on Apple platforms, where the articles measured.
    public var applePrediction: Prediction
    /// nil when nothing ran (verdict `predicted` or `error`).
    public var measurement: MeasuredRun?
    public var verdict: Verdict
    /// Why the verdict is not `pass`, in one line.
    public var reason: String?
    public var checks: [Check]
    public var tolerance: Tolerance

    public init(experiment: Experiment, prediction: Prediction, applePrediction: Prediction, measurement: MeasuredRun?, verdict: Verdict, reason: String?, checks: [Check], tolerance: Tolerance = .standard) {
        self.experiment = experiment
        self.prediction = prediction
        self.applePrediction = applePrediction
        self.measurement = measurement
        self.verdict = verdict
        self.reason = reason
        self.checks = checks
        self.tolerance = tolerance
    }

    /// The bounds the measured total is held to.
    public var expectedBounds: ClosedRange<Double> {
        tolerance.widen(prediction.totalRange)
    }

    /// The article's figure in real seconds at this run's time scale.
    public var articleSeconds: Double? {
        experiment.claim.seconds.map { $0 * prediction.timeScale }
    }

    /// Whether this platform's prediction differs from the Apple one, beyond the tolerance.
    public var differsFromArticlePlatform: Bool {
        !tolerance.widen(applePrediction.totalRange).contains(prediction.total)
            || applePrediction.maximumOverlapRange != prediction.maximumOverlapRange
    }
}
