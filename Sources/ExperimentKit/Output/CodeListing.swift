import Foundation
import Synchronization

/// An experiment's code as a playground shows it: its `code:` closure as written in its file,
/// then the declarations of the Experiments module that its prints, sleeps and adds were made
/// from (a helper that adds the article's closures, an operation's `main()`), each line with
/// what it did in the run: what it printed, when and on which thread, how long its sleep
/// lasted, and for a line that adds an operation, the operation's measured and predicted start.
///
/// Read from the source the package was built from, at the path the compiler gave; where it
/// cannot be read, ``missing`` says why and the rest of the report is unchanged.
public struct CodeListing: Sendable {
    /// A run of consecutive lines of one file.
    public struct Block: Sendable {
        /// `the experiment's code`, or the declaration's name: `PrinterQueue.addClosures(with:)`.
        public var title: String
        /// The file's name, `PrinterQueue.swift`.
        public var file: String
        public var lines: [Line]
        /// Long blocks other than the experiment's own code start folded.
        public var isFolded: Bool

        /// `PrinterQueue.swift, lines 29–37`.
        public var place: String {
            guard let first = lines.first?.number, let last = lines.last?.number else { return file }
            return first == last ? "\(file), line \(first)" : "\(file), lines \(first)–\(last)"
        }
    }

    /// One line of code and what it did.
    public struct Line: Sendable {
        public var number: Int
        public var text: String
        public var site: SourceLine
        /// One entry per thing the line did, in the order shown: `0.970 s · t3 · Желает 🍋`.
        public var results: [String]
    }

    public var blocks: [Block]
    /// Why the code cannot be shown, in one sentence; nil when it is.
    public var missing: String?

    /// Blocks longer than this start folded.
    static let foldedAbove = 30
    /// At most this many results of one kind are listed beside a line; the rest are counted.
    static let resultsPerKind = 4

    /// The listing of `experiment` with what `result` recorded beside its lines (none when
    /// `result` is nil: `describe` shows the code alone).
    public init(_ experiment: Experiment, result: ExperimentResult? = nil) {
        blocks = []
        guard let declaration = experiment.declaration else {
            missing = "Its code cannot be shown: the experiment does not say where it is declared."
            return
        }
        let fileName = URL(fileURLWithPath: declaration.path).lastPathComponent
        guard let source = SourceFiles.shared.source(at: declaration.path) else {
            missing = "Its code cannot be shown: \(declaration.path) cannot be read here (the package's sources are not beside this executable)."
            return
        }
        let results = result.map(LineResults.init) ?? LineResults()
        let folder = SourceFiles.experimentsFolder(of: declaration.path)
        if let closure = source.closureArgument("code", ofCallAt: declaration.line) ?? source.closureArgument("run", ofCallAt: declaration.line) {
            blocks = [Self.block(title: "the experiment's code", file: fileName, source: source, lines: closure, results: results, folds: false)]
        } else if let argument = Self.codeArgument(in: source, callAt: declaration.line) {
            // `code: PrinterQueue.sevenClosuresThenConcatenation`: the line, then what it names.
            blocks = [Self.block(title: "the experiment's code", file: fileName, source: source, lines: argument.line...argument.line, results: results, folds: false)]
            if let folder, let named = Self.declaration(named: argument.name, in: folder) {
                blocks.append(Self.block(title: named.declaration.name, file: named.file, source: named.source, lines: named.declaration.lines, results: results, folds: true))
            }
        }
        for site in results.sites where !blocks.contains(where: { $0.covers(site) }) {
            guard let folder, let path = SourceFiles.shared.path(of: site.file, in: folder),
                  let file = SourceFiles.shared.source(at: path), site.line <= file.lines.count else { continue }
            let enclosing = file.enclosingDeclaration(of: site.line)
            let range = enclosing?.lines ?? site.line...site.line
            guard !blocks.contains(where: { $0.file == site.file && $0.overlaps(range) }) else { continue }
            blocks.append(Self.block(title: enclosing?.name ?? site.file, file: site.file, source: file, lines: range, results: results, folds: true))
        }
        if blocks.isEmpty {
            missing = "Its code cannot be shown: no `code:` or `run:` argument was found in \(fileName) at line \(declaration.line)."
        }
    }

    /// The line of the call at `line` that passes a function as `code:` or `run:`, and the
    /// function's name (`sevenClosuresThenConcatenation`, or `code` of `ArraySumCancellation.code { … }`).
    private static func codeArgument(in source: SwiftSource, callAt line: Int) -> (line: Int, name: String)? {
        let searched = line...min(source.lines.count, line + 200)
        for number in searched where line >= 1 {
            let text = source.lines[number - 1].trimmingCharacters(in: .whitespaces)
            guard let label = ["code:", "run:"].first(where: text.hasPrefix) else { continue }
            let expression = text.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
            let path = expression.prefix { $0.isLetter || $0.isNumber || $0 == "." || $0 == "_" }
            guard let name = path.split(separator: ".").last else { return nil }
            return (number, String(name))
        }
        return nil
    }

    /// The function (or closure constant) called `name` among the files under `folder`, the
    /// first found.
    private static func declaration(named name: String, in folder: String) -> (file: String, source: SwiftSource, declaration: SwiftSource.Declaration)? {
        for path in SourceFiles.shared.paths(in: folder) {
            guard let source = SourceFiles.shared.source(at: path),
                  let line = source.lines.firstIndex(where: { text in ["func \(name)(", "func \(name)<", "let \(name):", "let \(name) ="].contains { text.contains($0) } }),
                  let declaration = source.enclosingDeclaration(of: line + 1)
            else { continue }
            return (URL(fileURLWithPath: path).lastPathComponent, source, declaration)
        }
        return nil
    }

    private static func block(title: String, file: String, source: SwiftSource, lines: ClosedRange<Int>, results: LineResults, folds: Bool) -> Block {
        let shown = lines.clamped(to: 1...max(1, source.lines.count))
        let indent = shown.map { source.lines[$0 - 1] }.filter { !$0.allSatisfy(\.isWhitespace) }.map { $0.prefix { $0 == " " }.count }.min() ?? 0
        return Block(
            title: title, file: file,
            lines: shown.map { number in
                let site = SourceLine(file: file, line: number)
                return Line(number: number, text: String(source.lines[number - 1].dropFirst(indent)), site: site, results: results.entries(at: site))
            },
            isFolded: folds && shown.count > foldedAbove
        )
    }

    /// Every line that did something, in the order of the blocks.
    public var linesWithResults: [Line] {
        blocks.flatMap(\.lines).filter { !$0.results.isEmpty }
    }
}

extension CodeListing.Block {
    func covers(_ site: SourceLine) -> Bool {
        site.file == file && lines.contains { $0.number == site.line }
    }

    func overlaps(_ range: ClosedRange<Int>) -> Bool {
        guard let first = lines.first?.number, let last = lines.last?.number else { return false }
        return range.overlaps(first...last)
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
        let predictedStarts = Dictionary(GanttChart.rows(result.prediction).map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        let measuredSpans = Dictionary((measured?.operations ?? []).map { ($0.label, $0) }, uniquingKeysWith: { first, _ in first })
        var adds: [SourceLine: [String]] = [:], prints: [SourceLine: [String]] = [:], sleeps: [SourceLine: [String]] = [:]
        for operation in result.prediction.workload.operations {
            guard let line = operation.line else { continue }
            note(line)
            let predicted = predictedStarts[operation.label].map { "predicted \(Format.seconds($0.start, digits: 3))" } ?? "predicted not to start"
            let ran = measured == nil ? nil : measuredSpans[operation.label].map { "starts \(Format.seconds($0.start, digits: 3)) on \(Self.thread($0.thread))" } ?? "did not start"
            adds[line, default: []].append("▸ \(operation.label): " + [ran, predicted].compactMap { $0 }.joined(separator: ", "))
        }
        for printed in measured?.output ?? [] {
            guard let line = printed.line else { continue }
            note(line)
            prints[line, default: []].append("\(Format.seconds(printed.at, digits: 3)) · \(Self.thread(printed.thread)) · \(printed.text)")
        }
        for sleep in measured?.sleeps ?? [] {
            guard let line = sleep.line else { continue }
            note(line)
            sleeps[line, default: []].append("\(Self.thread(sleep.thread)) slept \(Format.seconds(sleep.seconds, digits: 3))")
        }
        for line in sites {
            byLine[line] = [adds[line], prints[line], sleeps[line]].flatMap { Self.capped($0 ?? []) }
        }
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
        return entries.count <= shown + 1 ? entries : Array(entries.prefix(shown)) + ["… and \(entries.count - shown) more"]
    }

    /// `main` for the experiment's own thread, `t3` for another.
    static func thread(_ number: Int) -> String {
        number == 0 ? "main" : "t\(number)"
    }
}

/// The package's source files, read once per process however many sections show them.
final class SourceFiles: Sendable {
    static let shared = SourceFiles()

    private let sources = Mutex<[String: SwiftSource?]>([:])
    private let folders = Mutex<[String: [String: String]]>([:])

    /// The file at `path`, read and scanned once; nil when it cannot be read.
    func source(at path: String) -> SwiftSource? {
        if let known = sources.withLock({ $0[path] }) { return known }
        let source = (try? String(contentsOfFile: path, encoding: .utf8)).map(SwiftSource.init(text:))
        sources.withLock { $0[path] = source }
        return source
    }

    /// The path of the file named `name` under `folder` (file names are unique in a module).
    func path(of name: String, in folder: String) -> String? {
        index(of: folder)[name]
    }

    /// Every Swift file under `folder`, by name.
    func paths(in folder: String) -> [String] {
        index(of: folder).sorted { $0.key < $1.key }.map(\.value)
    }

    private func index(of folder: String) -> [String: String] {
        if let index = folders.withLock({ $0[folder] }) { return index }
        var index: [String: String] = [:]
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            if relative.hasSuffix(".swift") { index[URL(fileURLWithPath: relative).lastPathComponent] = folder + "/" + relative }
        }
        folders.withLock { $0[folder] = index }
        return index
    }

    /// The `Experiments` folder a file of the experiments lies in.
    static func experimentsFolder(of path: String) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let experiments = components.lastIndex(of: "Experiments") else { return nil }
        return components[...experiments].joined(separator: "/")
    }
}
