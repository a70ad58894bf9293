import ExperimentKit
import ExperimentModel
import ExperimentResults

/// A format that shows an experiment's section: text, Markdown, HTML and JSON each render the
/// same ``ExperimentSection``, so they cannot disagree on what they share.
package protocol Reporter {
    /// What the format makes of one section: text for the pages, a value for JSON.
    associatedtype Rendered
    func section(_ section: ExperimentSection) -> Rendered
}

/// A run as the report documents show it: the values of the host line, and each result with
/// its section, computed once for every document written from it.
package struct RunReport: Sendable {
    package var results: [ExperimentResult]
    /// Each result's section, in the same order.
    package var sections: [ExperimentSection]
    package var conditions: RunConditions
    /// The signal that interrupted the run, if one did (`results` then holds those that finished).
    package var signal: Int32?

    package init(_ results: [ExperimentResult], conditions: RunConditions, interruptedBy signal: Int32? = nil) {
        self.results = results
        sections = results.enumerated().map { ExperimentSection($1, position: $0 + 1, count: results.count) }
        self.conditions = conditions
        self.signal = signal
    }

    /// `host: 2 CPUs · Linux … · time scale 1 · profile linux …`.
    var hostLine: String {
        ResultSummary.hostLine(conditions)
    }
}

/// Everything one experiment's section shows, computed once from its result: the head rows
/// (source, summary, the article's claim, corrections, expected outcome, settings), what it
/// printed, the timelines, the comparison with both models, the notes, the outcome, the checks
/// and the verdict. Reporters only lay these values out.
package struct ExperimentSection: Sendable {
    package var name: String
    package var title: String
    /// The experiment's place in the run (`position` of `count`), which the text view numbers.
    package var position: Int
    package var count: Int
    package var source: ArticleSource
    /// What the experiment does.
    package var summary: String
    /// The article beside the measurement.
    package var article: ArticleFigure
    package var corrections: [ArticleCorrection]
    package var expectedOutcome: String
    /// The parameter values the run used; nil for an experiment without parameters.
    package var settings: Settings?
    /// What the experiment printed, as it printed it.
    package var printed: [PrintedLine]
    /// The sleeps it made, as long as each lasted.
    package var sleeps: [MeasuredSleep]
    /// Its code, each line with what it did in the run.
    package var code: CodeListing
    /// Whether it is a learner's own experiment (`Experiment.isLearners`).
    package var isLearners: Bool
    /// The platform the run's model is of, and when that model expects the run to end.
    package var profile: PlatformProfile.Kind
    package var expectedSeconds: Double
    /// What ran (nil when nothing did), and both models' nominal timelines; JSON writes all three.
    package var measured: Timeline?
    package var model: Timeline
    package var apple: Timeline
    /// The timelines drawn, in order, on one axis of `chartSpan` seconds so their bars line up:
    /// the measured one (or the model's when nothing ran); off the article's values, the model's
    /// beside the run; and for a timed experiment on another platform, the Apple model's.
    package var timelines: [Timeline]
    package var chartSpan: Double
    /// Article, both models and the measurement side by side.
    package var comparison: TextTable
    package var notes: [Note]
    /// The experiment's own results, the images it wrote among them.
    package var outcome: [Outcome.Field]
    /// The PNG files the experiment wrote (its outcome's `images`).
    package var images: [String]
    package var checks: [Check]
    package var verdict: Verdict
    /// Why the verdict is not a pass; nil for a pass.
    package var reason: String?

    /// The section of `result`, the `position`-th of `count` in its run.
    package init(_ result: ExperimentResult, position: Int = 1, count: Int = 1) {
        let experiment = result.experiment
        name = experiment.name
        title = experiment.title
        self.position = position
        self.count = count
        source = experiment.source
        summary = experiment.summary
        article = ArticleFigure(experiment.claim, source: experiment.source, seconds: result.articleSeconds)
        corrections = experiment.articleCorrections
        expectedOutcome = experiment.expectedOutcome
        let values = result.prediction.parameters
        settings =
            values.values.isEmpty
            ? nil : Settings(values: values.values, origins: values.origins, line: ArticleText.settingsLine(values))
        code = CodeListing(experiment, result: result)
        printed = result.measurement?.output ?? []
        sleeps = result.measurement?.sleeps ?? []
        if code.stale != nil {
            // The lines they were made from have moved in the file shown: none is named.
            printed = printed.map {
                var line = $0; line.calledFrom = nil; return line
            }
            sleeps = sleeps.map {
                var sleep = $0; sleep.calledFrom = nil; return sleep
            }
        }
        isLearners = experiment.isLearners

        profile = result.prediction.profile.kind
        expectedSeconds = result.prediction.total
        measured = result.measurement.map {
            Timeline(
                title: "measured", rows: GanttChart.rows($0.locatingOperations(in: result.prediction.workload)),
                until: .infinity, predicted: false)
        }
        model = Timeline(result.prediction, title: "predicted by the \(result.prediction.profile.kind.rawValue) model")
        apple = Timeline(result.applePrediction, title: "predicted by the apple model, the article's platform")
        // A result judged unmodelled has no plan to be held to: a run is shown as measured,
        // whole, beside no prediction; a prediction made without a run (another platform's
        // profile) is not shown at all, as it leaves out what the code does.
        let planless = result.verdict == .unmodelled
        timelines = measured.map { [$0] } ?? (planless ? [] : [model])
        if measured != nil, !values.isArticleSetting, !planless {
            // Off the article's values, the prediction is the only reference: show it beside the run.
            timelines.append(model)
        }
        if result.showsApplePicture, !planless {
            timelines.append(apple)
        }
        chartSpan = result.chartSpan
        comparison = planless ? Self.measuredOnly(result) : Self.comparison(result)

        notes = Self.notes(result, code: code, planless: planless)
        outcome = result.measurement?.outcome.fields ?? []
        images = result.measurement?.outcome[.images] ?? []
        checks = result.checks
        verdict = result.verdict
        reason = result.verdict == .pass ? nil : result.reason
    }

    /// What the section notes under its figures: the CPU work the child timed, how this
    /// platform differs (for an experiment that states no difference of its own, what the two
    /// models see for its plan), why it is untimed, why the article's figure cannot be reached,
    /// and that the code shown was edited since the run; the platform's only for a result with a plan.
    static func notes(_ result: ExperimentResult, code: CodeListing, planless: Bool) -> [Note] {
        let experiment = result.experiment
        var notes: [Note] = []
        if let costs = result.measurement?.cpuCosts, !costs.isEmpty {
            notes.append(Note(.cpuWork, Self.cpuWork(costs)))
        }
        // An experiment that states no difference of its own (a learner's) is told what the
        // models see for its plan, a difference or none.
        if result.differsFromArticlePlatform || experiment.platformDifference.isEmpty, !planless {
            notes.append(Note(.platformDifference, result.platformDifference))
        }
        if case .untimed(let reason) = experiment.timing {
            notes.append(Note(.untimed, "untimed: \(reason); the verdict rests on its own checks"))
        }
        if let reason = experiment.claim.unreachableBecause {
            notes.append(Note(.unreachableFigure, reason))
        }
        if let stale = code.stale {
            notes.append(Note(.editedSource, stale))
        }
        return notes
    }

    /// The values a run used, and where each comes from.
    package struct Settings: Sendable {
        package var values: [Parameters.Entry]
        /// Where each value comes from, in the same order.
        package var origins: [Parameters.ValueOrigin]
        /// `width=3 (set here), qos=userInitiated (the article's); not the article's setting, so
        /// its figure is not shown` (`ArticleText.settingsLine(_:)`).
        package var line: String
    }

    /// One timeline: a row per operation on its thread (measured) or worker (predicted).
    package struct Timeline: Sendable {
        /// `measured`, `predicted by the linux model`, …
        package var title: String
        /// Each operation's bar; a predicted one that never ends has an infinite end.
        package var rows: [GanttChart.Row]
        /// Where a drawing that needs an end stops work that never ends: the model's total.
        package var until: Double
        package var predicted: Bool

        init(title: String, rows: [GanttChart.Row], until: Double, predicted: Bool) {
            self.title = title
            self.rows = rows
            self.until = until
            self.predicted = predicted
        }

        /// A model's nominal timeline, its threads the model's workers.
        init(_ prediction: Prediction, title: String) {
            self.init(title: title, rows: GanttChart.rows(prediction), until: prediction.total, predicted: true)
        }

        /// The rows with work that never ends cut at `until`.
        var drawnRows: [GanttChart.Row] {
            rows.map { row in
                var row = row
                row.end = min(row.end, until)
                return row
            }
        }
    }

    /// A line under the comparison that says how to read it.
    package struct Note: Sendable, Equatable {
        /// What the note explains.
        package enum Kind: Sendable, Equatable {
            /// What the CPU work cost in the child, which the model's figures count.
            case cpuWork
            /// Why this platform's timing differs from the article's.
            case platformDifference
            /// Why the experiment is not timed.
            case untimed
            /// Why no model of this machine can reach the article's figure.
            case unreachableFigure
            /// Why the code's lines show no results: its file was edited after the build.
            case editedSource
        }

        package var kind: Kind
        package var text: String

        init(_ kind: Kind, _ text: String) {
            self.kind = kind
            self.text = text
        }

        /// The short label of the text view's column: `Why`.
        package var label: String {
            switch kind {
            case .cpuWork: return "CPU work"
            case .platformDifference: return "Why"
            case .untimed: return "Timing"
            case .unreachableFigure: return "Figure"
            case .editedSource: return "Code"
            }
        }

        /// The lead-in of a report's paragraph: `Why this platform differs`.
        package var heading: String {
            switch kind {
            case .cpuWork: return "CPU work"
            case .platformDifference: return "Why this platform differs"
            case .untimed: return "Timing"
            case .unreachableFigure: return "The article's figure"
            case .editedSource: return "Code"
            }
        }
    }

    /// Article, both models and the measurement, side by side. A demonstration's models say
    /// what finishes before its hang or trap (no bounds: its total is not held to them), and a
    /// race gets an outcome row: what each model allows, and what happened.
    static func comparison(_ result: ExperimentResult) -> TextTable {
        let apple = result.applePrediction, here = result.prediction
        let kind = result.kind
        func modelTotal(_ prediction: Prediction, bounds: Bool) -> String {
            if kind == .hang || kind == .trap { return ResultSummary.demonstrationTotal(kind, prediction) }
            return bounds
                ? "\(Format.seconds(prediction.total)), bounds \(Format.range(result.expectedBounds))"
                : Format.seconds(prediction.total)
        }
        let hereTitle =
            here.profile.kind == .apple
            ? "model apple" : "model \(here.profile.kind.rawValue) (\(Format.count(here.profile.cpus, "CPU")))"
        var header = ["", "article", "model apple", hereTitle]
        var total = [
            "total", result.articleSeconds.map { Format.seconds($0) } ?? "—", modelTotal(apple, bounds: false),
            modelTotal(here, bounds: true),
        ]
        var overlap = [
            "ran at once", "—", overlapText(apple.maximumOverlapRange), overlapText(here.maximumOverlapRange),
        ]
        var outcome: [String]?
        if case .race = kind {
            let naming = result.experiment.outcomeNaming
            outcome =
                ["outcome", "—"]
                + [apple, here].map { RaceOutcome.outcomes(in: $0, naming: naming).joined(separator: " or ") }
        }
        if here.profile.kind == .apple {
            header.remove(at: 3); total.remove(at: 3); overlap.remove(at: 3); outcome?.remove(at: 3)
            total[2] = modelTotal(apple, bounds: true)
        }
        var rows = [total, overlap] + (outcome.map { [$0] } ?? [])
        if let measurement = result.measurement {
            header.append("measured")
            rows[0].append(ResultSummary.measuredTotal(result))
            rows[1].append("\(measurement.maximumOverlap(of: result.prediction.workload))")
            if case .race(let race) = kind {
                rows[2].append(race.happened ?? "see Outcome")
            }
            if let enqueue = measurement.enqueueSeconds {
                rows.append(
                    ["enqueue"] + Array(repeating: "", count: header.count - 2) + [Format.shortDuration(enqueue)])
            }
        }
        if let earlier = result.earlier, let measured = result.measurement?.totalSeconds {
            // `--compare`: the earlier run's total beside this one's, with the change.
            header.append("earlier run")
            rows[0].append(
                "\(Format.seconds(earlier.seconds)) (\(earlier.comparable ? Format.signedSeconds(measured - earlier.seconds) : "not comparable"))"
            )
            for index in rows.indices.dropFirst() { rows[index].append("") }
        }
        return TextTable(header: header, rows: rows)
    }

    /// What a run without a plan to be held to measured: its total, how many ran at once, how
    /// long adding took.
    static func measuredOnly(_ result: ExperimentResult) -> TextTable {
        guard let measurement = result.measurement else {
            return TextTable(
                header: ["", "article", "model \(result.prediction.profile.kind.rawValue)"],
                rows: [
                    [
                        "total", result.articleSeconds.map { Format.seconds($0) } ?? "—",
                        "none: the plan leaves out what the code does",
                    ]
                ])
        }
        var rows = [
            ["total", ResultSummary.measuredTotal(result)],
            ["ran at once", "\(measurement.maximumOverlap(of: result.prediction.workload))"],
        ]
        if let enqueue = measurement.enqueueSeconds {
            rows.append(["enqueue", Format.shortDuration(enqueue)])
        }
        return TextTable(header: ["", "measured"], rows: rows)
    }

    /// How every page marks a check: `✓` held, `✗` did not, `·` a note.
    static func mark(_ check: Check) -> String {
        check.mark
    }

    static func overlapText(_ range: ClosedRange<Int>) -> String {
        range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)–\(range.upperBound)"
    }

    /// What the CPU work cost in the child, as the model counted it: timed in the run, or
    /// calibrated in the child for work that did not run.
    static func cpuWork(_ costs: [CPUCost]) -> String {
        let parts: [(CPUCost.Source, String)] = [
            (.measured, "timed where it ran"), (.calibrated, "calibrated in the child (did not run)"),
        ]
        return parts.compactMap { source, heading in
            let figures = costs.filter { $0.source == source }.map { "\($0.label) \(Format.shortDuration($0.seconds))" }
            return figures.isEmpty ? nil : "\(heading): " + figures.joined(separator: ", ")
        }.joined(separator: "; ") + "; the model's figures count these"
    }
}

/// The article beside the measurement: its words, where they are, and its figure when it
/// applies to the run. Text, Markdown, HTML and JSON all take the figure from here.
package struct ArticleFigure: Sendable, Equatable {
    /// The article's words, verbatim; nil when it has none for the experiment.
    package var words: String?
    /// The article file the words are in; nil without words.
    package var file: String?
    /// The figure the article states for the experiment, in real seconds at the run's scale;
    /// nil when it states none, or the run is off the article's setting.
    package var seconds: Double?
    /// Why no model of this machine can reach the figure, when it cannot.
    package var unreachableBecause: String?
    /// The words as every page quotes them, with the figure in article seconds only where
    /// `seconds` shows it: `“…” (2 s)`; "—" without words.
    package var quote: String

    /// The article's claim for a run whose figure is `seconds` (see `ArticleText.seconds(_:parameters:timeScale:)`).
    package init(_ claim: ArticleClaim, source: ArticleSource, seconds: Double?) {
        words = claim.quote
        file = claim.quote == nil ? nil : claim.file ?? source.file
        self.seconds = seconds
        unreachableBecause = claim.unreachableBecause
        quote = ArticleText.quote(claim, showsFigure: seconds != nil)
    }
}
