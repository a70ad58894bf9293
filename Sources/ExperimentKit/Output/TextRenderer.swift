import Foundation

/// The terminal view: a section per experiment, then the summary table.
public struct TextRenderer: Sendable {
    /// Whether to colour verdicts with ANSI escapes.
    public var colour: Bool

    public init(colour: Bool) {
        self.colour = colour
    }

    /// One experiment: claim, printed lines, timeline, comparison, checks, verdict.
    public func section(_ result: ExperimentResult, position: Int, count: Int) -> String {
        let experiment = result.experiment
        let title = "── \(position)/\(count) \(experiment.name) · \(experiment.title) "
        var lines = [title + String(repeating: "─", count: max(3, GanttChart.width - TextWidth.columns(title)))]
        lines.append("  Source   article \(experiment.source.file), \(experiment.source.section)")
        lines.append(contentsOf: wrap(experiment.summary, first: "  What     ", rest: "           "))
        lines.append(contentsOf: wrap(ArticleText.quote(experiment.claim), first: "  Article  ", rest: "           "))
        for correction in experiment.articleCorrections {
            lines.append(contentsOf: wrap(correction.sentence, first: "  Errata   ", rest: "           "))
        }
        lines.append(contentsOf: wrap(experiment.expectedOutcome, first: "  Expects  ", rest: "           "))
        let values = result.prediction.parameters
        if !values.values.isEmpty {
            let settings = values.values.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
            lines.append(contentsOf: wrap("\(settings) (\(ArticleText.settingsNote(values)))", first: "  Settings ", rest: "           "))
        }

        if let measurement = result.measurement, !measurement.output.isEmpty {
            lines.append("")
            lines.append("  Printed")
            for line in measurement.output {
                let thread = line.thread == 0 ? "main" : "t\(line.thread)"
                lines.append("    " + TextWidth.pad(Format.seconds(line.at, digits: 3), to: 9, right: true) + "  " + TextWidth.pad(thread, to: 4) + " " + line.text)
            }
        }
        lines.append("")
        lines.append(timelines(result, indent: "  "))
        lines.append("")
        lines.append(comparison(result).render(indent: "  "))
        if let costs = result.measurement?.cpuCosts, !costs.isEmpty {
            lines.append(contentsOf: wrap(cpuWork(costs), first: "  CPU work ", rest: "           "))
        }
        if result.differsFromArticlePlatform {
            lines.append(contentsOf: wrap(experiment.platformDifference, first: "  Why      ", rest: "           "))
        }
        if case .untimed(let reason) = experiment.timing {
            lines.append(contentsOf: wrap("untimed: \(reason); the verdict rests on its own checks", first: "  Timing   ", rest: "           "))
        }
        if let reason = experiment.claim.unreachableBecause {
            lines.append(contentsOf: wrap(reason, first: "  Figure   ", rest: "           "))
        }
        if let outcome = result.measurement?.outcome, !outcome.fields.isEmpty {
            lines.append("  Outcome")
            for field in outcome.fields {
                lines.append(contentsOf: wrap(OutcomeText.describe(field.value), first: "    \(field.key): ", rest: "      "))
            }
        }
        if !result.checks.isEmpty {
            lines.append("  Checks")
            for check in result.checks {
                lines.append(contentsOf: wrap(check.description, first: check.passed ? "    ✓ " : "    ✗ ", rest: "      "))
            }
        }
        var verdict = "  Verdict  " + paint(result.verdict)
        if let reason = result.reason, result.verdict != .pass { verdict += " — " + reason }
        lines.append(verdict)
        return lines.joined(separator: "\n") + "\n"
    }

    /// Every timeline of a section, on one time axis with the same label column, so their bars
    /// line up: the measured one (or the prediction when nothing ran); off the article's values,
    /// the prediction beside the run; and, for a timed experiment on another platform than
    /// Apple's, the Apple model's, as the article saw it.
    public func timelines(_ result: ExperimentResult, indent: String) -> String {
        let ownModel = predicted(result.prediction, "predicted by the \(result.prediction.profile.kind.rawValue) model")
        var charts = [result.measurement.map { (title: "measured", rows: GanttChart.rows($0)) } ?? ownModel]
        if result.measurement != nil, !result.prediction.parameters.isArticleSetting {
            // Off the article's values, the prediction is the only reference: show it beside the run.
            charts.append(ownModel)
        }
        if result.showsApplePicture {
            charts.append(predicted(result.applePrediction, "predicted by the apple model, the article's platform"))
        }
        let labelWidth = GanttChart.labelWidth(charts.flatMap(\.rows))
        return charts.map { chart in
            indent + "Timeline, \(chart.title)\n" + GanttChart.render(chart.rows, span: result.chartSpan, indent: indent + "  ", labelWidth: labelWidth)
        }.joined(separator: "\n\n")
    }

    /// A model's nominal timeline as a chart, its threads the model's workers.
    private func predicted(_ prediction: Prediction, _ title: String) -> (title: String, rows: [GanttChart.Row]) {
        ("\(title) (t = pool worker)", GanttChart.rows(prediction, until: prediction.total))
    }

    /// Article, both models and the measurement, side by side. A demonstration's models say
    /// what finishes before its hang or trap (no bounds: its total is not held to them), and a
    /// race gets an outcome row: what each model allows, and what happened.
    func comparison(_ result: ExperimentResult) -> TextTable {
        let apple = result.applePrediction, here = result.prediction
        let kind = result.kind
        func modelTotal(_ prediction: Prediction, bounds: Bool) -> String {
            if kind == .hang || kind == .trap { return ResultSummary.demonstrationTotal(kind, prediction) }
            return bounds ? "\(Format.seconds(prediction.total)), bounds \(Format.range(result.expectedBounds))" : Format.seconds(prediction.total)
        }
        let hereTitle = here.profile.kind == .apple ? "model apple" : "model \(here.profile.kind.rawValue) (\(here.profile.cpus) CPUs)"
        var header = ["", "article", "model apple", hereTitle]
        var total = ["total", result.articleSeconds.map { Format.seconds($0) } ?? "—", modelTotal(apple, bounds: false), modelTotal(here, bounds: true)]
        var overlap = ["ran at once", "—", overlapText(apple.maximumOverlapRange), overlapText(here.maximumOverlapRange)]
        var outcome: [String]?
        if case .race = kind {
            let naming = result.experiment.outcomeNaming
            outcome = ["outcome", "—"] + [apple, here].map { RaceOutcome.outcomes(in: $0, naming: naming).joined(separator: " or ") }
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
                rows.append(["enqueue"] + Array(repeating: "", count: header.count - 2) + [Format.shortDuration(enqueue)])
            }
        }
        return TextTable(header: header, rows: rows)
    }

    /// What the CPU work cost in the child, as the model counted it: timed in the run, or
    /// calibrated in the child for work that did not run.
    func cpuWork(_ costs: [CPUCost]) -> String {
        let parts: [(CPUCost.Source, String)] = [(.measured, "timed where it ran"), (.calibrated, "calibrated in the child (did not run)")]
        return parts.compactMap { source, heading in
            let figures = costs.filter { $0.source == source }.map { "\($0.label) \(Format.shortDuration($0.seconds))" }
            return figures.isEmpty ? nil : "\(heading): " + figures.joined(separator: ", ")
        }.joined(separator: "; ") + "; the model's figures count these"
    }

    func overlapText(_ range: ClosedRange<Int>) -> String {
        range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)–\(range.upperBound)"
    }

    /// The summary table, then the explanations where this platform differs.
    public func summary(_ results: [ExperimentResult], host: Host, timeScale: Double, profile: PlatformProfile.Kind) -> String {
        var lines = ["", "Summary — " + ResultSummary.hostLine(host, timeScale: timeScale, profile: profile)]
        let table = TextTable(header: ResultSummary.header, rows: results.map(ResultSummary.row), rightAligned: [1, 3, 4])
        var rendered = table.render(indent: "  ").split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        for (offset, result) in results.enumerated() where colour {
            rendered[offset + 2] = rendered[offset + 2].replacingLastOccurrence(of: result.verdict.rawValue, with: paint(result.verdict))
        }
        lines.append(contentsOf: rendered)
        if let overhead = ResultSummary.overheadLine(results) {
            lines.append("  " + overhead)
        }
        if let repeats = results.first(where: { !$0.repeats.isEmpty })?.repeats.count {
            lines.append("  measured: min / median / max of \(repeats) runs, each in its own child; Δ and the sections are from the first run that failed, or the last")
        }
        let explanations = ResultSummary.explanations(results)
        if !explanations.isEmpty {
            lines.append("")
            lines.append("  Where this platform differs from the article's:")
            for explanation in explanations {
                lines.append(contentsOf: wrap(explanation, first: "  • ", rest: "    "))
            }
        }
        let images = results.flatMap { $0.measurement?.outcome["images"]?.stringArray ?? [] }
        if let first = images.first {
            lines.append("")
            lines.append("  \(images.count) PNG image\(images.count == 1 ? "" : "s") (before | after) written to \(URL(fileURLWithPath: first).deletingLastPathComponent().path)")
        }
        let passed = results.filter { $0.verdict == .pass }.count
        let predicted = results.filter { $0.verdict == .predicted }.count
        lines.append("")
        lines.append(!results.isEmpty && predicted == results.count
            ? "  \(predicted) predicted, nothing run (profile \(profile.rawValue) is not this machine's)."
            : "  \(passed) of \(results.count) passed.")
        return lines.joined(separator: "\n") + "\n"
    }

    /// `describe NAME`: the experiment's parameters, defaults and accepted values.
    public func parameters(of experiment: Experiment) -> String {
        var text = "\(experiment.name) · \(experiment.title)\n\n"
        guard !experiment.parameters.isEmpty else {
            return text + "No parameters: this experiment runs as the article has it.\n"
        }
        let rows = experiment.parameters.map { [$0.key, $0.defaultValue, $0.accepted, $0.summary] }
        text += TextTable(header: ["key", "default", "accepted", "what it sets"], rows: rows).render() + "\n"
        return text + "\nChange one with --set KEY=VALUE, e.g. run-experiments \(experiment.name) --set \(experiment.parameters[0].key)=\(experiment.parameters[0].defaultValue)\n"
    }

    /// `list`: every experiment with its article figure and the prediction at the chosen scale.
    public func list(_ predictions: [(Experiment, Prediction)], timeScale: Double) -> String {
        let rows = predictions.map { experiment, prediction in
            [
                experiment.name,
                experiment.title,
                ArticleText.seconds(experiment.claim, parameters: prediction.parameters, timeScale: timeScale).map { Format.seconds($0) } ?? "—",
                "\(Format.seconds(prediction.total)) (\(Format.range(prediction.totalRange)))\(prediction.leavesOutCPUWork ? " + CPU work" : "")",
            ]
        }
        let profile = predictions.first?.1.profile
        let header = ["name", "title", "article", "predicted (\(profile.map { "\($0.kind.rawValue), \($0.cpus) CPUs" } ?? ""))"]
        let cpuWork = predictions.contains { $0.1.leavesOutCPUWork } ? "\n+ CPU work: real computing (image filters, a benchmark), measured when the experiment runs and added to its prediction then; not included in the figure shown." : ""
        return TextTable(header: header, rows: rows, rightAligned: [2]).render() + "\n\nTimes in real seconds at time scale \(Format.number(timeScale)).\(cpuWork)\n"
    }

    func paint(_ verdict: Verdict) -> String {
        let text = verdict.rawValue.uppercased()
        guard colour else { return text }
        let code: String
        switch verdict {
        case .pass: code = "32"
        case .fail, .error: code = "31"
        case .predicted: code = "36"
        }
        return "\u{1B}[\(code);1m\(text)\u{1B}[0m"
    }

    /// Words wrapped to the chart's width, the first line after `first`, the others after `rest`.
    /// The line's width is kept as words are added (measuring the whole line again for each
    /// word made wrapping quadratic: half the runner's own CPU time in a run of short experiments).
    func wrap(_ text: String, first: String, rest: String) -> [String] {
        var lines: [String] = []
        var current = first, width = TextWidth.columns(first)
        for word in text.split(separator: " ") {
            let joint = current.hasSuffix(" ") ? "" : " ", added = TextWidth.columns(joint + word)
            if width + added > GanttChart.width + 8, current != first, current != rest {
                lines.append(current)
                current = rest + word
                width = TextWidth.columns(current)
            } else {
                current += joint + word
                width += added
            }
        }
        lines.append(current)
        return lines
    }
}

/// Outcome values as a person reads them: `[3, 7]`, `Каждый 🍎, Охотник 🍊`.
public enum OutcomeText {
    public static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "—"
        case .bool(let flag): return flag ? "yes" : "no"
        case .number(let number): return Format.number(number)
        case .string(let text): return text
        case .array(let items):
            if items.allSatisfy({ if case .number = $0 { return true } else { return false } }) {
                return "[" + items.map(describe).joined(separator: ", ") + "]"
            }
            return items.map(describe).joined(separator: ", ")
        case .object(let fields):
            return fields.map { "\($0.key) \(describe($0.value))" }.joined(separator: "; ")
        }
    }
}

extension String {
    func replacingLastOccurrence(of target: String, with replacement: String) -> String {
        guard let range = range(of: target, options: .backwards) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
