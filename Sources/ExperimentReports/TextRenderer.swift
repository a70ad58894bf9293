import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation

/// The terminal view: a section per experiment, then the summary table.
package struct TextRenderer: Reporter, Sendable {
    /// Whether to colour verdicts with ANSI escapes.
    package var colour: Bool
    /// Whether each printed line names the line of code that printed it (`--lines`); a
    /// learner's own experiment's always do.
    package var showsLines: Bool

    package init(colour: Bool, showsLines: Bool = false) {
        self.colour = colour
        self.showsLines = showsLines
    }

    /// Whether verdicts are coloured: only on a terminal, and not when `NO_COLOR` is set to
    /// anything but the empty text (no-color.org) or the terminal says it cannot (`TERM=dumb`).
    package static func colours(environment: [String: String], onTerminal: Bool) -> Bool {
        onTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    /// One experiment: claim, printed lines, timeline, comparison, checks, verdict.
    package func section(_ result: ExperimentResult, position: Int, count: Int) -> String {
        section(ExperimentSection(result, position: position, count: count))
    }

    /// The section laid out for a terminal: labelled rows, the timelines and the comparison.
    package func section(_ section: ExperimentSection) -> String {
        let title = "── \(section.position)/\(section.count) \(section.name) · \(section.title) "
        var lines = [title + String(repeating: "─", count: max(3, GanttChart.width - TextWidth.columns(title)))]
        lines.append(contentsOf: row("Source", section.source.citation))
        lines.append(contentsOf: row("What", section.summary))
        lines.append(contentsOf: row("Article", section.article.quote))
        for correction in section.corrections {
            lines.append(contentsOf: row("Errata", correction.sentence))
        }
        lines.append(contentsOf: row("Expects", section.expectedOutcome))
        if let settings = section.settings {
            lines.append(contentsOf: row("Settings", settings.line))
        }
        if !section.printed.isEmpty {
            lines.append("")
            lines.append("  Printed")
            let named = showsLines || section.isLearners
            lines.append(contentsOf: section.printed.map { "    " + Self.printed($0, namingItsLine: named) })
        }
        if !section.timelines.isEmpty {
            lines.append("")
            lines.append(timelines(section, indent: "  "))
        }
        lines.append("")
        lines.append(section.comparison.render(indent: "  "))
        for note in section.notes {
            lines.append(contentsOf: row(note.label, note.text))
        }
        if !section.outcome.isEmpty {
            lines.append("  Outcome")
            for field in section.outcome {
                lines.append(
                    contentsOf: wrap(OutcomeText.describe(field.value), first: "    \(field.key): ", rest: "      "))
            }
        }
        if !section.checks.isEmpty {
            lines.append("  Checks")
            for check in section.checks {
                lines.append(
                    contentsOf: wrap(check.description, first: "    \(ExperimentSection.mark(check)) ", rest: "      "))
            }
        }
        let verdict = "  Verdict  " + section.verdict.rawValue.uppercased()
        lines.append(verdict + (section.reason.map { " — " + $0 } ?? ""))
        var shown = Self.shown(lines)
        if colour, let last = shown.last {
            shown[shown.count - 1] = "  Verdict  " + paint(section.verdict) + last.dropFirst(verdict.count)
        }
        return shown.joined(separator: "\n") + "\n"
    }

    /// `lines` (each may hold several) as the terminal shows them, line by line: every text
    /// a section holds went through here, so none of the experiment's, the learner's or a
    /// child's characters acts on the terminal, and no line runs on past a bound
    /// (``Format/shown(_:limit:)``). The renderer's own colours are added after.
    static func shown(_ lines: [String]) -> [String] {
        lines.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: false) }.map {
            Format.shown(String($0), limit: lineLimit)
        }
    }

    /// The most characters of one line: a text shown whole (a printed line, a line of code,
    /// each shown where it joins its row, its newlines written out) and the row's own words.
    static let lineLimit = Format.shownLimit + 200

    /// `text`, line by line, as the terminal shows it (``shown(_:)``).
    static func shown(_ text: String) -> String {
        shown([text]).joined(separator: "\n")
    }

    /// A labelled row of the section, its text wrapped under itself: `  What     …`.
    /// No row for an empty text: a learner's experiment states no summary or outcome until it wants to.
    func row(_ label: String, _ text: String) -> [String] {
        guard !text.isEmpty else { return [] }
        return wrap(text, first: "  " + TextWidth.pad(label, to: 9), rest: "           ")
    }

    /// A printed line with when and where it was printed: `    0.001 s  t1   Каждый 🍎`.
    /// With `namingItsLine`, the line of code that printed it follows: `  Probe.swift:21`.
    static func printed(_ line: PrintedLine, namingItsLine: Bool = false) -> String {
        let printed =
            TextWidth.pad(Format.seconds(line.at, digits: 3), to: 9, right: true) + "  "
            + TextWidth.pad(Format.thread(line.thread), to: 4) + " " + Format.shown(line.text)
        return namingItsLine ? printed + (line.line.map { "  \($0.named)" } ?? "") : printed
    }

    /// A block of code with its line numbers and, under each line that did something, what it
    /// did: the form the Markdown report and `describe` show.
    ///
    ///     30 │ addOperation { print("Каждый 🍎"); sleep(2) }
    ///        ┆   ▸ Каждый 🍎: starts 0.007 s on t1, predicted 0.000 s
    static func listing(_ block: CodeListing.Block) -> [String] {
        let width = String(block.lines.last?.number ?? 0).count
        let resultGutter = String(repeating: " ", count: width) + " ┆   "
        return block.lines.flatMap { line -> [String] in
            let code: String =
                TextWidth.pad(String(line.number), to: width, right: true) + " │ " + Format.shown(line.text)
            return [code] + line.results.map { resultGutter + Format.shown($0) }
        }
    }

    /// `describe`'s code: each block under its title and place.
    static func code(_ listing: CodeListing) -> String {
        if let missing = listing.missing { return missing + "\n" }
        return listing.blocks.map { block in
            (["\(block.title) — \(block.place)", ""] + Self.listing(block).map { "  " + $0 }).joined(separator: "\n")
        }.joined(separator: "\n\n") + "\n"
    }

    /// Every timeline of a result's section (see ``ExperimentSection/timelines``).
    package func timelines(_ result: ExperimentResult, indent: String) -> String {
        timelines(ExperimentSection(result), indent: indent)
    }

    /// Every timeline of a section, on one time axis with the same label column, so their bars
    /// line up; a model's threads are its pool workers.
    func timelines(_ section: ExperimentSection, indent: String) -> String {
        let labelWidth = GanttChart.labelWidth(section.timelines.flatMap(\.rows))
        return section.timelines.map { timeline in
            let title = timeline.title + (timeline.predicted ? " (t = pool worker)" : "")
            return indent + "Timeline, \(title)\n"
                + GanttChart.render(
                    timeline.drawnRows, span: section.chartSpan, indent: indent + "  ", labelWidth: labelWidth)
        }.joined(separator: "\n\n")
    }

    /// The summary table, then the explanations where this platform differs.
    package func summary(_ results: [ExperimentResult], conditions: RunConditions) -> String {
        var lines = ["", "Summary — " + ResultSummary.hostLine(conditions)]
        let table = TextTable(
            header: ResultSummary.header, rows: results.map(ResultSummary.row), rightAligned: [1, 3, 4])
        var rendered = Self.shown([table.render(indent: "  ")])
        for (offset, result) in results.enumerated() where colour {
            rendered[offset + 2] = rendered[offset + 2].replacingLastOccurrence(
                of: result.verdict.rawValue, with: paint(result.verdict))
        }
        lines.append(contentsOf: rendered)
        if let overhead = ResultSummary.overheadLine(results) {
            lines.append("  " + overhead)
        }
        if let asked = results.first(where: { $0.runsAsked > 1 })?.runsAsked {
            lines.append(
                "  measured: min / median / max of \(Format.count(asked, "run")), each in its own child; Δ and the sections are from the first run that failed, or the last"
            )
        }
        for result in results where result.isCutShort {
            lines.append(
                Self.shown(
                    "  \(result.experiment.name): only \(result.repeats.count) of its \(Format.count(result.runsAsked, "run")) finished before the interrupt; its row is theirs"
                ))
        }
        let explanations = ResultSummary.explanations(results)
        if !explanations.isEmpty {
            lines.append("")
            lines.append("  Where this platform differs from the article's:")
            for explanation in explanations {
                lines.append(contentsOf: wrap(explanation, first: "  • ", rest: "    "))
            }
        }
        let images = results.flatMap { $0.measurement?.outcome[.images] ?? [] }
        if let first = images.first {
            lines.append("")
            lines.append(
                Self.shown(
                    "  \(images.count) PNG image\(images.count == 1 ? "" : "s") (before | after) written to \(URL(fileURLWithPath: first).deletingLastPathComponent().path)"
                ))
        }
        let passed = results.filter { $0.verdict == .pass }.count
        let predicted = results.filter { $0.verdict == .predicted }.count
        let unmodelled = results.filter { $0.verdict == .unmodelled }.count
        lines.append("")
        if let first = results.first, predicted == results.count,
            let reason = RunConditions.whyNothingRuns(profile: first.prediction.profile, hostCPUs: conditions.host.cpus)
        {
            lines.append("  \(predicted) predicted, nothing run (\(reason)).")
        } else {
            lines.append("  \(passed) of \(results.count) passed\(unmodelled > 0 ? ", \(unmodelled) unmodelled" : "").")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `describe NAME`: the experiment's parameters, defaults and accepted values.
    package func parameters(of experiment: Experiment) -> String {
        let table = ParameterTable(experiment)
        let rows = table.rows.isEmpty ? [] : [TextTable(header: ParameterTable.header, rows: table.rows).render()]
        return Self.shown(([table.heading] + rows + [table.note]).joined(separator: "\n\n")) + "\n"
    }

    /// `describe NAME`: its parameters, then its code with line numbers.
    package func describe(_ experiment: Experiment, code: CodeListing) -> String {
        parameters(of: experiment) + "\n" + Self.shown(Self.code(code))
    }

    /// `list`: every experiment with its article figure and the prediction at the chosen scale.
    package func list(_ predictions: [(Experiment, Prediction)], timeScale: Double) -> String {
        let list = ExperimentList(predictions, timeScale: timeScale)
        return Self.shown(
            TextTable(header: list.header, rows: list.rows, rightAligned: [2]).render() + "\n\n"
                + list.notes.joined(separator: "\n")) + "\n"
    }

    func paint(_ verdict: Verdict) -> String {
        let text = verdict.rawValue.uppercased()
        guard colour else { return text }
        let code: String
        switch verdict {
        case .pass: code = "32"
        case .fail, .error: code = "31"
        case .predicted: code = "36"
        case .unmodelled: code = "33"
        }
        return "\u{1B}[\(code);1m\(text)\u{1B}[0m"
    }

    /// Words wrapped to the chart's width, the first line after `first`, the others after `rest`.
    /// The line's width is kept as words are added, so wrapping stays linear (measuring the
    /// whole line again for each word would make it quadratic).
    func wrap(_ text: String, first: String, rest: String) -> [String] {
        var lines: [String] = []
        var current = first, width = TextWidth.columns(first)
        // Shown before it is wrapped: a newline in it stays in its paragraph, and a long one is cut.
        for word in Format.shown(text).split(separator: " ") {
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

extension String {
    func replacingLastOccurrence(of target: String, with replacement: String) -> String {
        guard let range = range(of: target, options: .backwards) else { return self }
        return replacingCharacters(in: range, with: replacement)
    }
}
