/// Where in the articles an experiment comes from.
public struct ArticleSource: Sendable, Equatable {
    /// The article's file in `shared/articles/`, e.g. `000_d66eefb2b922d5e0.txt`.
    public var file: String
    /// The section that holds the experiment, in the article's own words.
    public var section: String

    public init(file: String, section: String) {
        self.file = file
        self.section = section
    }
}

/// What the article says it measured: its words, and the figure they state, if any.
public struct ArticleClaim: Sendable, Equatable {
    /// The article's sentence, quoted.
    public var quote: String
    /// The figure the sentence states, in article seconds (nil when it states none).
    public var seconds: Double?
    /// Why no model of this machine can reach the figure, when it cannot (it holds the cost of
    /// work done on the article's own machine); shown beside both figures.
    public var unreachableBecause: String?

    public init(quote: String, seconds: Double?, unreachableBecause: String? = nil) {
        self.quote = quote
        self.seconds = seconds
        self.unreachableBecause = unreachableBecause
    }
}

/// How an experiment's child process is expected to end.
public enum ExpectedEnding: Sendable, Equatable {
    /// The experiment returns, having waited for all its work (the usual case).
    case returns
    /// The experiment never returns: it demonstrates a hang, and the runner's watchdog stopping
    /// its child is the expected outcome.
    case hangs
    /// The child process traps, and what it prints on stderr contains this text.
    case traps(containing: String)

    /// `returns`, `hangs` or `traps`, as the JSON output names it.
    public var name: String {
        switch self {
        case .returns: return "returns"
        case .hangs: return "hangs"
        case .traps: return "traps"
        }
    }
}

/// Whether the model can time an experiment.
public enum ExperimentTiming: Sendable, Equatable {
    /// The model predicts its timeline; the verdict holds the run to it.
    case predicted
    /// A benchmark whose length is what it measures: the model's estimate only sizes the
    /// watchdog, and the verdict rests on the experiment's own checks.
    case untimed(reason: String)
}

/// One experiment of the articles, registered by name.
///
/// A single ``Workload`` declaration drives both halves: the platform model predicts from it
/// and ``run`` builds its real `Operation`s from the same value, so the two cannot drift apart.
public struct Experiment: Sendable {
    /// Kebab-case name used on the command line, e.g. `serial-queue`.
    public var name: String
    /// A short human title.
    public var title: String
    /// Article file and section.
    public var source: ArticleSource
    /// What the experiment does, for a learner; says what is simulated, if anything.
    public var summary: String
    /// The article's claim, quoted with its figure.
    public var claim: ArticleClaim
    /// The outcome the experiment expects (beyond its timing), in one sentence.
    public var expectedOutcome: String
    /// Why this platform gives another figure than the article, in one plain sentence.
    /// Shown only when the model predicts a difference.
    public var platformDifference: String
    /// The knobs it offers, with the article's values as defaults; empty when it has none.
    public var parameters: [ParameterSpec]
    /// The operations, queues and durations for given parameter values, in article seconds.
    public var makeWorkload: @Sendable (Parameters) -> Workload
    /// Runs the workload with real Foundation types; records its timeline in the context.
    public var run: @Sendable (RunContext, Workload) throws -> Outcome
    /// How its child is expected to end; a hang or a trap is a demonstration when declared here.
    public var expectedEnding: ExpectedEnding
    /// Whether the model times it.
    public var timing: ExperimentTiming
    /// Outcome checks specific to this experiment, beyond the timing checks every experiment
    /// gets; they may compare the measurement with the prediction (its workload and branches).
    public var checks: @Sendable (MeasuredRun, Prediction) -> [Check]
    /// How to name an outcome when the model allows several (a race), so every format can show
    /// the possible ones and the one that happened; nil names them by the operations that ran.
    public var outcomeNaming: OutcomeNaming?

    public init(
        name: String,
        title: String,
        source: ArticleSource,
        summary: String,
        claim: ArticleClaim,
        expectedOutcome: String,
        platformDifference: String,
        parameters: [ParameterSpec] = [],
        workload: @escaping @Sendable (Parameters) -> Workload,
        run: @escaping @Sendable (RunContext, Workload) throws -> Outcome,
        expectedEnding: ExpectedEnding = .returns,
        timing: ExperimentTiming = .predicted,
        checks: @escaping @Sendable (MeasuredRun, Prediction) -> [Check] = { _, _ in [] }
    ) {
        self.name = name
        self.title = title
        self.source = source
        self.summary = summary
        self.claim = claim
        self.expectedOutcome = expectedOutcome
        self.platformDifference = platformDifference
        self.parameters = parameters
        self.makeWorkload = workload
        self.run = run
        self.expectedEnding = expectedEnding
        self.timing = timing
        self.checks = checks
    }

    /// An experiment without knobs.
    public init(
        name: String,
        title: String,
        source: ArticleSource,
        summary: String,
        claim: ArticleClaim,
        expectedOutcome: String,
        platformDifference: String,
        workload: @escaping @Sendable () -> Workload,
        run: @escaping @Sendable (RunContext, Workload) throws -> Outcome,
        expectedEnding: ExpectedEnding = .returns,
        timing: ExperimentTiming = .predicted,
        checks: @escaping @Sendable (MeasuredRun, Prediction) -> [Check] = { _, _ in [] }
    ) {
        self.init(
            name: name, title: title, source: source, summary: summary, claim: claim, expectedOutcome: expectedOutcome,
            platformDifference: platformDifference, parameters: [], workload: { _ in workload() }, run: run,
            expectedEnding: expectedEnding, timing: timing, checks: checks
        )
    }

    /// The same experiment, naming its outcomes in its own terms when they race.
    public func namingOutcomes(_ naming: OutcomeNaming) -> Experiment {
        var experiment = self
        experiment.outcomeNaming = naming
        return experiment
    }

    /// The article's values.
    public var defaultParameters: Parameters {
        Parameters(parameters)
    }

    /// The workload for these values (the article's when none are given).
    public func workload(_ values: Parameters? = nil) -> Workload {
        makeWorkload(values ?? defaultParameters)
    }

    /// The parameters with `overrides` applied to the keys this experiment declares (validated).
    public func parameters(overriding overrides: [String: String]) throws(UsageError) -> Parameters {
        var valid: [String: String] = [:]
        for spec in parameters {
            if let value = overrides[spec.key] { valid[spec.key] = try spec.validate(value) }
        }
        return Parameters(parameters, overrides: valid)
    }
}
