import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation

/// A Markdown report: host header, summary table, then a section per experiment.
///
/// Text from experiments and results has `&`, `<` and `>` escaped (and `|` in table cells), so
/// a title like "a <queue>" reads as written instead of becoming HTML, and its control
/// characters written out (`markdownEscaped`); text inside a fence (the timelines, what was
/// printed, the code) has its control characters written out and its fence outlasts any run
/// of backticks in it (`fenced(_:)`), so nothing printed ends the fence or becomes Markdown.
package struct MarkdownRenderer: Reporter, Sendable {
    /// Whether each section shows its timeline picture (`timelines/NAME.svg`) above its text
    /// timeline, as the report folder's `report.md` does, so a code-hosting site shows both.
    package var linksTimelines: Bool

    package init(linksTimelines: Bool = false) {
        self.linksTimelines = linksTimelines
    }

    package static func render(_ results: [ExperimentResult], conditions: RunConditions) -> String {
        MarkdownRenderer().document(RunReport(results, conditions: conditions))
    }

    /// The whole report, with or without the timeline pictures.
    package func document(_ run: RunReport) -> String {
        var lines = ["# run-experiments report", "", run.hostLine.markdownEscaped, ""]
        lines.append(Self.table(header: ResultSummary.header, rows: run.results.map(ResultSummary.row)))
        let explanations = ResultSummary.explanations(run.results)
        if !explanations.isEmpty {
            lines.append("")
            lines.append(contentsOf: explanations.map { "- " + $0.markdownEscaped })
        }
        for section in run.sections {
            lines.append("")
            lines.append(self.section(section))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// One experiment: the article's words as a quotation, the timelines and the comparison as
    /// preformatted text, then notes, outcome, checks and verdict.
    package func section(_ section: ExperimentSection) -> String {
        var lines = ["## \(section.name.markdownEscaped) — \(section.title.markdownEscaped)", ""]
        lines.append("> \(section.article.quote.markdownEscaped)")
        lines.append(">")
        lines.append("> — \(section.source.citation.markdownEscaped)")
        lines.append("")
        for correction in section.corrections {
            lines.append("Errata: \(correction.sentence.markdownEscaped)")
            lines.append("")
        }
        // A learner's experiment states no summary or outcome until it wants to.
        if !section.summary.isEmpty {
            lines.append(section.summary.markdownEscaped)
            lines.append("")
        }
        if !section.expectedOutcome.isEmpty {
            lines.append("Expected outcome: \(section.expectedOutcome.markdownEscaped)")
            lines.append("")
        }
        if let settings = section.settings {
            lines.append("Settings: \(settings.line.markdownEscaped)")
            lines.append("")
        }
        if linksTimelines {
            lines.append("![timeline](\(ReportLayout.timelinePath(section.name)))")
            lines.append("")
        }
        lines.append(contentsOf: Self.code(section.code))
        var preformatted: [String] = []
        if !section.printed.isEmpty {
            preformatted.append("Printed")
            preformatted.append(
                contentsOf: section.printed.map { "  " + TextRenderer.printed($0, namingItsLine: true) })
            preformatted.append("")
        }
        if !section.timelines.isEmpty {
            preformatted.append(TextRenderer(colour: false).timelines(section, indent: ""))
            preformatted.append("")
        }
        preformatted.append(section.comparison.render())
        lines.append(contentsOf: Self.fenced(preformatted))
        for note in section.notes {
            lines.append("")
            lines.append("\(note.heading): \(note.text.markdownEscaped)")
        }
        if !section.outcome.isEmpty {
            lines.append("")
            lines.append(
                contentsOf: section.outcome.map {
                    "- \($0.key.markdownEscaped): \(OutcomeText.describe($0.value).markdownEscaped)"
                })
        }
        if !section.checks.isEmpty {
            lines.append("")
            lines.append(
                contentsOf: section.checks.map { "- \(ExperimentSection.mark($0)) \($0.description.markdownEscaped)" })
        }
        lines.append("")
        lines.append(
            "**Verdict: \(section.verdict.rawValue)**" + (section.reason.map { " — \($0.markdownEscaped)" } ?? ""))
        return lines.joined(separator: "\n")
    }

    /// The section's code, a block per declaration with what each line did under it; long
    /// blocks folded (`<details>`, which GitHub and most viewers open on a click).
    static func code(_ listing: CodeListing) -> [String] {
        if let missing = listing.missing { return [missing.markdownEscaped, ""] }
        return listing.blocks.enumerated().flatMap { index, block -> [String] in
            let heading = "Code: \(block.title) — \(block.place)"
            let code = fenced(TextRenderer.listing(block)) + [""]
            guard index > 0, block.isFolded else { return ["**\(heading.markdownEscaped)**", ""] + code }
            return ["<details><summary>\(heading.markupEscaped)</summary>", ""] + code + ["</details>", ""]
        }
    }

    /// `list --format markdown`: the list's table, then a paragraph for each note (a leading
    /// `+` escaped, so that it does not start a bulleted list).
    package static func list(_ predictions: [(Experiment, Prediction)], timeScale: Double) -> String {
        let list = ExperimentList(predictions, timeScale: timeScale)
        let notes = list.notes.map { ($0.hasPrefix("+") ? "\\" : "") + $0.markdownEscaped }
        return ([table(header: list.header, rows: list.rows)] + notes).joined(separator: "\n\n") + "\n"
    }

    /// `describe NAME --format markdown`: a heading, the parameters' table, how to change one.
    package static func parameters(of experiment: Experiment) -> String {
        let table = ParameterTable(experiment)
        let rows = table.rows.isEmpty ? [] : [self.table(header: ParameterTable.header, rows: table.rows)]
        return (["## " + table.heading.markdownEscaped] + rows + [table.note.markdownEscaped]).joined(separator: "\n\n")
            + "\n"
    }

    /// `describe NAME --format markdown`: the parameters, then the code with its line numbers.
    package static func describe(_ experiment: Experiment, code listing: CodeListing) -> String {
        parameters(of: experiment) + "\n" + code(listing).joined(separator: "\n")
    }

    /// `lines` (each may hold several) as a fenced block of plain text: each line shown as
    /// the terminal shows it (``Format/shown(_:limit:)``: no control character, no endless
    /// line), inside a fence longer than any run of backticks in them, so no line (a printed
    /// "```") closes it early and whatever follows stays inside. Every fence of the report is made here.
    static func fenced(_ lines: [String]) -> [String] {
        let shown = TextRenderer.shown(lines)
        let longestRun =
            shown.map { line in
                line.split(omittingEmptySubsequences: true) { $0 != "`" }.map(\.count).max() ?? 0
            }.max() ?? 0
        let fence = String(repeating: "`", count: max(3, longestRun + 1))
        return [fence + "text"] + shown + [fence]
    }

    static func table(header: [String], rows: [[String]]) -> String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { $0.markdownEscaped.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ")
                + " |"
        }
        return ([line(header), "|" + header.map { _ in " --- |" }.joined()] + rows.map(line)).joined(separator: "\n")
    }
}

extension String {
    /// The text as Markdown shows it outside a fence: shown as the terminal shows it
    /// (``Format/shown(_:limit:)``: a control character written out, so a newline cannot
    /// start a heading of its own, and a long text cut), and the characters Markdown would
    /// take for HTML (`&`, `<`, `>`) as entities. Every text of the report outside a fence
    /// goes through here.
    var markdownEscaped: String {
        // `&` first, so the entities added after it stay as they are.
        Format.shown(self).replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }
}
