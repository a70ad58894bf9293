import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import ExperimentReports
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import Experiments

/// Text, Markdown, HTML and JSON say the same of every field they share. The values are read
/// from the JSON document, and each page is asserted to show them in its own layout; the
/// comparison and summary tables must hold the same cells on every page.
@Suite(.serialized, .oneAtATime) struct FormatAgreementTests {
    static let host = HostMachine(cpus: 2, os: "Linux", swift: "6.3")

    /// serial-queue off the article's values (`width=2`), with a hand-made run: what it printed,
    /// a timer's wait, an operation suspended for half its span, an outcome with an image, CPU
    /// costs, a failed and a passed check.
    static func synthetic() -> ExperimentResult {
        let runner = Runner(
            executable: BuiltBinary.url, timeScale: 0.5, profile: .linux, host: host,
            settings: try! ParameterSettings(["width": "2"], for: [serialQueue]))
        let predictions = runner.predictions(serialQueue)
        let spans = predictions.chosen.nominal.spans.compactMap { $0 }
        let measurement = MeasuredRun(
            totalSeconds: predictions.chosen.total + 0.2,
            enqueueSeconds: 0.0004,
            operations: [OperationSpan(label: "timer 0.50 s", start: 0, end: 0.5, thread: 0, kind: .timer)]
                + spans.map {
                    OperationSpan(label: $0.label, start: $0.start, end: $0.end + 0.01, thread: $0.lane)
                },
            output: spans.map { PrintedLine(at: $0.start + 0.001, text: $0.label, thread: $0.lane) },
            sleeps: [
                MeasuredSleep(
                    at: spans[1].start + 0.002, seconds: (spans[1].end - spans[1].start) / 2, thread: spans[1].lane,
                    suspended: true)
            ],
            outcome: Outcome([
                Outcome.Field("sums", .array([.number(3), .number(7.5)])),
                Outcome.Field("cancelled", .bool(false)),
                Outcome.Field("images", .strings(["/nonexistent/images/a & b.png"])),
            ]),
            cpuCosts: [
                CPUCost(label: spans[0].label, seconds: 0.0021, source: .measured),
                CPUCost(label: spans[1].label, seconds: 0.3, source: .calibrated),
            ]
        )
        return ExperimentResult(
            experiment: serialQueue, prediction: predictions.chosen, applePrediction: predictions.apple,
            measurement: measurement,
            verdict: .fail, reason: "the total <0.2 s> too late",
            checks: [
                Check("total within its bounds & more", passed: false), Check("every label printed once", passed: true),
            ],
            childEnding: .returned
        )
    }

    @Test func everyFormatShowsTheSameValueOfEverySharedField() throws {
        // A real short run, at the article's values: its figure is shown and compared.
        let real = Runner(executable: BuiltBinary.url, timeScale: 0.05, profile: .linux, host: Self.host).result(
            of: concurrentPrinterQueue)
        for result in [Self.synthetic(), real] {
            try Self.expectAgreement(result)
        }
    }

    /// An experiment that names no article (a learner's, as `new` writes it) cites none: every
    /// format says it is the learner's own, whatever its code does, and JSON gives no source.
    @Test func anExperimentFromNoArticleSaysItIsTheLearnersOwn() throws {
        let own = Experiment("my-queue") { _ in }
        #expect(own.source == .yourOwn)
        var result = Self.synthetic()
        result.experiment = own
        let conditions = RunConditions(host: Self.host, timeScale: 0.5, profile: .linux)
        let citation = "your own experiment, from none of the articles"
        let text = TextRenderer(colour: false).section(result, position: 1, count: 1)
        #expect(Self.flat(text).contains("Source \(citation)"))
        #expect(MarkdownRenderer.render([result], conditions: conditions).contains("> — \(citation)\n"))
        #expect(
            HTMLReport.render([result], conditions: conditions, reportDirectory: URL(fileURLWithPath: "/nonexistent"))
                .contains("— \(citation)</p>"))
        let document =
            try JSONSerialization.jsonObject(
                with: Data(JSONWriter.write(JSONRenderer.document([result], conditions: conditions)).utf8))
            as? [String: Any]
        let json = try #require((document?["experiments"] as? [[String: Any]])?.first)
        #expect(json["source"] is NSNull)
        #expect(!Self.flat(text).contains("article 000"))
    }

    static func expectAgreement(_ result: ExperimentResult, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let conditions = RunConditions(host: host, timeScale: result.prediction.timeScale, profile: .linux)
        let renderer = TextRenderer(colour: false)
        let text = renderer.section(result, position: 1, count: 1) + renderer.summary([result], conditions: conditions)
        let markdown = MarkdownRenderer.render([result], conditions: conditions)
        let html = HTMLReport.render(
            [result], conditions: conditions, reportDirectory: URL(fileURLWithPath: "/nonexistent/report"))
        let svg = SVGTimeline.render(result)
        let document =
            try JSONSerialization.jsonObject(
                with: Data(JSONWriter.write(JSONRenderer.document([result], conditions: conditions)).utf8))
            as? [String: Any]
        let json = try #require((document?["experiments"] as? [[String: Any]])?.first)
        let flatText = flat(text), flatMarkdown = flat(markdown), flatHTML = flat(html)
        let name = try #require(json["name"] as? String), title = try #require(json["title"] as? String)
        func expect(_ condition: Bool, _ what: String) {
            #expect(condition, "\(name): \(what)", sourceLocation: sourceLocation)
        }

        // Name, title, the article's source.
        expect(text.hasPrefix("── 1/1 \(name) · \(title) "), "text title")
        expect(markdown.contains("\n## \(name.markdownEscaped) — \(title.markdownEscaped)\n"), "Markdown title")
        expect(html.contains("<h2>\(name.markupEscaped) — \(title.markupEscaped)</h2>"), "HTML title")
        let source = try #require(json["source"] as? [String: Any])
        let file = source["file"] as? String ?? "?", section = source["section"] as? String ?? "?"
        let citation =
            "article \(file.prefix(3)), “\(source["title"] as? String ?? "?")” (\(source["author"] as? String ?? "?")), \(section)"
        expect(flatText.contains("Source \(flat(citation))"), "text source")
        expect(markdown.contains("> — \(citation.markdownEscaped)\n"), "Markdown source")
        expect(html.contains("— \(citation.markupEscaped)</p>"), "HTML source")

        // The article's words, with its figure (in article seconds) exactly when JSON gives it.
        let article = try #require(json["article"] as? [String: Any])
        let seconds = article["seconds"] as? Double
        if let claim = article["claim"] as? String {
            let figure = seconds.map { " (\(($0 / conditions.timeScale).decimalText) s)" } ?? ""
            let quoted = "“\(claim)”"
            for (page, words) in [
                (flatText, "Article " + flat(quoted)), (markdown, "> " + quoted.markdownEscaped),
                (html, "<p>" + quoted.markupEscaped),
            ] {
                let rest = page.range(of: words).map { page[$0.upperBound...] }
                expect(rest?.hasPrefix(figure) == true, "quote \(words.prefix(12))")
                expect(
                    !figure.isEmpty || rest?.firstMatch(of: #/^ \([0-9.]+ s\)/#) == nil,
                    "no figure after \(words.prefix(12))")
            }
        }
        for correction in json["articleCorrections"] as? [[String: String]] ?? [] {
            let sentence = try #require(correction["sentence"])
            expect(flatText.contains("Errata \(flat(sentence))"), "text errata")
            expect(markdown.contains("Errata: \(sentence.markdownEscaped)\n"), "Markdown errata")
            expect(html.contains("<strong>Errata:</strong> \(sentence.markupEscaped)</p>"), "HTML errata")
        }

        // The values the run used.
        let parameters = try #require(json["parameters"] as? [String: String])
        let settings = [
            settingsValues(in: flatText, after: "Settings "), settingsValues(in: markdown, after: "\nSettings: "),
            settingsValues(in: html, after: "<strong>Settings:</strong> "),
        ]
        for shown in settings {
            expect(Set(shown) == Set(parameters.map { "\($0.key)=\($0.value)" }), "settings \(shown)")
        }

        // What it printed, when and on which thread. JSON gives the instant to the microsecond,
        // the pages to the millisecond: one within half a microsecond of a rounding boundary
        // may round either way from the JSON's figure.
        for line in json["output"] as? [[String: Any]] ?? [] {
            let at = try #require(line["atSeconds"] as? Double), thread = try #require(line["thread"] as? Int)
            let text = try #require(line["text"] as? String)
            let printed = Set(
                [at - 5e-7, at, at + 5e-7].map { "\(String(format: "%.3f", $0)) s \(Format.thread(thread)) \(text)" })
            let shown = { (page: String, escaped: Bool) in
                printed.contains { page.contains(escaped ? $0.markupEscaped : $0) }
            }
            expect(
                shown(flatText, false) && shown(flatMarkdown, false) && shown(flatHTML, true),
                "printed \(printed.sorted())")
        }

        // The first timeline's rows: each operation on its thread, a timer in its own lane, in
        // text, Markdown and the SVG the HTML page shows; the Apple model's as many rows as
        // JSON has windows.
        for operation in json["operations"] as? [[String: Any]] ?? [] {
            let label = try #require(operation["label"] as? String), thread = try #require(operation["thread"] as? Int)
            let threadName = operation["kind"] as? String ?? (thread == 0 ? "main" : "t\(thread)")
            let heldNoThread =
                operation["holdsThread"] as? Bool == false
                || !(operation["suspensions"] as? [Any] ?? []).isEmpty
            let legend = "─ \(GanttChart.noThreadMeaning)"
            expect(
                !heldNoThread
                    || (flatText.contains(legend) && flatMarkdown.contains(legend)
                        && svg.contains(
                            #"<rect class="waiting""#)),
                "waiting \(label)")
            expect(
                flatText.contains("\(label) \(threadName) ") && flatMarkdown.contains("\(label) \(threadName) "),
                "row \(label)")
            expect(svg.contains("<title>\(label.markupEscaped), \(threadName): "), "SVG row \(label)")
        }
        if result.showsApplePicture {
            let windows = try #require((json["apple"] as? [String: Any])?["operations"] as? [[String: Any]])
            for page in [text, markdown] {
                let chart =
                    page.components(separatedBy: "Timeline, predicted by the apple model").last?.components(
                        separatedBy: "1 column ="
                    ).first ?? ""
                expect(
                    chart.split(separator: "\n").filter { $0.contains(where: "█░▒─".contains) }.count == windows.count,
                    "Apple rows")
            }
        }

        // The comparison: the same cells on every page, holding JSON's figures.
        let htmlComparison = htmlRows(in: html, from: "<tr><td>total</td>")
        let comparisons = [
            tableRows(in: text, from: "  total ", until: #/^  [A-Z]/#),
            tableRows(in: markdown, from: "total ", until: #/^```/#), htmlComparison,
        ]
        expect(
            !htmlComparison.isEmpty && comparisons[0] == comparisons[1] && comparisons[1] == comparisons[2],
            "comparison cells \(comparisons)")
        let total = comparisons[0].first ?? []
        let expected = try #require(json["expected"] as? [String: Any])
        let bounds = try #require(
            (expected["lowerSeconds"] as? Double).flatMap { low in
                (expected["upperSeconds"] as? Double).map { low...$0 }
            })
        expect(total.count > 1 && total[1] == (seconds.map { Format.seconds($0) } ?? "—"), "article figure \(total)")
        expect(
            total.contains(
                "\(Format.seconds(try #require(expected["seconds"] as? Double))), bounds \(Format.range(bounds))"),
            "expected \(total)")
        expect(
            total.contains(Format.seconds(try #require((json["apple"] as? [String: Any])?["seconds"] as? Double))),
            "Apple total \(total)")
        if let measured = json["measuredSeconds"] as? Double {
            expect(total.last == Format.seconds(measured), "measured \(total)")
        }

        // The notes under it.
        var notes: [(label: String, heading: String, text: String)] = []
        if let why = json["explanation"] as? String { notes.append(("Why", "Why this platform differs", why)) }
        if let because = article["unreachableBecause"] as? String {
            notes.append(("Figure", "The article's figure", because))
        }
        let costs = json["cpuCosts"] as? [[String: Any]] ?? []
        for cost in costs {
            let figure = "\(cost["label"] as? String ?? "?") \(Format.shortDuration(cost["seconds"] as? Double ?? -1))"
            expect(
                flatText.contains(figure) && markdown.contains(figure.markdownEscaped)
                    && html.contains(figure.markupEscaped), "CPU cost \(figure)")
        }
        expect(costs.isEmpty != flatText.contains("CPU work "), "CPU work note")
        for note in notes {
            expect(flatText.contains("\(note.label) \(flat(note.text))"), "text \(note.label)")
            expect(markdown.contains("\(note.heading): \(note.text.markdownEscaped)\n"), "Markdown \(note.label)")
            expect(
                html.contains("<strong>\(note.heading.markupEscaped):</strong> \(note.text.markupEscaped)</p>"),
                "HTML \(note.label)")
        }

        // The outcome, field by field; the page shows the images as pictures or paths.
        let outcome = result.measurement?.outcome.fields ?? []
        #expect(
            Set((json["outcome"] as? [String: Any] ?? [:]).keys) == Set(outcome.map(\.key)),
            sourceLocation: sourceLocation)
        let said = outcome.map { "\($0.key): \(OutcomeText.describe($0.value))" }
        // Text: a field per line four spaces in, wrapped lines six.
        let textOutcome = (text.components(separatedBy: "\n  Outcome\n").dropFirst().first ?? "").split(separator: "\n")
            .prefix { $0.hasPrefix("    ") }.reduce(into: [String]()) { fields, line in
                if line.hasPrefix("      ") {
                    fields[fields.count - 1] += " " + line.trimmingCharacters(in: .whitespaces)
                } else {
                    fields.append(line.trimmingCharacters(in: .whitespaces))
                }
            }
        expect(textOutcome.map(flat) == said.map(flat), "text outcome \(textOutcome)")
        expect(markdown.contains(said.map { "\n- " + $0.markdownEscaped }.joined() + "\n"), "Markdown outcome")
        let listed = outcome.filter { $0.key != "images" }.map {
            "<li><strong>\($0.key):</strong> \(OutcomeText.describe($0.value).markupEscaped)</li>"
        }
        expect(listed.isEmpty || html.contains("<ul>" + listed.joined() + "</ul>"), "HTML outcome")
        for image in result.measurement?.outcome["images"]?.stringArray ?? [] {
            expect(html.contains(image.markupEscaped), "HTML image \(image)")
        }

        // Checks, verdict and reason.
        for check in json["checks"] as? [[String: Any]] ?? [] {
            let mark = check["note"] as? Bool == true ? "·" : check["passed"] as? Bool == true ? "✓" : "✗",
                description = check["description"] as? String ?? "?"
            expect(flatText.contains("\(mark) \(flat(description))"), "text check \(description)")
            expect(markdown.contains("- \(mark) \(description.markdownEscaped)\n"), "Markdown check \(description)")
            expect(html.contains("\(mark) \(description.markupEscaped)</li>"), "HTML check \(description)")
        }
        let verdict = try #require(json["verdict"] as? String), reason = json["reason"] as? String
        expect(
            text.contains("\n  Verdict  \(verdict.uppercased())" + (reason.map { " — \($0)" } ?? "") + "\n"),
            "text verdict")
        expect(
            markdown.contains("\n**Verdict: \(verdict)**" + (reason.map { " — \($0.markdownEscaped)" } ?? "") + "\n"),
            "Markdown verdict")
        expect(
            html.contains(">\(verdict.uppercased())</span>" + (reason.map { " — \($0.markupEscaped)" } ?? "") + "</p>"),
            "HTML verdict")

        // The summary row: the same cells on every page.
        let summaries = [
            tableRows(in: text, from: "  \(name) ", until: #/^(?:  [a-z]+:.*)?$/#),
            tableRows(in: markdown, from: "\(name) ", until: #/^$/#),
            htmlRows(in: html, from: "<tr><td><a href=").map { $0.map { $0.replacing(#/<[^>]*>/#, with: "") } },
        ]
        expect(
            !summaries[0].isEmpty && summaries[0] == summaries[1] && summaries[1] == summaries[2],
            "summary cells \(summaries)")
    }

    /// Every run of spaces and line breaks as one space, so wrapped lines read on.
    static func flat(_ text: String) -> String {
        text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    /// The text between `start` and the next `end` after it.
    /// The `key=value` items of the settings line after `start`, read past the marks of where
    /// each comes from: `a=1, b=2 (the article's), c=3 (chosen here: …); …` gives `a=1, b=2, c=3`.
    static func settingsValues(in text: String, after start: String) -> [String] {
        guard var rest = text.range(of: start).map({ text[$0.upperBound...] }) else { return [] }
        var values: [String] = []
        while let mark = rest.range(of: " ("), let close = rest[mark.upperBound...].range(of: ")") {
            values += rest[..<mark.lowerBound].components(separatedBy: ", ")
            rest = rest[close.upperBound...]
            guard rest.hasPrefix(", ") else { break }
            rest = rest.dropFirst(2)
        }
        return values
    }

    static func line(in text: String, after start: String, before end: String) -> String? {
        guard let from = text.range(of: start)?.upperBound, let to = text[from...].range(of: end)?.lowerBound else {
            return nil
        }
        return String(text[from..<to])
    }

    /// The cells of the first row that starts with `start` (after Markdown's `| `) and of the
    /// rows under it up to the first line that matches `end`: columns apart by two spaces in
    /// text, by `|` in Markdown.
    static func tableRows(in page: String, from start: String, until end: Regex<Substring>) -> [[String]] {
        let lines = page.split(separator: "\n", omittingEmptySubsequences: false).map {
            $0.hasPrefix("| ") ? String($0.dropFirst(2)) : String($0)
        }
        guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
        return lines[first...].prefix { $0.firstMatch(of: end) == nil }.map { line in
            let separator = line.hasSuffix(" |") ? " | " : "  "
            let trimmed = line.hasSuffix(" |") ? String(line.dropLast(2)) : line
            return trimmed.components(separatedBy: separator).map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
        }
    }

    /// The cells of the HTML table rows from the one that starts with `start` to the table's end.
    static func htmlRows(in page: String, from start: String) -> [[String]] {
        let lines = page.split(separator: "\n").map(String.init)
        guard let first = lines.firstIndex(where: { $0.hasPrefix(start) }) else { return [] }
        return lines[first...].prefix { $0.hasPrefix("<tr>") }.map { row in
            row.components(separatedBy: "</td>").dropLast().map { cell in
                let content = cell.components(separatedBy: "<td").last.map { $0.drop { $0 != ">" }.dropFirst() } ?? ""
                return String(content).replacingOccurrences(of: "&amp;", with: "&").replacingOccurrences(
                    of: "&lt;", with: "<"
                ).replacingOccurrences(of: "&gt;", with: ">")
            }.filter { !$0.isEmpty }
        }
    }
}
