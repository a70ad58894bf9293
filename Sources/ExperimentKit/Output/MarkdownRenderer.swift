import Foundation

/// A Markdown report: host header, summary table, then a section per experiment.
public enum MarkdownRenderer {
    public static func render(_ results: [ExperimentResult], host: Host, timeScale: Double, profile: PlatformProfile.Kind) -> String {
        var lines = ["# run-experiments report", "", ResultSummary.hostLine(host, timeScale: timeScale, profile: profile), ""]
        lines.append(table(header: ResultSummary.header, rows: results.map(ResultSummary.row)))
        let explanations = ResultSummary.explanations(results)
        if !explanations.isEmpty {
            lines.append("")
            lines.append(contentsOf: explanations.map { "- " + $0 })
        }
        for result in results {
            let experiment = result.experiment
            lines.append("")
            lines.append("## \(experiment.name) — \(experiment.title)")
            lines.append("")
            lines.append("> \(experiment.claim.quote)")
            lines.append(">")
            lines.append("> — article `\(experiment.source.file)`, \(experiment.source.section)")
            lines.append("")
            lines.append(experiment.summary)
            lines.append("")
            lines.append("Expected outcome: \(experiment.expectedOutcome)")
            lines.append("")
            let text = TextRenderer(colour: false)
            lines.append("```text")
            lines.append(text.timelines(result, indent: ""))
            lines.append("")
            lines.append(text.comparison(result).render())
            lines.append("```")
            if result.differsFromArticlePlatform {
                lines.append("")
                lines.append("Why this platform differs: \(experiment.platformDifference)")
            }
            if let reason = experiment.claim.unreachableBecause {
                lines.append("")
                lines.append("The article's figure: \(reason)")
            }
            if let outcome = result.measurement?.outcome, !outcome.fields.isEmpty {
                lines.append("")
                lines.append(contentsOf: outcome.fields.map { "- \($0.key): \(OutcomeText.describe($0.value))" })
            }
            lines.append("")
            lines.append(contentsOf: result.checks.map { "- \($0.passed ? "✓" : "✗") \($0.description)" })
            lines.append("")
            lines.append("**Verdict: \(result.verdict.rawValue)**" + (result.reason.map { result.verdict == .pass ? "" : " — \($0)" } ?? ""))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func table(header: [String], rows: [[String]]) -> String {
        func line(_ cells: [String]) -> String {
            "| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |"
        }
        return ([line(header), "|" + header.map { _ in " --- |" }.joined()] + rows.map(line)).joined(separator: "\n")
    }
}
