import ExperimentKit
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Experiments

/// The articles' words as the project shows them, checked against the articles themselves.
///
/// The article texts are not part of the repository: they are found in a folder `shared/articles`
/// above the checkout (where the project's CI lays them), or at the path in the environment
/// variable `RUN_EXPERIMENTS_ARTICLES`. Without them, the tests that read them are skipped, each
/// saying why; the matcher's own test always runs.
///
/// A quote matches when, ignoring spacing only, it is the article's text, capitals and
/// punctuation as the article writes them: `…` marks an omission, so the pieces on either side
/// must appear in that order with anything between them; `[…]` marks an editorial correction,
/// left out of the match (and a gap, as the article's own words stand there). A quote begins
/// where a sentence of the article begins and ends where it ends, unless `…` marks the cut. A figure is the article's when its number is written, as a
/// number of its own, in the article within ``ArticleWords/nearness`` characters of the quote.
@Suite(.serialized, .oneAtATime) struct ArticleWordsTests {
    /// Every quote the project shows as the article's words: claims and corrections, by experiment.
    static var quotes: [(experiment: Experiment, file: String, quote: String)] {
        articleExperiments.flatMap { experiment in
            (experiment.claim.quote.map { [(experiment, experiment.claim.file ?? experiment.source.file, $0)] } ?? [])
                + experiment.articleCorrections.map { (experiment, $0.file ?? experiment.source.file, $0.quote) }
        }
    }

    @Test(.articlesBesideTheCheckout) func everyQuoteIsTheArticlesWords() throws {
        for (experiment, file, quote) in Self.quotes {
            let found = try ArticleWords.article(file).find(quote) != nil
            #expect(found, "\(experiment.name): not verbatim in \(file): \(quote)")
        }
    }

    /// Every section opens with a heading of its article and quotes only headings (see
    /// ``ArticleSource/section``), each found as the article writes it.
    @Test(.articlesBesideTheCheckout) func everySectionNamesTheArticlesHeadings() throws {
        for experiment in articleExperiments {
            let file = experiment.source.file
            let section = experiment.source.section
            let opening = try ArticleWords.article(file).openingHeading(of: section)
            #expect(opening != nil, "\(experiment.name): “\(section)” does not open with a heading of \(file)")
            for (number, heading) in ArticleWords.quotedHeadings(in: section, ownNumber: String(file.prefix(3))) {
                let found = try ArticleWords.article(ArticleWords.file(numbered: number)).headings.contains(heading)
                #expect(found, "\(experiment.name): “\(heading)” is not a heading of article \(number)")
            }
        }
    }

    /// The heading reader itself: a line of its own that ends no sentence is a heading; a section
    /// opens with one, and names others in quotes, each in the article whose number precedes it.
    @Test func theHeadingReaderAcceptsOnlyWholeHeadings() {
        let article = ArticleWords(
            text: "Title\n\nDependencies ( dependencies)\nThe queue waits.\nExperiment 1. Creating a Queue\nIt ends:\n")
        #expect(article.headings == ["Title", "Dependencies ( dependencies)", "Experiment 1. Creating a Queue"])
        #expect(article.openingHeading(of: "Dependencies ( dependencies)") == "Dependencies ( dependencies)")
        #expect(article.openingHeading(of: "Dependencies ( dependencies): a cycle") != nil)
        #expect(article.openingHeading(of: "Experiment 1. Creating a Queue (printerQueue)") != nil)
        #expect(article.openingHeading(of: "Dependencies") == nil, "a heading cut short")
        #expect(article.openingHeading(of: "Experiment 1: Creating a Queue") == nil, "a paraphrase")
        #expect(article.openingHeading(of: "The queue waits") == nil, "a sentence, not a heading")
        #expect(article.openingHeading(of: "Titles") == nil, "a heading with more letters")
        let quoted = ArticleWords.quotedHeadings(
            in: "Cancellation; “Dependencies” (003: “依赖”, “取消”; 000 “Asynchronous operation”)", ownNumber: "004")
        #expect(
            quoted.map { "\($0.number) \($0.heading)" } == [
                "004 Dependencies", "003 依赖", "003 取消", "000 Asynchronous operation",
            ])
    }

    /// task-overhead's table sets the article's words beside each mechanism's figures.
    @Test(.articlesBesideTheCheckout) func theOverheadTableQuotesTheArticle() throws {
        let article = try ArticleWords.article(taskOverhead.source.file)
        for mechanism in OverheadMechanism.allCases where !mechanism.articleSays.hasPrefix("—") {
            #expect(article.find(mechanism.articleSays) != nil, "\(mechanism.rawValue): \(mechanism.articleSays)")
        }
    }

    @Test(.articlesBesideTheCheckout) func everyFigureIsWrittenNearItsQuote() throws {
        for experiment in articleExperiments {
            guard let seconds = experiment.claim.seconds else { continue }
            guard let quote = experiment.claim.quote else {
                Issue.record("\(experiment.name): a figure of \(seconds) s with no words of the article's to hold it")
                continue
            }
            let file = experiment.claim.file ?? experiment.source.file
            let article = try ArticleWords.article(file)
            let span = try #require(article.find(quote), "\(experiment.name): quote not found")
            let written = article.writesNumber(seconds, near: span)
            #expect(
                written,
                "\(experiment.name): \(seconds.decimalText) is not in \(file) within \(ArticleWords.nearness) characters of the quote"
            )
        }
    }

    /// The Swift-concurrency counterparts restate an Operation experiment: the article says
    /// nothing about a TaskGroup, so none of them is credited with its words or its figure.
    @Test func counterpartsHaveNoWordsOrFigureOfTheArticles() {
        let counterparts = articleExperiments.filter { $0.source.section.hasSuffix("(Swift concurrency counterpart)") }
        #expect(counterparts.count == 6)
        for experiment in counterparts {
            #expect(experiment.claim.quote == nil, "\(experiment.name)")
            #expect(experiment.claim.seconds == nil, "\(experiment.name)")
        }
    }

    /// The matcher itself: what it accepts and what it refuses.
    @Test func theMatcherIgnoresOnlySpacing() {
        let article = ArticleWords(
            text:
                "So, the operation sumOperationtakes a little more than 5 seconds. Now we will try to destroy it, 2 seconds after the start."
        )
        #expect(article.find("So, the operation sumOperation takes a little more than 5 seconds.") != nil)
        #expect(article.find("So, the operation … 2 seconds after the start.") != nil)
        #expect(article.find("Now we will try to destroy [the operation], 2 seconds after the start") != nil)
        #expect(article.find("So, the operation takes a little more than 5 seconds.") == nil, "a silent cut")
        #expect(
            article.find("So — the operation sumOperation takes a little more than 5 seconds.") == nil,
            "punctuation changed")
        #expect(
            article.find("so, the operation sumOperation takes a little more than 5 seconds.") == nil,
            "capitals changed")
        #expect(
            article.find("Now we will try to destroy it, 2 seconds after the start!") == nil,
            "closing punctuation changed")
        #expect(article.find("2 seconds … the operation") == nil, "out of order")
        #expect(
            article.find("Now we will try to destroy the operation, 2 seconds after the start") == nil,
            "an unmarked correction")
        let span = article.find("Now we will try to destroy it, 2 seconds after the start.")!
        #expect(article.writesNumber(5, near: span))
        #expect(article.writesNumber(2, near: span))
        #expect(!article.writesNumber(1, near: span))
        #expect(!article.writesNumber(0.5, near: span), "not a number inside another")
    }

    /// A quote begins where a sentence begins, or says with `…` that it does not.
    @Test func theMatcherRefusesASilentCutAtTheStart() {
        let article = ArticleWords(
            text:
                "We see that it takes a very short time.\nWhat is the matter?But the fact is that cancel() only sets a flag: nothing else."
        )
        #expect(
            article.find("It takes a very short time.") == nil, "opening words dropped and the next one capitalised")
        #expect(article.find("it takes a very short time.") == nil, "opening words dropped without …")
        #expect(article.find("…it takes a very short time.") != nil)
        #expect(article.find("We see that it takes a very short time.") != nil)
        #expect(article.find("What is the matter?") != nil, "after a line break")
        #expect(
            article.find("But the fact is that cancel() only sets a flag:") != nil,
            "after a question mark, even unspaced")
        #expect(article.find("Nothing else.") == nil)
        #expect(article.find("nothing else.") != nil, "after a colon")
        #expect(article.find("The fact is that cancel() only sets a flag") == nil)
    }

    /// A quote ends where a sentence ends, or says with `…` that it does not.
    @Test func theMatcherRefusesASilentCutAtTheEnd() {
        let article = ArticleWords(
            text:
                "The operation is a one-time thing, so it makes sense to create subclasses. We get images 1, 3 and 4:\n"
        )
        #expect(article.find("The operation is a one-time thing") == nil)
        #expect(article.find("The operation is a one-time thing…") != nil)
        #expect(
            article.find("The operation is a one-time thing, so it makes sense to create subclasses") != nil,
            "its full stop left out")
        #expect(article.find("We get images 1, 3 and 4") != nil, "at a line break")
        #expect(article.find("We get images 1, 3 and 4.") == nil, "a colon made a full stop")
        #expect(article.find("We get images 1, 3 and 4:") != nil)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs a test only where the article texts are found; elsewhere (a clone with nothing beside
    /// it) the test is reported as skipped, with this reason.
    static var articlesBesideTheCheckout: Self {
        .enabled(
            if: ArticleWords.located != nil,
            "the article texts are not beside this checkout (no shared/articles above it, RUN_EXPERIMENTS_ARTICLES unset): the quotes are not compared"
        )
    }
}

/// One article's text, searchable as the test above defines.
struct ArticleWords {
    /// How many characters of the article's text, either side of a quote, count as near it:
    /// about two sentences, so a figure is the one the quoted passage talks about.
    static let nearness = 300

    /// What ends a sentence, and so what a sentence begins after (a line break does both).
    static let sentenceEnds: Set<Character> = [".", "!", "?", ":"]

    let text: [Character]
    /// The text without its spacing: every other character, as written, each with its offset in `text`.
    let glyphs: [Character]
    let offsets: [Int]

    init(text: String) {
        self.text = Array(text)
        var glyphs: [Character] = [], offsets: [Int] = []
        for (offset, character) in self.text.enumerated() where !character.isWhitespace {
            glyphs.append(character)
            offsets.append(offset)
        }
        self.glyphs = glyphs
        self.offsets = offsets
    }

    /// Each article read and indexed once per test process: its letters are walked character by
    /// character, which costs a tenth of a second an article in a debug build, and the tests
    /// look up some articles a dozen times.
    private static let read = Mutex<[String: ArticleWords]>([:])

    static func article(_ file: String) throws -> ArticleWords {
        if let known = read.withLock({ $0[file] }) { return known }
        let article = ArticleWords(
            text: try String(contentsOf: directory().appendingPathComponent(file), encoding: .utf8))
        read.withLock { $0[file] = article }
        return article
    }

    static func directory() throws -> URL {
        guard let directory = located else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "shared/articles above \(#filePath)"])
        }
        return directory
    }

    /// The articles' folder: `RUN_EXPERIMENTS_ARTICLES` when set, else `shared/articles` in the
    /// nearest folder above this file that holds one; nil when there is none.
    static let located: URL? = locate(environment: ProcessInfo.processInfo.environment)

    static func locate(environment: [String: String], from file: String = #filePath) -> URL? {
        if let given = environment["RUN_EXPERIMENTS_ARTICLES"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        var folder = URL(fileURLWithPath: file).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/articles")
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) {
                return candidate
            }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// The article's headings: each line of its own (spacing at its ends aside) that no
    /// sentence's end closes, as a heading stands in these texts.
    var headings: Set<String> {
        Set(
            String(text).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
                guard let last = line.last else { return false }
                return !Self.sentenceEnds.contains(last) && !",;".contains(last)
            })
    }

    /// The heading `section` opens with: the whole section, or the start of it that the
    /// project's own words follow after `: `, ` (`, `; ` or `, `; nil when it opens with none.
    func openingHeading(of section: String) -> String? {
        let separators = [": ", " (", "; ", ", "]
        return headings.filter { heading in
            section == heading || separators.contains { section.hasPrefix(heading + $0) }
        }.max { $0.count < $1.count }
    }

    /// The headings a section quotes (“…”), each with the number of the article whose number
    /// comes last before it, or `ownNumber` when none does.
    static func quotedHeadings(in section: String, ownNumber: String) -> [(number: String, heading: String)] {
        var number = ownNumber, found: [(number: String, heading: String)] = []
        let tokens = try! NSRegularExpression(pattern: #"\b(\d{3})\b|“([^”]+)”"#)
        let whole = section as NSString
        for match in tokens.matches(in: section, range: NSRange(location: 0, length: whole.length)) {
            if match.range(at: 1).location != NSNotFound {
                number = whole.substring(with: match.range(at: 1))
            } else {
                found.append((number, whole.substring(with: match.range(at: 2))))
            }
        }
        return found
    }

    /// The text file of the article with this number (`004`), found in the articles' folder.
    static func file(numbered number: String) throws -> String {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory().path)
        guard let file = files.sorted().first(where: { $0.hasPrefix(number + "_") && $0.hasSuffix(".txt") }) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "\(number)_*.txt in the articles' folder"])
        }
        return file
    }

    /// The quote's pieces: split at `…` and at `[corrections]`, the corrections left out, the
    /// spacing removed.
    static func pieces(_ quote: String) -> [[Character]] {
        var pieces: [[Character]] = [[]], inCorrection = false
        for character in quote {
            switch character {
            case "…": pieces.append([])
            case "[": inCorrection = true; pieces.append([])
            case "]": inCorrection = false
            default:
                if !inCorrection, !character.isWhitespace { pieces[pieces.count - 1].append(character) }
            }
        }
        return pieces.filter { !$0.isEmpty }
    }

    /// Where the quote stands in the text (offsets of its first and last character), or nil.
    ///
    /// A quote is the article's words when, spacing aside, each piece is written as the article
    /// writes it (case and punctuation too), the pieces in order; when it begins where a
    /// sentence of the article begins, unless it opens with `…` (or an editorial `[…]`); and when
    /// it ends where that sentence ends, unless it closes with `…`.
    func find(_ quote: String) -> ClosedRange<Int>? {
        let pieces = Self.pieces(quote)
        guard let head = pieces.first else { return nil }
        let trimmed = quote.trimmingCharacters(in: .whitespaces)
        let cutAtStart = trimmed.hasPrefix("…") || trimmed.hasPrefix("[")
        let cutAtEnd = trimmed.hasSuffix("…")
        var candidate = 0
        while let start = index(of: head, from: candidate) {
            candidate = start + 1
            guard cutAtStart || beginsSentence(offsets[start]) else { continue }
            guard pieces.count > 1 else {
                if cutAtEnd || endsSentence(offsets[start + head.count - 1]) {
                    return offsets[start]...offsets[start + head.count - 1]
                }
                continue
            }
            var from = start + head.count
            for piece in pieces.dropFirst().dropLast() {
                guard let next = index(of: piece, from: from) else { return nil }
                from = next + piece.count
            }
            // The last piece where it ends a sentence, if any of its places does.
            let tail = pieces[pieces.count - 1]
            while let next = index(of: tail, from: from) {
                let last = next + tail.count - 1
                if cutAtEnd || endsSentence(offsets[last]) { return offsets[start]...offsets[last] }
                from = next + 1
            }
        }
        return nil
    }

    /// Whether a sentence begins at `offset`: nothing but spacing and opening quotation marks
    /// stand between it and the start of the text, a line break, or the end of a sentence.
    func beginsSentence(_ offset: Int) -> Bool {
        var before = offset - 1
        while before >= 0, text[before] != "\n", text[before].isWhitespace || "“\"‘'(«".contains(text[before]) {
            before -= 1
        }
        return before < 0 || text[before] == "\n" || Self.sentenceEnds.contains(text[before])
    }

    /// Whether a sentence ends at `offset`: it is the end of a sentence, or nothing but spacing
    /// and closing quotation marks stand between it and one, a line break or the end of the text.
    func endsSentence(_ offset: Int) -> Bool {
        if Self.sentenceEnds.contains(text[offset]) { return true }
        var after = offset + 1
        while after < text.count, text[after] != "\n", text[after].isWhitespace || "”\"’')»".contains(text[after]) {
            after += 1
        }
        return after == text.count || text[after] == "\n" || Self.sentenceEnds.contains(text[after])
    }

    private func index(of piece: [Character], from: Int) -> Int? {
        guard piece.count <= glyphs.count - from else { return nil }
        var start = from
        while start + piece.count <= glyphs.count {
            if glyphs[start] == piece[0], Array(glyphs[start..<(start + piece.count)]) == piece { return start }
            start += 1
        }
        return nil
    }

    /// Whether `number` is written as a number of its own (not a part of another) within
    /// ``nearness`` characters of `span`.
    func writesNumber(_ number: Double, near span: ClosedRange<Int>) -> Bool {
        let window = String(
            text[max(0, span.lowerBound - Self.nearness)..<min(text.count, span.upperBound + 1 + Self.nearness)])
        let pattern =
            #"(?<![0-9.,])"# + NSRegularExpression.escapedPattern(for: number.decimalText) + #"(?![0-9]|[.,][0-9])"#
        return window.range(of: pattern, options: .regularExpression) != nil
    }
}
