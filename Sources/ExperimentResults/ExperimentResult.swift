import ExperimentKit
import ExperimentModel

/// Everything known about one experiment after a run: the predictions, the measurement, the verdict.
package struct ExperimentResult: Sendable {
    package var experiment: Experiment
    /// What the model expects on the profile the run used.
    package var prediction: Prediction
    /// What the model expects on Apple platforms, where the articles measured.
    package var applePrediction: Prediction
    /// nil when nothing ran (verdict `predicted` or `error`).
    package var measurement: MeasuredRun?
    package var verdict: Verdict
    /// Why the verdict is not `pass`, in one line.
    package var reason: String?
    package var checks: [Check]
    package var tolerance: Tolerance = .standard
    /// Every run's result when the experiment was repeated (`--repeat N`); this result is then
    /// the first one that did not pass, or the last run. Empty for a single run.
    package var repeats: [RepeatSample] = []
    /// The runs asked for (`--repeat N`): more than ``repeats`` holds when an interrupt ended
    /// the repetition before its last run.
    package var runsAsked = 1
    /// Real seconds from the runner turning to the experiment (launching its child, or telling
    /// one started beforehand to go) to judging its report: the run's own time plus the
    /// runner's (what is left of the start and plan, priming, judging); nil when nothing ran.
    package var wallSeconds: Double?
    /// How the child ended; nil when nothing ran. Whoever builds a result with a measurement
    /// says how its child ended (`Judgement`, from the child's report).
    package var childEnding: ChildEnding?
    /// The earlier run's measured total, when `--compare` compared this one with it.
    package var earlier: EarlierTotal?

    package init(
        experiment: Experiment, prediction: Prediction, applePrediction: Prediction, measurement: MeasuredRun?,
        verdict: Verdict, reason: String?, checks: [Check], tolerance: Tolerance = .standard,
        repeats: [RepeatSample] = [], runsAsked: Int = 1, wallSeconds: Double? = nil,
        childEnding: ChildEnding? = nil, earlier: EarlierTotal? = nil
    ) {
        self.experiment = experiment
        self.prediction = prediction
        self.applePrediction = applePrediction
        self.measurement = measurement
        self.verdict = verdict
        self.reason = reason
        self.checks = checks
        self.tolerance = tolerance
        self.repeats = repeats
        self.runsAsked = runsAsked
        self.wallSeconds = wallSeconds
        self.childEnding = childEnding
        self.earlier = earlier
    }

    /// The bounds the measured total is held to.
    package var expectedBounds: ClosedRange<Double> {
        tolerance.widen(prediction.totalRange)
    }

    /// The article's figure in real seconds at this run's time scale; nil unless the run used
    /// the article's own parameter values.
    package var articleSeconds: Double? {
        ArticleText.seconds(experiment.claim, parameters: prediction.parameters, timeScale: prediction.timeScale)
    }

    /// Whether this platform differs from the article's in anything the output shows: the two
    /// models' totals, when an operation's work starts or ends (or whether it runs) beyond the
    /// tolerance, how many run at once, or the outcomes a race allows; or in what the run shows
    /// beyond the models (`Experiment.differsBeyondTheModel`). The one place that decides
    /// whether a result says why ("Where this platform differs", the Why line, JSON
    /// `explanation`).
    package var differsFromArticlePlatform: Bool {
        func apart(_ apple: Double, _ here: Double) -> Bool {
            apple.isFinite != here.isFinite || (apple.isFinite && !tolerance.widen(apple...apple).contains(here))
        }
        let spans = zip(applePrediction.nominal.spans, prediction.nominal.spans)
        let timing =
            apart(applePrediction.total, prediction.total)
            || spans.contains { apple, here in
                switch (apple, here) {
                // A cancelled start does no work: when the queue got round to finishing it is no timing.
                case (let apple?, let here?) where !apple.ranWork && !here.ranWork: return false
                case (let apple?, let here?):
                    return apple.ranWork != here.ranWork || apart(apple.start, here.start) || apart(apple.end, here.end)
                case (nil, nil): return false
                default: return true
                }
            }
        let naming = experiment.outcomeNaming
        let outcomes =
            RaceOutcome.possible(in: applePrediction, naming: naming)
            != RaceOutcome.possible(in: prediction, naming: naming)
        return timing || applePrediction.maximumOverlapRange != prediction.maximumOverlapRange || outcomes
            || experiment.differsBeyondTheModel
    }

    /// Why this platform differs from the article's: the experiment's own sentence, or, for
    /// one that states none (a learner's), what the two models predict for its plan and the
    /// rule of each platform that makes them differ, or that they do not.
    package var platformDifference: String {
        experiment.platformDifference.isEmpty ? derivedPlatformDifference : experiment.platformDifference
    }

    /// The two models' totals and widths for this plan, and the rules behind a difference:
    /// corelibs' `BlockOperation` running its blocks one after another, and Linux's pool growing
    /// a worker a second while the ones it has block.
    var derivedPlatformDifference: String {
        func figures(_ prediction: Prediction) -> String {
            let overlap = prediction.maximumOverlapRange
            let width =
                overlap.lowerBound == overlap.upperBound
                ? "\(overlap.upperBound)" : "\(overlap.lowerBound)–\(overlap.upperBound)"
            return "\(Format.seconds(prediction.total)) with at most \(width) at once"
        }
        guard differsFromArticlePlatform else {
            return "None the models see in this code: both predict \(figures(prediction))."
        }
        let operations = prediction.workload.operations
        var rules: [String] = []
        if operations.contains(where: { if case .executionBlock = $0.executor { true } else { false } }) {
            rules.append("corelibs' BlockOperation runs its blocks one after another, Apple's side by side")
        }
        let blocksOnThePool = operations.contains { operation in
            guard case .blocking = operation.work, operation.articleSeconds > 0 else { return false }
            switch operation.executor {
            case .queue, .globalQueue: return true
            default: return false
            }
        }
        if blocksOnThePool, prediction.maximumOverlapRange.upperBound < applePrediction.maximumOverlapRange.upperBound {
            rules.append(
                "Linux's Dispatch starts one worker per CPU and adds one more a second while all of them block, where Apple's adds one as soon as one blocks"
            )
        }
        let because = rules.isEmpty ? "" : ", because " + rules.joined(separator: ", and ")
        return
            "The \(prediction.profile.kind.rawValue) model predicts \(figures(prediction)), the Apple one \(figures(applePrediction))\(because)."
    }

    /// What this result is, for a reader: the declared ending first, then a race the model
    /// derives, else a timing (or an untimed benchmark).
    package var kind: ResultKind {
        switch experiment.expectedEnding {
        case .hangs: return .hang
        case .traps: return .trap
        case .returns: break
        }
        if let possible = RaceOutcome.possible(in: prediction, naming: experiment.outcomeNaming) {
            let happened = measurement.flatMap { measured in
                experiment.outcomeNaming.map { $0.measured(measured) }
                    ?? OutcomeNaming.operationsThatDiffer(
                        measured: measured, prediction.outcomeBranches, prediction.workload)
            }
            return .race(RaceOutcome(possible: possible, happened: happened))
        }
        return experiment.timing == .predicted ? .timed : .untimed
    }

    /// The measured total less the prediction: only for a timed result that ran and returned.
    /// A race's total depends on who won, and a demonstration's is when it was stopped.
    package var deltaSeconds: Double? {
        guard kind == .timed, childEnding == .returned, let measurement else { return nil }
        return measurement.totalSeconds - prediction.total
    }

    /// Whether an interrupt ended the repetition before its last run: the result is of the runs
    /// that finished.
    package var isCutShort: Bool {
        runsAsked > 1 && repeats.count < runsAsked
    }

    /// This run as a sample of a repetition.
    package var sample: RepeatSample {
        RepeatSample(
            measuredSeconds: measurement?.totalSeconds, verdict: verdict, reason: reason,
            bounds: experiment.timing == .predicted ? expectedBounds : nil, wallSeconds: wallSeconds
        )
    }

    /// Several runs of one experiment as one result: the first that did not pass (or the last),
    /// carrying every run's sample when `asked` is more than one (even when an interrupt left
    /// fewer, or one); it passes only if every run passed.
    package static func repeated(_ runs: [ExperimentResult], of asked: Int) -> ExperimentResult {
        var result = runs.first { $0.verdict != .pass && $0.verdict != .predicted } ?? runs[runs.count - 1]
        result.repeats = asked > 1 ? runs.map(\.sample) : []
        result.runsAsked = asked
        return result
    }

    /// Every run's wall and measured seconds: the repeats', or this run's; none when nothing ran.
    package var runTimes: [(wall: Double, measured: Double)] {
        guard !repeats.isEmpty else { return wallSeconds.map { [($0, measurement?.totalSeconds ?? 0)] } ?? [] }
        return repeats.compactMap { sample in sample.wallSeconds.map { ($0, sample.measuredSeconds ?? 0) } }
    }
}
