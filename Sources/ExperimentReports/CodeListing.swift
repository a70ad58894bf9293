import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation
import SwiftScanner
import Synchronization

/// An experiment's code as a playground shows it: its `code:` closure as written in its file,
/// then the declarations of the experiments' code that its prints, sleeps and adds were made
/// from (a helper that adds the article's closures, an operation's `main()`), each line with
/// what it did in the run: what it printed, when and on which thread, how long its sleep
/// lasted, and for a line that adds an operation, the operation's measured and predicted start.
///
/// Read from the source the package was built from, at the path the compiler gave; where it
/// cannot be read, ``missing`` says why and the rest of the report is unchanged.
package struct CodeListing: Sendable {
    /// A run of consecutive lines of one file.
    package struct Block: Sendable {
        /// `the experiment's code`, or the declaration's name: `GroupAdd.generateOperations(_:)`.
        package var title: String
        /// The file's path under `Experiments/`.
        package var path: String
        package var lines: [Line]
        /// Long blocks other than the experiment's own code start folded.
        package var isFolded: Bool

        /// `PrinterQueue.swift, lines 29–37`.
        package var place: String {
            let name = SourceLine(path: path, line: 0).name
            guard let first = lines.first?.number, let last = lines.last?.number else { return name }
            return first == last ? "\(name), line \(first)" : "\(name), lines \(first)–\(last)"
        }

        func covers(_ site: SourceLine) -> Bool {
            site.path == path && lines.contains { $0.number == site.line }
        }

        /// The lines it shows, as a range.
        var range: ClosedRange<Int>? {
            guard let first = lines.first?.number, let last = lines.last?.number else { return nil }
            return first...last
        }
    }

    /// One line of code and what it did.
    package struct Line: Sendable {
        package var number: Int
        package var text: String
        package var site: SourceLine
        /// One entry per thing the line did, in the order shown: `0.970 s · t3 · Желает 🍋`.
        package var results: [String]
    }

    package var blocks: [Block] = []
    /// Why the code cannot be shown, in one sentence; nil when it is.
    package var missing: String?
    /// Why the lines' results are not shown beside code that is (a file edited since the
    /// build, whose lines no longer match what ran); nil when they are.
    package var stale: String?

    /// Why a run's results are left out of code edited since the build, in one sentence.
    static func editedSentence(_ file: String) -> String {
        "\(file) was edited after this executable was built: its results are left out, and no printed line names a line of it (build and run again to see them)."
    }

    /// Blocks longer than this start folded.
    static let foldedAbove = 30
    /// At most this many results of one kind are listed beside a line; the rest are counted.
    static let resultsPerKind = 4

    /// The listing of `experiment` with what `result` recorded beside its lines; without a
    /// result (`describe`), the code alone, with the declarations `plan`'s operations are added
    /// from when a plan was read.
    package init(_ experiment: Experiment, result: ExperimentResult? = nil, plan: Workload? = nil) {
        guard let declaration = experiment.declaration, let folder = SourceLine.experimentsFolder(of: declaration.path),
            let own = SourceLine(experimentFile: declaration.path, line: declaration.line)
        else {
            missing = "Its code cannot be shown: the experiment does not say where in Experiments/ it is declared."
            return
        }
        if case .failure(let refusal) = SourceFiles.shared.read(declaration.path), refusal != .unreadable {
            missing = "Its code cannot be shown: \(own.path) \(refusal.sentence)."
            return
        }
        guard let source = SourceFiles.shared.source(at: declaration.path), declaration.line <= source.lines.count
        else {
            missing =
                "Its code cannot be shown: \(declaration.path) cannot be read here (the package's sources are not beside this executable, or have changed)."
            return
        }
        var results = result.map(LineResults.init) ?? LineResults()
        if result != nil,
            let edited = SourceFiles.editedSinceTheBuild(folder: folder, paths: [own.path] + results.sites.map(\.path))
        {
            stale = Self.editedSentence(edited)
            results = LineResults()
        }
        var listing = Listing(folder: folder, results: results)
        if let closure = source.closureArgument("code", ofCallAt: declaration.line) ?? source.closureArgument(
            "run", ofCallAt: declaration.line)
            ?? source.unlabelledTrailingClosure(ofCallAt: declaration.line)
        {
            listing.add("the experiment's code", path: own.path, lines: closure, folds: false)
        } else if let argument = source.referenceArgument("code", ofCallAt: declaration.line)
            ?? source.referenceArgument("run", ofCallAt: declaration.line)
        {
            // `run: Lesson.run`: the line, then what it names.
            listing.add("the experiment's code", path: own.path, lines: argument.line...argument.line, folds: false)
            listing.addDeclaration(named: argument.name)
        }
        for site in results.sites + (plan?.operations.compactMap(\.line) ?? []) {
            listing.addDeclaration(holding: site)
        }
        blocks = listing.blocks
        if blocks.isEmpty {
            missing =
                "Its code cannot be shown: no `code:` or `run:` argument, nor a trailing closure, was found in \(own.name) at line \(declaration.line)."
        }
    }
}

/// The blocks of a listing as they are gathered: one per declaration, a block widened rather
/// than repeated where a later one overlaps it.
private struct Listing {
    let folder: String
    let results: LineResults
    var blocks: [CodeListing.Block] = []

    init(folder: String, results: LineResults) {
        self.folder = folder
        self.results = results
    }

    /// The declaration that holds `site` (the line alone, outside any), unless a block shows it.
    mutating func addDeclaration(holding site: SourceLine) {
        guard !blocks.contains(where: { $0.covers(site) }),
            let source = SourceFiles.shared.source(at: folder + "/" + site.path), site.line <= source.lines.count
        else { return }
        let enclosing = source.enclosingDeclaration(of: site.line)
        add(
            enclosing?.name ?? site.name, path: site.path, lines: enclosing?.lines ?? site.line...site.line, folds: true
        )
    }

    /// The declaration `reference` names, found in the experiments' files.
    mutating func addDeclaration(named reference: String) {
        for path in SourceFiles.shared.paths(in: folder) {
            guard let declaration = SourceFiles.shared.source(at: folder + "/" + path)?.declaration(named: reference)
            else { continue }
            return add(declaration.name, path: path, lines: declaration.lines, folds: true)
        }
    }

    /// A block of `lines` of the file at `path`; one that overlaps a block of the same file
    /// widens that block instead, so no line is shown twice.
    mutating func add(_ title: String, path: String, lines: ClosedRange<Int>, folds: Bool) {
        guard let source = SourceFiles.shared.source(at: folder + "/" + path), !source.lines.isEmpty else { return }
        let lines = lines.clamped(to: 1...source.lines.count)
        guard let overlapping = blocks.firstIndex(where: { $0.path == path && $0.range.map(lines.overlaps) == true }),
            let shown = blocks[overlapping].range
        else {
            return blocks.append(block(title, path: path, source: source, lines: lines, folds: folds))
        }
        // The wider of the two names the block (the declaration that holds the other).
        let existing = blocks[overlapping]
        let (widerTitle, widerFolds) = shown.count >= lines.count ? (existing.title, existing.isFolded) : (title, folds)
        let union = min(lines.lowerBound, shown.lowerBound)...max(lines.upperBound, shown.upperBound)
        blocks[overlapping] = block(widerTitle, path: path, source: source, lines: union, folds: widerFolds)
    }

    /// The lines with their common indentation taken off, and their results.
    private func block(_ title: String, path: String, source: SwiftSource, lines: ClosedRange<Int>, folds: Bool)
        -> CodeListing.Block
    {
        let written: [String] = lines.map { source.lines[$0 - 1] }.filter { !$0.allSatisfy(\.isWhitespace) }
        let indent: Int = written.map { text in text.prefix { $0 == " " }.count }.min() ?? 0
        return CodeListing.Block(
            title: title, path: path,
            lines: lines.map { number in
                let site = SourceLine(path: path, line: number)
                return CodeListing.Line(
                    number: number, text: String(source.lines[number - 1].dropFirst(indent)), site: site,
                    results: results.entries(at: site))
            },
            isFolded: folds && lines.count > CodeListing.foldedAbove
        )
    }
}

/// What a run recorded, by the line of code that did it.
struct LineResults {
    private var byLine: [SourceLine: [String]] = [:]
    /// The lines, in the order they first did something: adds in the plan's order, then prints
    /// and sleeps in time order.
    private(set) var sites: [SourceLine] = []

    init() {}

    init(_ result: ExperimentResult) {
        let measured = result.measurement
        let predictedSpans = Dictionary(
            GanttChart.rows(result.prediction).map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        let measuredSpans = Dictionary(
            (measured?.operations ?? []).map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        var adds: [SourceLine: [String]] = [:], prints: [SourceLine: [String]] = [:],
            sleeps: [SourceLine: [String]] = [:]
        for operation in result.prediction.workload.operations {
            guard let line = operation.line else { continue }
            note(line)
            let ran = measured.map { _ in Self.measuredStart(measuredSpans[operation.label]) }
            adds[line, default: []].append(
                "▸ \(operation.label): "
                    + [ran, Self.predictedStart(predictedSpans[operation.label])].compactMap { $0 }.joined(
                        separator: ", "))
        }
        for printed in measured?.output ?? [] {
            guard let line = printed.line else { continue }
            note(line)
            prints[line, default: []].append(
                "\(Format.seconds(printed.at, digits: 3)) · \(Format.thread(printed.thread)) · \(printed.text)")
        }
        for sleep in measured?.sleeps ?? [] {
            guard let line = sleep.line else { continue }
            note(line)
            sleeps[line, default: []].append(
                "\(Format.thread(sleep.thread)) \(sleep.holdsThread ? "slept" : "suspended") \(Format.seconds(sleep.seconds, digits: 3))"
            )
        }
        for line in sites {
            byLine[line] = [adds[line], prints[line], sleeps[line]].flatMap { Self.capped($0 ?? []) }
        }
    }

    /// `starts 0.970 s on t3`, or that the run recorded no row for it.
    private static func measuredStart(_ span: OperationSpan?) -> String {
        guard let span else { return "no row in the run" }
        return "starts \(Format.seconds(span.start, digits: 3)) on \(Format.thread(span.thread))"
            + (span.cancelled ? ", cancelled" : "")
    }

    /// `predicted 0.000 s`, or what the model says instead of a start.
    private static func predictedStart(_ span: OperationSpan?) -> String {
        guard let span else { return "predicted not to run" }
        return span.cancelled && span.end <= span.start
            ? "predicted cancelled before it runs" : "predicted \(Format.seconds(span.start, digits: 3))"
    }

    private mutating func note(_ line: SourceLine) {
        if byLine[line] == nil {
            byLine[line] = []
            sites.append(line)
        }
    }

    func entries(at line: SourceLine) -> [String] {
        byLine[line] ?? []
    }

    /// The first few entries, then how many more.
    private static func capped(_ entries: [String]) -> [String] {
        let shown = CodeListing.resultsPerKind
        return entries.count <= shown + 1
            ? entries : Array(entries.prefix(shown)) + ["… and \(entries.count - shown) more"]
    }
}

/// The package's source files, read once per process however many sections show them; only
/// the experiments' own regular files under their `Experiments/` folder (``read(_:)``).
final class SourceFiles: Sendable {
    static let shared = SourceFiles()

    private let sources = Mutex<[String: Result<SwiftSource, Refusal>]>([:])
    private let folders = Mutex<[String: [String]]>([:])

    /// Why a file is not read as experiments' code.
    enum Refusal: Error, Equatable {
        /// It is not under an `Experiments/` folder.
        case outsideTheExperiments
        /// It, or a folder on its way down from `Experiments/`, is a symbolic link.
        case link
        /// It is not a regular file (a folder, a FIFO, a device).
        case notARegularFile
        /// It does not exist, cannot be opened, or is not UTF-8 text.
        case unreadable

        /// What follows the file's path in the sentence saying why its code is not shown.
        var sentence: String {
            switch self {
            case .outsideTheExperiments:
                return "is not under the package's Experiments/ folder, and only the experiments' own files are read"
            case .link:
                return
                    "is a symbolic link (or lies in a linked folder), and only the experiment's own regular file under Experiments/ is read"
            case .notARegularFile:
                return "is not a regular file, and only the experiment's own regular file under Experiments/ is read"
            case .unreadable: return "cannot be read here"
            }
        }
    }

    /// The file at `path`, read and scanned once; nil when it cannot, or may not, be read.
    func source(at path: String) -> SwiftSource? {
        try? read(path).get()
    }

    /// The file at `path`, read and scanned once, or why it is not.
    func read(_ path: String) -> Result<SwiftSource, Refusal> {
        if let known = sources.withLock({ $0[path] }) { return known }
        let source = Self.experimentsText(at: path).map(SwiftSource.init(text:))
        sources.withLock { $0[path] = source }
        return source
    }

    /// The text of `path` if it is a regular file of an `Experiments/` folder reached from that
    /// folder without a symbolic link: the experiments' own source, never what a link planted
    /// among them points at (`/etc/passwd`). The folder itself may be reached through links
    /// (a package kept in a linked home folder).
    static func experimentsText(at path: String) -> Result<String, Refusal> {
        guard let folder = SourceLine.experimentsFolder(of: path) else { return .failure(.outsideTheExperiments) }
        var status = stat()
        if lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFLNK { return .failure(.link) }
        guard let realFolder = realPath(folder), let real = realPath(path) else { return .failure(.unreadable) }
        guard real == realFolder + path.dropFirst(folder.count) else { return .failure(.link) }
        // No link at its end (the lstat above may have raced a swap), no blocking on a FIFO.
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(errno == ELOOP ? .link : .unreadable) }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            return .failure(.notARegularFile)
        }
        guard let data = try? handle.readToEnd() ?? Data(), let text = String(data: data, encoding: .utf8) else {
            return .failure(.unreadable)
        }
        return .success(text)
    }

    /// `path` with every link resolved; nil when it does not exist.
    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The Swift files under `folder`, as paths relative to it, in order.
    func paths(in folder: String) -> [String] {
        if let known = folders.withLock({ $0[folder] }) { return known }
        let paths = (FileManager.default.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter {
            $0.hasSuffix(".swift")
        }.sorted()
        folders.withLock { $0[folder] = paths }
        return paths
    }

    /// The first of `paths` (under `folder`) modified after this executable was written: its
    /// lines may no longer be those the executable ran.
    static func editedSinceTheBuild(folder: String, paths: [String]) -> String? {
        let manager = FileManager.default
        guard let executable = Bundle.main.executablePath,
            let built = (try? manager.attributesOfItem(atPath: executable))?[.modificationDate] as? Date
        else { return nil }
        return paths.first { path in
            ((try? manager.attributesOfItem(atPath: folder + "/" + path))?[.modificationDate] as? Date).map {
                $0 > built
            } ?? false
        }.map { SourceLine(path: $0, line: 0).name }
    }
}
