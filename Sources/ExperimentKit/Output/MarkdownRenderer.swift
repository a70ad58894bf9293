import Foundation

/// A Markdown report: host header, summary table, then a section per experiment.
///
/// Text from experiments and results has `&`, `<` and `>` escaped (and `|` in table cells), so
/// a title like "a <queue>" reads as written instead of becoming HTML; text inside code (the
/// fenced timeline, the article's file name) is shown literally and is not escaped.
public enum MarkdownRenderer {
    public static func render(_ results: [ExperimentResult], host: Host, timeScale: Double, profile: PlatformProfile.Kind) -> String {
        var lines = ["# run-experiments report", "", ResultSummary.hostLine(host, timeScale: timeScale, profile: profile).markdownEscaped, ""]
        lines.append(table(header: ResultSummary.header, rows: results.map(ResultSummary.row)))
        let explanations = ResultSummary.explanations(results)
        if !explanations.isEmpty {
            lines.append("")
            lines.append(contentsOf: explanations.map { "- " + $0.markdownEscaped })
        }
        for result in results {
            let experiment = result.experiment
            lines.append("")
            lines.append(heading(experiment))
            lines.append("")
            lines.append("> \(ArticleText.quote(experiment.claim).markdownEscaped)")
            lines.append(">")
            lines.append("> — article `\(experiment.source.file)`, \(experiment.source.section.markdownEscaped)")
            lines.append("")
            for correction in experiment.articleCorrections {
                lines.append("Errata: \(correction.sentence.markdownEscaped)")
                lines.append("")
            }
            lines.append(experiment.summary.markdownEscaped)
            lines.append("")
            lines.append("Expected outcome: \(experiment.expectedOutcome.markdownEscaped)")
            lines.append("")
            let text = TextRenderer(colour: false)
            lines.append("```text")
            lines.append(text.timelines(result, indent: ""))
            lines.append("")
            lines.append(text.comparison(result).render())
            lines.append("```")
            if result.differsFromArticlePlatform {
                lines.append("")
                lines.append("Why this platform differs: \(experiment.platformDifference.markdownEscaped)")
            }
            if let reason = experiment.claim.unreachableBecause {
                lines.append("")
                lines.append("The article's figure: \(reason.markdownEscaped)")
            }
            if let outcome = result.measurement?.outcome, !outcome.fields.isEmpty {
                lines.append("")
                lines.append(contentsOf: outcome.fields.map { "- \($0.key.markdownEscaped): \(OutcomeText.describe($0.value).markdownEscaped)" })
            }
            lines.append("")
            lines.append(contentsOf: result.checks.map { "- \($0.passed ? "✓" : "✗") \($0.description.markdownEscaped)" })
            lines.append("")
            lines.append("**Verdict: \(result.verdict.rawValue)**" + (result.reason.map { result.verdict == .pass ? "" : " — \($0.markdownEscaped)" } ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// An experiment's section heading.
    static func heading(_ experiment: Experiment) -> String {
        "## \(experiment.name.markdownEscaped) — \(experiment.title.markdownEscaped)"
    }

    static func table(header: [String], rows: [[String]]) -> String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { $0.markdownEscaped.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        return ([line(header), "|" + header.map { _ in " --- |" }.joined()] + rows.map(line)).joined(separator: "\n")
    }
}

extension String {
    /// The text with the characters Markdown would take for HTML (`&`, `<`, `>`) as entities.
    var markdownEscaped: String {
        // `&` first, so the entities added after it stay as they are.
        replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
    }
}
