import ExperimentKit
import Foundation
import TestSupport
import Testing

@testable import ExperimentReports
@testable import ExperimentResults
@testable import ReportFiles

#if canImport(FoundationXML)
import FoundationXML
#endif

/// The report folder: SVG timeline, Markdown with its link, the HTML page and the writer,
/// from a hand-made result.
@Suite(.serialized, .oneAtATime) struct ReportTests {
    /// A fresh folder under the temporary directory, removed by the caller.
    static func temporaryFolder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("ReportTests-\(UUID().uuidString)")
    }

    /// `Goldens/timeline.svg`, read by eye: the plot runs from x 184 to 784 over 0–2.5 s (the
    /// 2.4 s run rounded up to the 0.5 s step), 240 px a second; so the 1 s bar is 240 wide, the cancelled 0.5 s one 120,
    /// the unfinished one starts at 184 + 0.97 × 240 = 416.8, and the lines sit at 1 s (424) and
    /// 1.97 s (656.8). Under a heading line, the Apple model's three bars all span 0–1 s (184 to
    /// 424), on t1, t2 and t3: the article's picture beside the measured one.
    @Test func svgTimelineGolden() throws {
        #expect(try SVGTimeline.render(HandMadeRun.result()) == Golden.text("timeline", extension: "svg", in: .module))
    }

    @Test func svgIsWellFormedAndEscapesLabels() {
        for result in [HandMadeRun.result(), HandMadeRun.result(measured: false)] {
            let svg = SVGTimeline.render(result)
            let parser = XMLParser(data: Data(svg.utf8))
            #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
            #expect(svg.contains("Tom &amp; Jerry &lt;b&gt;"))
            #expect(svg.contains("Каждый 🍎"))
            #expect(!svg.contains("<b>"))
            #expect(!svg.contains("<script"))
        }
    }

    @Test func svgOfAnUnmeasuredResultDrawsThePrediction() {
        let svg = SVGTimeline.render(HandMadeRun.result(measured: false))
        #expect(svg.contains("<title>tiny-queue — predicted timeline (linux model; nothing was measured)</title>"))
        // The nominal prediction: the third closure on the worker the monitor adds at 0.97 s.
        #expect(svg.contains(">t3</text>"))
        #expect(svg.contains("the model&#39;s pool workers"))
        #expect(!svg.contains("still running when stopped"))
    }

    @Test func markdownSectionLinksTheTimelineGolden() throws {
        let markdown = ReportWriter.markdown([HandMadeRun.result()], conditions: HandMadeRun.conditions)
        let section = try #require(markdown.range(of: "## tiny-queue"))
        #expect(try String(markdown[section.lowerBound...]) == Golden.text("section", extension: "md", in: .module))
        #expect(
            markdown.hasPrefix(
                MarkdownRenderer.render([HandMadeRun.result()], conditions: HandMadeRun.conditions).components(
                    separatedBy: "## tiny-queue")[0]))
    }

    /// A `watch` round's folder holds `round.js`, naming the round, and a page that loads it
    /// each second and follows the next round at the reader's place (run in Node, with the few
    /// browser objects it touches, by `Tests/Browser/check-follow.js`); a report written once has
    /// neither.
    @Test func aWatchRoundsPageFollowsTheRounds() throws {
        let folder = Self.temporaryFolder(), once = Self.temporaryFolder()
        defer { for made in [folder, once] { try? FileManager.default.removeItem(at: made) } }
        let experiments = [HandMadeRun.experiment(name: "tiny-queue")]
        let report = try ReportFolder.prepare(
            at: folder, writing: ReportWriter.files(for: experiments, following: true))
        try ReportWriter.write(
            [HandMadeRun.result()], conditions: HandMadeRun.conditions, round: "4242-1.2", into: report)
        #expect(
            try String(contentsOf: folder.appendingPathComponent(ReportLayout.roundFile), encoding: .utf8)
                == "reportRound(\"4242-1.2\");\n")
        try ReportWriter.write([HandMadeRun.result()], conditions: HandMadeRun.conditions, to: once)
        #expect(AtomicFile.kind(of: once.appendingPathComponent(ReportLayout.roundFile).path) == .missing)
        #expect(
            try !String(contentsOf: once.appendingPathComponent("index.html"), encoding: .utf8).contains("reportRound"))
        guard let node = ["/usr/bin/node", "/usr/local/bin/node"].first(where: FileManager.default.isExecutableFile)
        else {
            // Stated, not hidden: the page's script is then checked only for being there.
            print("aWatchRoundsPageFollowsTheRounds: Node is not installed; the page's script is not run.")
            return
        }
        let checker = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Browser/check-follow.js")
        for (page, follows) in [(folder, true), (once, false)] {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: node)
            process.arguments = [checker.path, page.appendingPathComponent("index.html").path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            #expect((process.terminationStatus == 0) == follows, "\(page.lastPathComponent)")
        }
    }

    @Test func htmlReferencesOnlyFilesInTheReportFolder() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // As in a run: the experiment writes its picture into the folder being built.
        let report = try ReportFolder.prepare(
            at: folder, writing: ReportWriter.files(for: [HandMadeRun.experiment(name: "tiny-queue")]))
        let png = try AtomicFile.write(
            Data([0x89, 0x50, 0x4E, 0x47]), named: "tiny-queue-фото 1.png", in: report.imagesDirectory)
        let outside = Self.temporaryFolder().appendingPathComponent("elsewhere.png").path
        let results = [
            report.placing(HandMadeRun.result(images: [png.path, outside])),
            HandMadeRun.result(name: "tiny-queue-predicted", measured: false),
        ]
        #expect(
            results[0].measurement?.outcome["images"]?.stringArray == [
                folder.path + "/images/tiny-queue-фото 1.png", outside,
            ])

        try ReportWriter.write(results, conditions: HandMadeRun.conditions, into: report)
        let html = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)

        let references = html.matches(of: #/(?:src|href)="([^"]*)"/#).map { String($0.output.1) }
        #expect(
            html.contains(#"<figure class="timeline"><svg xmlns="http://www.w3.org/2000/svg" id="timeline-tiny-queue""#)
        )
        #expect(references.contains { $0.hasPrefix("images/") })
        for reference in references {
            let target = try #require(reference.replacingOccurrences(of: "&amp;", with: "&").removingPercentEncoding)
            if target.hasPrefix("#") {
                #expect(html.contains(#"id="\#(target.dropFirst())""#), "\(reference)")
            } else {
                #expect(
                    FileManager.default.fileExists(atPath: folder.appendingPathComponent(target).path), "\(reference)")
            }
        }
        #expect(!references.contains { $0.contains("http") || $0.hasPrefix("//") })
        #expect(html.components(separatedBy: "<script").count == 2, "one script, inline")
        #expect(!html.contains("<script src"))
        #expect(html.contains("elsewhere.png</code> (not in the report folder)"))
        for result in results {
            #expect(html.contains(result.experiment.name))
            #expect(html.contains(#"<span class="verdict \#(result.verdict.rawValue)">"#))
        }
        #expect(html.contains("Why this platform differs:</strong> Linux&#39;s pool starts with one worker per CPU."))
        #expect(html.contains("Three closures &amp; a &lt;queue&gt;"))
        let parser = XMLParser(data: Data(html.utf8))
        #expect(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    }

    /// Writes a report of `results` into `folder` as a run does, with `images` written by its
    /// experiments; returns the folder's files (relative paths, sorted).
    @discardableResult
    static func writeReport(_ results: [ExperimentResult], images: [String] = [], to folder: URL) throws -> [String] {
        let report = try ReportFolder.prepare(at: folder, writing: ReportWriter.files(for: results.map(\.experiment)))
        for image in images {
            try AtomicFile.write(Data(image.utf8), named: image, in: report.imagesDirectory)
        }
        try ReportWriter.write(results, conditions: HandMadeRun.conditions, into: report)
        return try filesIn(folder)
    }

    /// Everything under `folder` but folders (links are listed, not followed), as sorted relative paths.
    static func filesIn(_ folder: URL, under relative: String = "") throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(relative).path).flatMap {
            name in
            let path = relative.isEmpty ? name : relative + "/" + name
            return AtomicFile.kind(of: folder.appendingPathComponent(path).path) == .directory
                ? try filesIn(folder, under: path) : [path]
        }.sorted()
    }

    @Test func aReportReplacesTheToolsOwnFilesAndKeepsTheUsers() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = FileManager.default
        try Self.writeReport([HandMadeRun.result(name: "gone")], images: ["gone-a.png"], to: folder)
        // The user's own files, beside and among the report's.
        try files.createDirectory(at: folder.appendingPathComponent("mine/deeper"), withIntermediateDirectories: true)
        try Data("notes".utf8).write(to: folder.appendingPathComponent("timelines/notes.txt"))
        try Data("mine".utf8).write(to: folder.appendingPathComponent("mine/deeper/kept.txt"))
        try Data([1, 2, 3]).write(to: folder.appendingPathComponent("images/kept.png"))
        // A file of the old report swapped for a link: removed as the link it is, never followed.
        let victim = Self.temporaryFolder()
        defer { try? files.removeItem(at: victim) }
        try Data("victim".utf8).write(to: victim)
        try files.removeItem(at: folder.appendingPathComponent("report.json"))
        try files.createSymbolicLink(at: folder.appendingPathComponent("report.json"), withDestinationURL: victim)

        let results = [HandMadeRun.result()]
        let report = try ReportFolder.prepare(at: folder, writing: ReportWriter.files(for: results.map(\.experiment)))
        let written = try ReportWriter.write(results, conditions: HandMadeRun.conditions, into: report)

        #expect(written.files.map(\.lastPathComponent) == ["report.md", "report.json", "tiny-queue.svg", "index.html"])
        #expect(
            try Self.filesIn(folder) == [
                "images/kept.png", "index.html", "mine/deeper/kept.txt", "report.json", "report.md",
                ReportFolder.manifestFile, "timelines/notes.txt", "timelines/tiny-queue.svg",
            ])
        #expect(
            try String(contentsOf: folder.appendingPathComponent(ReportFolder.manifestFile), encoding: .utf8)
                == ReportFolder.manifestText(["index.html", "report.json", "report.md", "timelines/tiny-queue.svg"]))
        #expect(
            try String(contentsOf: folder.appendingPathComponent("report.md"), encoding: .utf8)
                == ReportWriter.markdown(results, conditions: HandMadeRun.conditions))
        #expect(
            try String(contentsOf: folder.appendingPathComponent("report.json"), encoding: .utf8)
                == JSONWriter.write(JSONRenderer.document(results, conditions: HandMadeRun.conditions)))
        #expect(
            try String(contentsOf: folder.appendingPathComponent("timelines/tiny-queue.svg"), encoding: .utf8)
                == SVGTimeline.render(results[0]))
        #expect(files.contents(atPath: folder.appendingPathComponent("timelines/notes.txt").path) == Data("notes".utf8))
        #expect(files.contents(atPath: folder.appendingPathComponent("images/kept.png").path) == Data([1, 2, 3]))
        #expect(files.contents(atPath: victim.path) == Data("victim".utf8))
        #expect(
            try files.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path).filter {
                $0.contains(folder.lastPathComponent)
            } == [folder.lastPathComponent],
            "no working folder is left beside the report")
    }

    /// A file the tool did not write, at a path the report writes, is neither overwritten nor
    /// followed if it is a link: the report is refused and the folder stays as it was.
    @Test(arguments: ["report.md", "timelines/tiny-queue.svg", "images/tiny-queue-a.png", "timelines", "images"])
    func aFileTheToolDidNotWriteIsNeverReplaced(at path: String) throws {
        let folder = Self.temporaryFolder()
        let outside = Self.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: outside)
        }
        let files = FileManager.default
        try files.createDirectory(at: outside, withIntermediateDirectories: true)
        let victim = outside.appendingPathComponent("victim.txt")
        try Data("victim".utf8).write(to: victim)
        let planted = folder.appendingPathComponent(path)
        try files.createDirectory(at: planted.deletingLastPathComponent(), withIntermediateDirectories: true)
        try files.createSymbolicLink(
            atPath: planted.path, withDestinationPath: path.contains(".") ? victim.path : outside.path)

        let error = try #require(throws: ReportFolder.Failure.self) {
            // Checked when the run starts for the paths known then, when it ends for the images.
            try Self.writeReport([HandMadeRun.result()], images: ["tiny-queue-a.png"], to: folder)
        }
        #expect(error.path == planted.path)
        #expect(error.reason.contains("did not write it"))
        #expect(try String(contentsOf: victim, encoding: .utf8) == "victim")
        #expect(try files.contentsOfDirectory(atPath: outside.path) == ["victim.txt"])
        #expect(
            try files.destinationOfSymbolicLink(atPath: planted.path)
                == (path.contains(".") ? victim.path : outside.path))
        #expect(try Self.filesIn(folder) == [path], "nothing was added or removed")
        #expect(
            try files.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path).filter {
                $0.contains(folder.lastPathComponent)
            } == [folder.lastPathComponent])
    }

    @Test func aReportFolderThatIsALinkIsRefused() throws {
        let real = Self.temporaryFolder(), link = Self.temporaryFolder()
        defer {
            try? FileManager.default.removeItem(at: real)
            try? FileManager.default.removeItem(at: link)
        }
        try FileManager.default.createDirectory(at: real, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: real)
        let error = try #require(throws: ReportFolder.Failure.self) {
            try Self.writeReport([HandMadeRun.result()], to: link)
        }
        #expect(error.path == link.path && error.reason.contains("symbolic link"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: real.path).isEmpty)
    }

    /// A run killed before its swap leaves a hidden working folder and the previous report as it
    /// was; the next report removes the dead run's folder, and only a dead run's.
    @Test func anAbandonedWorkingFolderIsRemovedByTheNextReport() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let parent = folder.deletingLastPathComponent()
        try Self.writeReport([HandMadeRun.result(name: "old")], to: folder)
        let dead = parent.appendingPathComponent(
            ".\(folder.lastPathComponent)\(ReportFolder.stagingMarker)\(Int32.max)-deadbeef")
        let alive = parent.appendingPathComponent(
            ".\(folder.lastPathComponent)\(ReportFolder.stagingMarker)\(getppid())-0badcafe")
        for working in [dead, alive] {
            try FileManager.default.createDirectory(
                at: working.appendingPathComponent("images"), withIntermediateDirectories: true)
            try Data([1]).write(to: working.appendingPathComponent("images/half.png"))
        }
        defer { try? FileManager.default.removeItem(at: alive) }
        try Self.writeReport([HandMadeRun.result()], to: folder)
        #expect(!FileManager.default.fileExists(atPath: dead.path))
        #expect(
            FileManager.default.fileExists(atPath: alive.appendingPathComponent("images/half.png").path),
            "a running run's folder stays")
    }

    /// A report needs a folder of its own, so it is never the current folder, one above
    /// it, or the root.
    @Test func theCurrentFolderAndItsAncestorsAreRefused() throws {
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
        for target in [
            current, current.deletingLastPathComponent(), URL(fileURLWithPath: "/"), URL(fileURLWithPath: "."),
        ] {
            let error = try #require(throws: ReportFolder.Failure.self) {
                try ReportFolder.prepare(at: target, writing: ReportWriter.files(for: []))
            }
            #expect(error.reason.contains("current folder"), "\(target.path): \(error)")
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: current.deletingLastPathComponent().path)
                .allSatisfy { !$0.contains(ReportFolder.stagingMarker) })
    }

    @Test func reportWriterThrowsForAnUnwritableFolder() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let regularFile = folder.appendingPathComponent("a-file")
        try Data("x".utf8).write(to: regularFile)
        let target = regularFile.appendingPathComponent("report")

        let error = try #require(throws: ReportFolder.Failure.self) {
            try ReportWriter.write([HandMadeRun.result()], conditions: HandMadeRun.conditions, to: target)
        }
        #expect(error.description.contains(target.path))
    }

    /// A path longer than the system takes is refused before any folder is made.
    @Test func aTooLongPathIsRefusedWithoutLeavingFolders() throws {
        let base = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: base) }
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        let long = (0..<50).reduce(base) { folder, _ in
            folder.appendingPathComponent(String(repeating: "d", count: 100))
        }
        let longName = base.appendingPathComponent("new").appendingPathComponent(String(repeating: "n", count: 300))
        for target in [long, longName] {
            let error = try #require(throws: ReportFolder.Failure.self) {
                try ReportFolder.prepare(at: target, writing: ReportWriter.files(for: []))
            }
            #expect(error.reason.contains("too long"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: base.path).isEmpty)
        }
    }

    @Test func atomicFileNeverWritesThroughALinkOrOutsideItsFolder() throws {
        let folder = Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let files = FileManager.default
        try files.createDirectory(at: folder, withIntermediateDirectories: true)
        let victim = folder.appendingPathComponent("victim.txt")
        try Data("victim".utf8).write(to: victim)
        try files.createSymbolicLink(at: folder.appendingPathComponent("planted.png"), withDestinationURL: victim)

        try AtomicFile.write(Data("new".utf8), named: "planted.png", in: folder)
        #expect(try String(contentsOf: victim, encoding: .utf8) == "victim", "the link is replaced, not followed")
        #expect(AtomicFile.kind(of: folder.appendingPathComponent("planted.png").path) == .file)
        #expect(files.contents(atPath: folder.appendingPathComponent("planted.png").path) == Data("new".utf8))

        try files.createSymbolicLink(
            at: folder.appendingPathComponent("images"), withDestinationURL: folder.appendingPathComponent("elsewhere"))
        #expect(throws: AtomicFile.Failure.self) {
            try AtomicFile.write(Data(), named: "a.png", in: folder.appendingPathComponent("images"))
        }
        for name in ["../escaped.png", "a/b.png", "..", ""] {
            #expect(throws: AtomicFile.Failure.self) { try AtomicFile.write(Data(), named: name, in: folder) }
        }
        #expect(
            try files.contentsOfDirectory(atPath: folder.path).sorted() == ["images", "planted.png", "victim.txt"],
            "no temporary file is left")
    }

    @Test func markdownEscapesMarkupInTextAndPipesInCells() throws {
        let markdown = MarkdownRenderer.render([HandMadeRun.result()], conditions: HandMadeRun.conditions)
        #expect(markdown.contains("## tiny-queue — Three closures &amp; a &lt;queue&gt;"))
        #expect(markdown.contains("- startOrder: Каждый 🍎, Tom &amp; Jerry &lt;b&gt;, Фазан 🍆"))
        #expect(
            !markdown.components(separatedBy: "```").enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined()
                .contains("<b>"),
            "outside code, no '<' is left to be read as HTML")
        #expect(MarkdownRenderer.table(header: ["a"], rows: [["x | <y> & z"]]).hasSuffix("| x \\| &lt;y&gt; &amp; z |"))
    }
}
