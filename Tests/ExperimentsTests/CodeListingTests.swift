import ExperimentReports
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import Experiments

/// The report as a playground page: each experiment's code, each line with what it did.
@Suite(.serialized, .oneAtATime) struct CodeListingTests {
    /// The package's checkout, from this file's place in it.
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The line of `ConcurrentPrinterQueue.swift` that adds the closure printing `word`, read from the file.
    static func addLine(of word: String) throws -> SourceLine {
        let path = "000-OperationAndOperationQueue/ConcurrentPrinterQueue.swift"
        let text = try String(contentsOf: checkout.appendingPathComponent("Experiments/" + path), encoding: .utf8)
        let index = try #require(
            text.components(separatedBy: "\n").firstIndex { $0.contains("addOperation { print(\"\(word)\")") })
        return SourceLine(path: path, line: index + 1)
    }

    /// The files a frame can name a line of: the articles' experiments and the learner's, never
    /// the instrumentation (`Lab/`) nor the command's entry, which the learner's module holds and
    /// whose frame is under every main thread's stack.
    @Test func onlyExperimentsCodeNamesALine() {
        let experiments = "/home/learner/run-experiments/Experiments/"
        #expect(
            SourceLine(experimentFile: experiments + "Playground/MyQueue.swift", line: 13)?.description
                == "Playground/MyQueue.swift:13")
        #expect(
            SourceLine(experimentFile: experiments + "000-OperationAndOperationQueue/SerialQueue.swift", line: 30)
                != nil)
        #expect(SourceLine(experimentFile: experiments + "Lab/ArticleFoundation.swift", line: 3) == nil)
        #expect(SourceLine(experimentFile: experiments + SourceLine.entryFolder + "main.swift", line: 7) == nil)
        #expect(
            FileManager.default.fileExists(
                atPath: Self.checkout.appendingPathComponent("Experiments/" + SourceLine.entryFolder + "main.swift")
                    .path))
    }

    @Test func theRehearsalGivesEachAddedClosureTheLineThatAddsIt() throws {
        let lines = concurrentPrinterQueue.workload().operations.map(\.line)
        let expected = try PrinterQueue.words.map(Self.addLine)
        #expect(lines == expected)
    }

    /// Written as the article's page, an experiment's code is its call's trailing closure, shown whole.
    @Test func describeShowsTheCodeWhole() throws {
        let listing = CodeListing(serialQueue)
        #expect(listing.missing == nil)
        let closure = try #require(listing.blocks.first)
        #expect(CodeListing(serialQueue).blocks.count == 1)
        #expect(closure.lines.first?.text.hasPrefix("let serialQueue = Experiment(\"serial-queue\"") == true)
        #expect(closure.lines.first?.text.hasSuffix("{ context in") == true)
        #expect(closure.lines.contains { $0.text == "    printerQueue.maxConcurrentOperationCount = context.width(1)" })
        #expect(closure.lines.last?.text == "}")
        let resultsShown = closure.lines.flatMap(\.results)
        #expect(resultsShown.isEmpty, "describe predicts and runs nothing")
    }

    @Test func aSourceThatCannotBeReadIsSaidInOneSentence() throws {
        var moved = concurrentPrinterQueue
        moved.declaration = Experiment.Declaration(path: "/nowhere/Experiments/Gone.swift", line: 3)
        let listing = CodeListing(moved)
        #expect(listing.blocks.isEmpty)
        #expect(listing.missing?.contains("/nowhere/Experiments/Gone.swift cannot be read here") == true)
        // A file shorter than the line the build recorded (shortened since): said, not a trap.
        let declared = try #require(concurrentPrinterQueue.declaration)
        moved.declaration = Experiment.Declaration(path: declared.path, line: 10_000)
        #expect(CodeListing(moved).missing?.contains("cannot be read here") == true)
    }

    /// An experiment's file that is a link, or lies in a linked folder under Experiments/, is
    /// not read: `describe` of one linked to /etc/passwd shows none of its lines, and says why.
    @Test func aLinkedExperimentFileIsNotRead() throws {
        let folder = try BuiltBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let playground = folder.appendingPathComponent("Experiments/Playground")
        try FileManager.default.createDirectory(at: playground, withIntermediateDirectories: true)
        let declared = try #require(concurrentPrinterQueue.declaration)
        let own = playground.appendingPathComponent("Own.swift")
        try FileManager.default.copyItem(atPath: declared.path, toPath: own.path)
        try FileManager.default.createSymbolicLink(
            atPath: playground.appendingPathComponent("Linked.swift").path, withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(
            atPath: playground.appendingPathComponent("Copy.swift").path, withDestinationPath: own.path)
        try FileManager.default.createSymbolicLink(
            atPath: folder.appendingPathComponent("Experiments/Elsewhere").path, withDestinationPath: playground.path)
        var linked = concurrentPrinterQueue
        for (path, line) in [
            ("Playground/Linked.swift", 1), ("Playground/Copy.swift", declared.line),
            ("Elsewhere/Own.swift", declared.line),
        ] {
            linked.declaration = Experiment.Declaration(
                path: folder.appendingPathComponent("Experiments/" + path).path, line: line)
            let listing = CodeListing(linked)
            #expect(listing.blocks.isEmpty, "\(path)")
            #expect(
                listing.missing
                    == "Its code cannot be shown: \(path) is a symbolic link (or lies in a linked folder), and only the experiment's own regular file under Experiments/ is read."
            )
            let described = TextRenderer(colour: false).describe(linked, code: listing)
            #expect(!described.contains("root:") && !described.contains("printerQueue"), "\(described)")
        }
        // The file itself, where it is, is read.
        linked.declaration = Experiment.Declaration(path: own.path, line: declared.line)
        #expect(CodeListing(linked).missing == nil)
        // So is one reached through a link above Experiments/ (a package in a linked folder).
        let above = try BuiltBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: above) }
        try FileManager.default.createSymbolicLink(
            atPath: above.appendingPathComponent("package").path, withDestinationPath: folder.path)
        linked.declaration = Experiment.Declaration(
            path: above.appendingPathComponent("package/Experiments/Playground/Own.swift").path, line: declared.line)
        #expect(CodeListing(linked).missing == nil)
    }

    @Test func describeShowsTheDeclarationsThePlanAddsFrom() {
        let listing = CodeListing(groupCancellation, plan: groupCancellation.workload())
        #expect(listing.blocks.map(\.title) == ["the experiment's code", "GroupAdd.generateOperations(_:)"])
    }
}

extension TimedRuns {
    /// A real run's report: every section's code, each printed line linked to the line that
    /// printed it, each bar to the line that added it.
    @Suite struct ReportCodeRuns {
        @Test func theReportShowsTheCodeBesideWhatEachLineDid() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let result = try BuiltBinary.run([
                "concurrent-printer-queue", "serial-queue", "--time-scale", "0.05", "--lines", "--report-dir",
                folder.path,
            ])
            #expect(result.status == 0, "\(result.stderr)")
            for word in PrinterQueue.words {
                #expect(
                    result.stdout.contains("\(word)  \(try CodeListingTests.addLine(of: word).named)"),
                    "--lines names where \(word) was printed")
            }
            let html = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
            let ids = Set(Self.matches(#"id="([^"]+)""#, in: html))
            for section in ["concurrent-printer-queue", "serial-queue"] {
                let body = try #require(Self.section(section, in: html))
                #expect(body.contains(#"<div class="code">"#), "\(section) shows its code")
                let links = Self.matches(##"<a class="site" href="#([^"]+)""##, in: body)
                #expect(
                    links.count == PrinterQueue.words.count + (section == "serial-queue" ? 1 : 0),
                    "every printed line links to its line")
                for link in links { #expect(ids.contains(link), "\(link) is a line of the page") }
                let rows = Set(Self.matches(#"<tr class="line" id="[^"]+" data-site="([^"]+)""#, in: body))
                for bar in Self.matches(#"<rect class="[a-z]+" data-site="([^"]+)""#, in: body) {
                    #expect(rows.contains(bar), "\(section): bar of \(bar) has its line")
                }
            }
            let printerQueue = try #require(Self.section("concurrent-printer-queue", in: html))
            let markdown = try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
            for word in PrinterQueue.words {
                let line = try CodeListingTests.addLine(of: word)
                let row = try #require(
                    Self.matches(
                        #"<tr class="line" id="concurrent-printer-queue:\#(line)"[^>]*>(.*?)</tr>"#, in: printerQueue
                    ).first)
                #expect(row.contains("▸ \(word): starts "), "\(line) shows when its operation started")
                #expect(row.contains("predicted "), "\(line) shows the predicted start")
                #expect(row.contains(" · \(word)</span>"), "\(line) shows what it printed")
                #expect(row.contains(" slept "), "\(line) shows its sleep")
                #expect(
                    markdown.contains("\(line.line) │     printerQueue.addOperation { print(\"\(word)\"); sleep(2) }"),
                    "report.md lists \(line)")
                #expect(markdown.contains("┆   ▸ \(word): starts "), "report.md shows \(line)'s start")
            }
            let json = try String(contentsOf: folder.appendingPathComponent("report.json"), encoding: .utf8)
            let lines = try PrinterQueue.words.map { try CodeListingTests.addLine(of: $0).description }
            let printedFrom = Self.matches(
                #""line": "(000-OperationAndOperationQueue/ConcurrentPrinterQueue\.swift:\d+)""#, in: json)
            #expect(Set(lines).isSubset(of: Set(printedFrom)), "report.json names each line")
            let sleptFrom = Self.matches(#""seconds": [0-9.e-]+,\s*"thread": [0-9]+,\s*"line": "([^"]+)""#, in: json)
            #expect(Set(lines).isSubset(of: Set(sleptFrom)), "report.json names each sleep's line")
            if ReferencePageInABrowser.hasChromium {
                #expect(
                    try ReferencePageInABrowser.check(folder.appendingPathComponent("index.html")) == 0,
                    "this run's page renders in Chromium")
            }
        }

        @Test func aHungRunKeepsItsLines() throws {
            // The child is stopped by the watchdog: its lines come from the stacks it sent.
            let result = try BuiltBinary.run(["dependency-cycle", "--time-scale", "0.05", "--format", "json"])
            let printed = Self.matches(
                #""text": "[^"]*",\s*"thread": [0-9]+,\s*"line": ("[^"]+"|null)"#, in: result.stdout)
            #expect(
                !printed.isEmpty
                    && printed.allSatisfy {
                        $0.hasPrefix("\"000-OperationAndOperationQueue/DependencyCycleExperiment.swift:")
                    }, "\(printed)")
        }

        static func section(_ name: String, in html: String) -> String? {
            matches(#"<section id="\#(name)">(.*?)</section>"#, in: html).first
        }

        /// The first capture group of every match.
        static func matches(_ pattern: String, in text: String) -> [String] {
            guard let expression = try? NSRegularExpression(pattern: pattern, options: [.dotMatchesLineSeparators])
            else { return [] }
            return expression.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
                Range(match.range(at: 1), in: text).map { String(text[$0]) }
            }
        }
    }
}

/// The committed reference page, rendered in headless Chromium when this machine has it: no
/// console error, no missing element (`Tests/Browser/check-report.sh`, which says why it fails).
@Suite(.serialized, .oneAtATime) struct ReferencePageInABrowser {
    static let script = CodeListingTests.checkout.appendingPathComponent("Tests/Browser/check-report.sh")

    static var hasChromium: Bool {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"].contains {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    @Test(.enabled(if: hasChromium, "Chromium is not installed (apt-get install chromium)"))
    func theReferencePageRendersWithoutErrors() throws {
        #expect(try Self.check(CodeListingTests.checkout.appendingPathComponent("Reports/reference/index.html")) == 0)
    }

    /// Runs the browser check on `page`; its exit status (what is wrong goes to this process's stderr).
    static func check(_ page: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script.path, page.path]
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}
