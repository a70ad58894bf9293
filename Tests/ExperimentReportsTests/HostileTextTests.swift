import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentReports
@testable import ExperimentResults

/// What a learner's code prints, names and reports, and what a child writes, turned against
/// the terminal and the Markdown report: none of it acts on the terminal, ends a fence, becomes
/// a heading or HTML, or runs on without end.
@Suite(.serialized, .oneAtATime) struct HostileTextTests {
    /// A fence, a heading, HTML, a screen clear, a window title ended by a bell, a carriage
    /// return, a backspace, a NUL and a C1 control sequence introducer.
    static let hostile = [
        "```", "# injected heading", "<img src=x onerror=alert(1)>", "\u{1B}[2J", "\u{1B}]0;title\u{7}",
        "over\rwritten", "back\u{8}space", "nul\u{0}byte", "c1\u{9B}31m", "````` longer fence",
        "a\n```\n# injected heading",
    ]
    /// A child's stderr line of 100 KB with escapes in it, as a reason.
    static let longReason = String(repeating: "\u{1B}[31mred", count: 12_500)

    /// ReportTests' result with every text a learner or a child controls made hostile.
    static func result() -> ExperimentResult {
        var result = HandMadeRun.result()
        var measurement = result.measurement!
        measurement.output = hostile.enumerated().map {
            PrintedLine(at: 0.01 * Double($0.offset), text: $0.element, thread: 1)
        }
        measurement.operations = hostile.enumerated().map {
            OperationSpan(label: $0.element, start: 0.1 * Double($0.offset), end: 1, thread: 1)
        }
        measurement.outcome.set("order", .strings(hostile))
        measurement.outcome.set("note", .string("line one\n# injected heading\n<img src=x onerror=alert(1)>"))
        result.measurement = measurement
        result.reason = longReason
        result.checks.append(Check("'\u{1B}]0;title\u{7}' ran\n# injected heading", passed: false))
        return result
    }

    static let conditions = HandMadeRun.conditions

    /// The scalars of `text` that act on a terminal: controls but the newline, and format characters.
    static func controls(in text: String) -> [Unicode.Scalar] {
        text.unicodeScalars.filter { scalar in
            scalar != "\n"
                && [.control, .format, .lineSeparator, .paragraphSeparator].contains(scalar.properties.generalCategory)
        }
    }

    @Test(arguments: [false, true]) func theTerminalShowsControlCharactersWrittenOut(colour: Bool) throws {
        let renderer = TextRenderer(colour: colour)
        let text =
            renderer.section(Self.result(), position: 1, count: 1)
            + renderer.summary([Self.result()], conditions: Self.conditions)
        // The renderer's own colours are the only escapes left.
        let uncoloured = text.replacing(#/\u{1B}\[3[0-9];1m|\u{1B}\[0m/#, with: "")
        #expect(Self.controls(in: uncoloured).isEmpty, "\(Self.controls(in: uncoloured))")
        #expect(colour == (uncoloured != text))
        for shown in [
            #"\u{1B}[2J"#, #"\u{1B}]0;title\u{7}"#, #"over\rwritten"#, #"back\u{8}space"#, #"nul\0byte"#,
            #"c1\u{9B}31m"#,
        ] {
            #expect(text.contains(shown), "\(shown)")
        }
        // The 100 KB reason is cut, and says by how much; no line runs on.
        #expect(text.contains(#/… \([0-9]{5} more characters\)/#))
        // A newline in a printed line or a label stays in its row.
        #expect(text.contains(#"a\n```\n# injected heading"#))
        #expect(!text.split(separator: "\n").contains { $0.hasPrefix("```") || $0.hasPrefix("# injected") })
        let longest = text.split(separator: "\n").map(\.count).max() ?? 0
        #expect(longest < TextRenderer.lineLimit + 50, "\(longest)")
    }

    @Test func markdownKeepsPrintedTextInsideItsFence() throws {
        let markdown = MarkdownRenderer(linksTimelines: true).document(
            RunReport([Self.result()], conditions: Self.conditions))
        #expect(Self.controls(in: markdown).isEmpty, "\(Self.controls(in: markdown))")
        // CommonMark's fences: one opens with three or more backticks, and only a line of at
        // least as many backticks closes it.
        var open: Int?
        var outside: [String] = []
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            let ticks = line.prefix { $0 == "`" }.count
            if let length = open {
                if ticks >= length, line.allSatisfy({ $0 == "`" }) { open = nil }
            } else if ticks >= 3 {
                open = ticks
            } else {
                outside.append(line)
            }
        }
        #expect(open == nil, "the file ends inside a fence")
        #expect(
            !outside.contains {
                $0.hasPrefix("#") && !$0.hasPrefix("# run-experiments report") && !$0.hasPrefix("## tiny-queue")
            }, "\(outside.filter { $0.hasPrefix("#") })")
        #expect(!outside.contains { $0.contains("<img") })
        #expect(markdown.contains("&lt;img src=x onerror=alert(1)&gt;"), "HTML outside a fence is shown as text")
        #expect(markdown.contains(#"\u{1B}]0;title\u{7}"#))
        #expect(markdown.contains("more characters)"))
        #expect((markdown.split(separator: "\n").map(\.count).max() ?? 0) < Format.shownLimit + 200)
    }

    @Test func aFenceOutlastsEveryRunOfBackticks() {
        #expect(MarkdownRenderer.fenced(["plain"]) == ["```text", "plain", "```"])
        #expect(MarkdownRenderer.fenced(["a ``` b", "````"]) == ["`````text", "a ``` b", "````", "`````"])
        #expect(MarkdownRenderer.fenced(["two\nlines\u{1B}[2J"]) == ["```text", "two", #"lines\u{1B}[2J"#, "```"])
    }

    @Test func shownWritesControlsOutAndCutsLongText() {
        #expect(Format.shown("a\u{1B}[2Jb\u{7}\r\u{8}\u{0}\\n") == #"a\u{1B}[2Jb\u{7}\r\u{8}\0\n"#)
        #expect(Format.shown("Каждый 🍎 👩‍💻") == "Каждый 🍎 👩‍💻")
        #expect(Format.shown(String(repeating: "x", count: 12), limit: 10) == "xxxxxxxxxx… (2 more characters)")
        #expect(Format.shown(String(repeating: "x", count: 11), limit: 10) == "xxxxxxxxxx… (1 more character)")
        #expect(Format.shown(String(repeating: "x", count: 10), limit: 10) == String(repeating: "x", count: 10))
    }
}
