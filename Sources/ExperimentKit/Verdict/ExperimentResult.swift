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
    /// Every run's result when the experiment was repeated (`--repeat N`); this result is then
    /// the first one that did not pass, or the last run. Empty for a single run.
    public var repeats: [RepeatSample] = []
    /// Real seconds from launching the child to judging its report (the run's own time plus
    /// the runner's: process start, plan, priming, judging); nil when nothing ran.
    public var wallSeconds: Double?

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

    /// The article's figure in real seconds at this run's time scale; nil unless the run used
    /// the article's own parameter values.
    public var articleSeconds: Double? {
        ArticleText.seconds(experiment.claim, parameters: prediction.parameters, timeScale: prediction.timeScale)
    }

    /// Whether this platform's predicted timing differs from the Apple one beyond the tolerance:
    /// the total, or when an operation starts. Only then is the platform difference explained
    /// ("Where this platform differs"); an experiment that runs the same everywhere is not listed.
    public var differsFromArticlePlatform: Bool {
        if !tolerance.widen(applePrediction.totalRange).contains(prediction.total) { return true }
        return zip(prediction.startRanges, applePrediction.startRanges).contains { here, apple in
            guard let here, let apple else { return false }
            return !tolerance.widen(apple).contains(here.lowerBound) || !tolerance.widen(apple).contains(here.upperBound)
        }
    }

    /// This run as a sample of a repetition.
    public var sample: RepeatSample {
        RepeatSample(measuredSeconds: measurement?.totalSeconds, verdict: verdict, reason: reason, bounds: experiment.timing == .predicted ? expectedBounds : nil)
    }

    /// Several runs of one experiment as one result: the first that did not pass (or the last),
    /// carrying every run's sample; it passes only if every run passed.
    public static func repeated(_ runs: [ExperimentResult]) -> ExperimentResult {
        var result = runs.first { $0.verdict != .pass && $0.verdict != .predicted } ?? runs[runs.count - 1]
        result.repeats = runs.count > 1 ? runs.map(\.sample) : []
        return result
    }
}
