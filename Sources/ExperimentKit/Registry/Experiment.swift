import ExperimentModel
import Foundation

/// What the article says about an experiment: its words, and the figure they state, if any.
public struct ArticleClaim: Sendable, Equatable {
    /// The article's words, verbatim and in the article's order: an omission is marked `…`, an
    /// editorial correction `[in brackets]`. nil when the article has no sentence of its own for
    /// this experiment (a Swift-concurrency counterpart, or an experiment of the project's own):
    /// then the summary alone says what it does, and no words are put in the article's mouth.
    public var quote: String?
    /// The figure the quote states for this experiment, in article seconds; nil when it states
    /// none (never a figure the article gives for another experiment).
    public var seconds: Double?
    /// Why no model of this machine can reach the figure, when it cannot (it holds the cost of
    /// work done on the article's own machine); shown beside both figures.
    public var unreachableBecause: String?
    /// The article file the quote is in, when it is not the experiment's source (the English
    /// original of a translation whose code the experiment follows).
    public var file: String?

    public init(quote: String?, seconds: Double?, unreachableBecause: String? = nil, file: String? = nil) {
        self.quote = quote
        self.seconds = seconds
        self.unreachableBecause = unreachableBecause
        self.file = file
    }

    /// No words and no figure of the article's: the experiment is the project's own.
    public static let none = ArticleClaim(quote: nil, seconds: nil)
}

/// A place where the article is wrong, inconsistent, or states a guess as a fact, said politely
/// with the evidence: "The article says “…”; here …".
public struct ArticleCorrection: Sendable, Equatable {
    /// The article's words, verbatim (the same rules as ``ArticleClaim/quote``).
    public var quote: String
    /// The article file the words are in, when it is not the experiment's own source.
    public var file: String?
    /// What this platform, Foundation's source or the run shows instead, with its evidence.
    public var here: String

    public init(quote: String, file: String? = nil, here: String) {
        self.quote = quote
        self.file = file
        self.here = here
    }

    /// The line every format shows.
    public var sentence: String {
        let speaker = file.map { "Article " + (Article.read(from: $0)?.number ?? $0) } ?? "The article"
        return "\(speaker) says “\(quote)”; here \(here)"
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
/// Written as the article's page (``init(_:article:section:filePath:line:code:)``): its code first,
/// what a reader needs after it as modifiers. The model's `Workload` is read from the real
/// objects that code builds, in a rehearsal, and the run is watched for anything the plan did
/// not foresee (see ``Lab``): every Operation-based experiment is written so, and so are the
/// Swift-concurrency counterparts whose tasks the lab plans (a `Task` and its task group). The
/// others follow their ``run`` (``init(_:source:filePath:line:run:)``) with the `Workload`
/// declared by hand (``plannedAs(_:)``).
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
    /// Where the article is wrong or states a guess as a fact, about this experiment.
    public var articleCorrections: [ArticleCorrection]
    /// The outcome the experiment expects (beyond its timing), in one sentence.
    public var expectedOutcome: String
    /// Why this platform gives another figure or outcome than the article's, in one plain
    /// sentence. Shown when the platforms differ: when the models' predictions differ in
    /// anything the output shows, or when ``differsBeyondTheModel``. Empty for an experiment
    /// that states none (a learner's): the runner then says what the two models' plans differ
    /// in, and why, from the plan itself.
    public var platformDifference: String
    /// Whether the platforms differ in something the run shows and the models do not predict
    /// (a default value, how a refused call ends the process), so that ``platformDifference`` is
    /// shown whatever the models say.
    public var differsBeyondTheModel: Bool
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
    /// Where the experiment is declared: the file the compiler read it from, and the line its
    /// `Experiment(` call begins on. The report reads its code from there.
    public var declaration: Declaration? = nil

    /// A file and line of the source the package was built from.
    public struct Declaration: Sendable, Equatable {
        /// The absolute path the compiler gave (`#filePath`).
        public var path: String
        public var line: Int
    }
}

// The initialisers live in an extension so that the compiler's memberwise initialiser, the one
// they all delegate to, stays: it is the single place every stored property is set. The two
// taking every property as an argument are the module's own: the public ones are the article's
// page, a short call with the code after it and the rest as modifiers.
extension Experiment {
    /// An experiment whose code the lab reads and runs, every property given.
    init(
        name: String,
        title: String,
        source: ArticleSource,
        summary: String,
        claim: ArticleClaim,
        articleCorrections: [ArticleCorrection] = [],
        expectedOutcome: String,
        platformDifference: String = "",
        differsBeyondTheModel: Bool = false,
        parameters: [ParameterSpec] = [],
        expectedEnding: ExpectedEnding = .returns,
        timing: ExperimentTiming = .predicted,
        code: @escaping @Sendable (RunContext) throws -> Void,
        checks: @escaping @Sendable (MeasuredRun, Prediction) -> [Check] = { _, _ in [] },
        filePath: String = #filePath,
        line: Int = #line
    ) {
        let isLearners = Self.isLearners(filePath)
        self.init(
            name: name, title: title, source: source, summary: summary, claim: claim,
            articleCorrections: articleCorrections,
            expectedOutcome: expectedOutcome, platformDifference: platformDifference,
            differsBeyondTheModel: differsBeyondTheModel, parameters: parameters,
            makeWorkload: { Lab.rehearse(code, parameters: $0, isLearners: isLearners) },
            run: { context, plan in try Lab.run(code, context: context, plan: plan, isLearners: isLearners) },
            expectedEnding: expectedEnding, timing: timing, checks: checks,
            declaration: Declaration(path: filePath, line: line)
        )
    }

    /// An experiment written as the article's page: its name, where in the articles it comes
    /// from, then its code, whole, as a trailing closure; what a reader needs after the code (the
    /// article's words, the expected outcome, the knobs, the checks) follows as modifiers:
    ///
    /// ```swift
    /// let serialQueue = Experiment("serial-queue", article: "000_d66eefb2b922d5e0.txt", section: "Experiment 1. …") { context in
    ///     let printerQueue = OperationQueue()
    ///     …
    /// }
    /// .title("maxConcurrentOperationCount = 1: one after another")
    /// .claim("We see that in this case, …", seconds: 16)
    /// ```
    ///
    /// Only the name is required: the title is made from it until ``title(_:)`` gives another,
    /// without an article its source is the learner's own (``ArticleSource/yourOwn``), and
    /// without a claim the experiment is the project's own (a learner's). `code` builds the
    /// article's queues and operations with the instrumented `OperationQueue`, `BlockOperation`,
    /// `print` and `sleep` of the Experiments module, reading its knobs from `context.parameters`;
    /// the plan the model predicts from is read from those objects (``Lab/rehearse(_:parameters:isLearners:)``),
    /// and the run returns the scheduling outcome plus whatever `code` records with `context.record`.
    public init(
        _ name: String,
        article file: String? = nil,
        section: String = "",
        filePath: String = #filePath,
        line: Int = #line,
        code: @escaping @Sendable (RunContext) throws -> Void
    ) {
        self.init(
            name: name, title: Self.title(fromName: name),
            source: file.map { ArticleSource(file: $0, section: section) } ?? .yourOwn,
            summary: "", claim: .none,
            expectedOutcome: "", code: code, filePath: filePath, line: line
        )
    }

    /// The same, for an experiment whose article and section several files share (`PrinterQueue.source`).
    public init(
        _ name: String, source: ArticleSource, filePath: String = #filePath, line: Int = #line,
        code: @escaping @Sendable (RunContext) throws -> Void
    ) {
        self.init(name, article: source.file, section: source.section, filePath: filePath, line: line, code: code)
    }

    /// A Swift-concurrency counterpart as the article's page: its name and source, then its run,
    /// whole, as the trailing closure; the plan that run follows, declared by hand (its work is
    /// what the ``Lab`` does not plan: a filter's CPU work in a child task, a benchmark's), comes
    /// after it with ``plannedAs(_:)``, then the modifiers any experiment takes.
    public init(
        _ name: String,
        source: ArticleSource,
        filePath: String = #filePath,
        line: Int = #line,
        run: @escaping @Sendable (RunContext, Workload) throws -> Outcome
    ) {
        self.init(
            name: name, title: Self.title(fromName: name), source: source, summary: "", claim: .none,
            expectedOutcome: "",
            platformDifference: "", workload: { Workload() }, run: run, filePath: filePath, line: line
        )
    }

    /// `my-queue` → `My queue`: an experiment's title until it states one.
    public static func title(fromName name: String) -> String {
        let words = name.replacingOccurrences(of: "-", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// An experiment without knobs whose workload is declared by hand beside a `run` that
    /// follows it: a Swift-concurrency counterpart or benchmark whose work the ``Lab`` does not plan.
    // The describing parameters are the initialiser's above, with the same labels; only how
    // the run is stated differs (a workload and a run declared by hand).
    init(
        name: String,
        title: String,
        source: ArticleSource,
        summary: String,
        claim: ArticleClaim,
        articleCorrections: [ArticleCorrection] = [],
        expectedOutcome: String,
        platformDifference: String,
        differsBeyondTheModel: Bool = false,
        workload: @escaping @Sendable () -> Workload,
        run: @escaping @Sendable (RunContext, Workload) throws -> Outcome,
        expectedEnding: ExpectedEnding = .returns,
        timing: ExperimentTiming = .predicted,
        checks: @escaping @Sendable (MeasuredRun, Prediction) -> [Check] = { _, _ in [] },
        filePath: String = #filePath,
        line: Int = #line
    ) {
        self.init(
            name: name, title: title, source: source, summary: summary, claim: claim,
            articleCorrections: articleCorrections, expectedOutcome: expectedOutcome,
            platformDifference: platformDifference, differsBeyondTheModel: differsBeyondTheModel, parameters: [],
            makeWorkload: { _ in workload() }, run: run,
            expectedEnding: expectedEnding, timing: timing, checks: checks,
            declaration: Declaration(path: filePath, line: line)
        )
    }

    /// The same experiment with `change` made to a copy: what each modifier below does.
    private func with(_ change: (inout Experiment) -> Void) -> Experiment {
        var experiment = self
        change(&experiment)
        return experiment
    }

    /// A short human title, instead of the one made from the name.
    public func title(_ title: String) -> Experiment {
        with { $0.title = title }
    }

    /// What the experiment does, for a learner; says what is simulated, if anything.
    public func summary(_ summary: String) -> Experiment {
        with { $0.summary = summary }
    }

    /// The article's words about it, and the figure they state (see ``ArticleClaim``).
    public func claim(_ quote: String?, seconds: Double?, unreachableBecause: String? = nil, file: String? = nil)
        -> Experiment
    {
        with {
            $0.claim = ArticleClaim(quote: quote, seconds: seconds, unreachableBecause: unreachableBecause, file: file)
        }
    }

    /// Where the article is wrong or states a guess as a fact, about this experiment.
    public func corrections(_ corrections: ArticleCorrection...) -> Experiment {
        with { $0.articleCorrections = corrections }
    }

    /// The outcome it expects (beyond its timing), in one sentence.
    public func expectedOutcome(_ outcome: String) -> Experiment {
        with { $0.expectedOutcome = outcome }
    }

    /// Why this platform gives another figure or outcome than the article's (see
    /// ``platformDifference``); `beyondTheModel` when the run shows it and the models do not.
    public func platformDifference(_ difference: String, beyondTheModel: Bool = false) -> Experiment {
        with {
            $0.platformDifference = difference
            $0.differsBeyondTheModel = beyondTheModel
        }
    }

    /// The knobs it offers, with the article's values as defaults: the values `--set` changes.
    public func parameters(_ parameters: [ParameterSpec]) -> Experiment {
        with { $0.parameters = parameters }
    }

    /// How its child is expected to end, when not by returning.
    public func ending(_ ending: ExpectedEnding) -> Experiment {
        with { $0.expectedEnding = ending }
    }

    /// Whether the model times it, when it does not.
    public func timing(_ timing: ExperimentTiming) -> Experiment {
        with { $0.timing = timing }
    }

    /// The plan a run written by hand follows (a Swift-concurrency counterpart's), in article seconds.
    public func plannedAs(_ workload: @escaping @Sendable () -> Workload) -> Experiment {
        with { $0.makeWorkload = { _ in workload() } }
    }

    /// Outcome checks specific to it, beyond the timing checks every experiment gets.
    public func checks(_ checks: @escaping @Sendable (MeasuredRun, Prediction) -> [Check]) -> Experiment {
        with { $0.checks = checks }
    }

    /// The same experiment, naming its outcomes in its own terms when they race.
    public func namingOutcomes(_ naming: OutcomeNaming) -> Experiment {
        with { $0.outcomeNaming = naming }
    }

    /// Whether it is a learner's own, made with `new` in `Experiments/Playground/`: its output
    /// names the line of code each printed line came from.
    public var isLearners: Bool {
        declaration.map { Self.isLearners($0.path) } ?? false
    }

    /// Whether the file at `path` is a learner's own experiment's.
    static func isLearners(_ path: String) -> Bool {
        SourceLine.experimentsPath(of: path)?.hasPrefix(playgroundFolder + "/") ?? false
    }

    /// The folder of the learner's own experiments, under `Experiments/`.
    public static let playgroundFolder = "Playground"

    /// The article's values.
    public var defaultParameters: Parameters {
        Parameters(parameters)
    }

    /// The workload for these values (the article's when none are given).
    public func workload(_ values: Parameters? = nil) -> Workload {
        makeWorkload(values ?? defaultParameters)
    }
}
