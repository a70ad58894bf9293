import Foundation
import Synchronization
import Testing
@testable import ExperimentKit
@testable import Experiments

/// The articles' words as the project shows them, checked against the articles themselves.
///
/// The article texts are not part of the repository: they are found in a folder `shared/articles`
/// above the checkout (where the project's CI lays them), or at the path in the environment
/// variable `RUN_EXPERIMENTS_ARTICLES`. Without them, the tests that read them are skipped, each
/// saying why; the matcher's own test always runs.
///
/// A quote matches when, ignoring case, spacing and punctuation only, it is the article's text:
/// `…` marks an omission, so the pieces on either side must appear in that order with anything
/// between them; `[…]` marks an editorial correction, left out of the match (and a gap, as the
/// article's own words stand there). A figure is the article's when its number is written, as a
/// number of its own, in the article within ``ArticleWords/nearness`` characters of the quote.
@Suite struct ArticleWordsTests {
    /// Every quote the project shows as the article's words: claims and corrections, by experiment.
    static var quotes: [(experiment: Experiment, file: String, quote: String)] {
        allExperiments.flatMap { experiment in
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

    /// task-overhead's table sets the article's words beside each mechanism's figures.
    @Test(.articlesBesideTheCheckout) func theOverheadTableQuotesTheArticle() throws {
        let article = try ArticleWords.article(taskOverhead.source.file)
        for mechanism in OverheadMechanism.allCases where !mechanism.articleSays.hasPrefix("—") {
            #expect(article.find(mechanism.articleSays) != nil, "\(mechanism.rawValue): \(mechanism.articleSays)")
        }
    }

    @Test(.articlesBesideTheCheckout) func everyFigureIsWrittenNearItsQuote() throws {
        for experiment in allExperiments {
            guard let seconds = experiment.claim.seconds else { continue }
            guard let quote = experiment.claim.quote else {
                Issue.record("\(experiment.name): a figure of \(seconds) s with no words of the article's to hold it")
                continue
            }
            let file = experiment.claim.file ?? experiment.source.file
            let article = try ArticleWords.article(file)
            let span = try #require(article.find(quote), "\(experiment.name): quote not found")
            let written = article.writesNumber(seconds, near: span)
            #expect(written, "\(experiment.name): \(Format.number(seconds)) is not in \(file) within \(ArticleWords.nearness) characters of the quote")
        }
    }

    /// The Swift-concurrency counterparts restate an Operation experiment: the article says
    /// nothing about a TaskGroup, so none of them is credited with its words or its figure.
    @Test func counterpartsHaveNoWordsOrFigureOfTheArticles() {
        let counterparts = allExperiments.filter { $0.source.section.hasSuffix("(Swift concurrency counterpart)") }
        #expect(counterparts.count == 6)
        for experiment in counterparts {
            #expect(experiment.claim.quote == nil, "\(experiment.name)")
            #expect(experiment.claim.seconds == nil, "\(experiment.name)")
        }
    }

    /// The matcher itself: what it accepts and what it refuses.
    @Test func theMatcherIgnoresOnlyCaseSpacingAndPunctuation() {
        let article = ArticleWords(text: "So, the operation sumOperationtakes a little more than 5 seconds. Now we will try to destroy it, 2 seconds after the start.")
        #expect(article.find("the operation sumOperation takes a little more than 5 seconds") != nil)
        #expect(article.find("SO — THE OPERATION") != nil)
        #expect(article.find("the operation … 2 seconds after the start") != nil)
        #expect(article.find("Now we will try to destroy [the operation], 2 seconds") != nil)
        #expect(article.find("the operation takes a little more than 5 seconds") == nil, "a silent cut")
        #expect(article.find("2 seconds … the operation") == nil, "out of order")
        #expect(article.find("Now we will try to destroy the operation, 2 seconds") == nil, "an unmarked correction")
        let span = article.find("Now we will try")!
        #expect(article.writesNumber(5, near: span))
        #expect(article.writesNumber(2, near: span))
        #expect(!article.writesNumber(1, near: span))
        #expect(!article.writesNumber(0.5, near: span), "not a number inside another")
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

    let text: String
    /// The text's letters and digits, lower-cased, each with its offset in `text`.
    let letters: [Character]
    let offsets: [Int]

    init(text: String) {
        self.text = text
        var letters: [Character] = [], offsets: [Int] = []
        for (offset, character) in text.enumerated() where character.isLetter || character.isNumber {
            letters.append(contentsOf: character.lowercased())
            offsets.append(contentsOf: Array(repeating: offset, count: character.lowercased().count))
        }
        self.letters = letters
        self.offsets = offsets
    }

    /// Each article read and indexed once per test process: its letters are walked character by
    /// character, which costs a tenth of a second an article in a debug build, and the tests
    /// look up some articles a dozen times.
    private static let read = Mutex<[String: ArticleWords]>([:])

    static func article(_ file: String) throws -> ArticleWords {
        if let known = read.withLock({ $0[file] }) { return known }
        let article = ArticleWords(text: try String(contentsOf: directory().appendingPathComponent(file), encoding: .utf8))
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
            if FileManager.default.fileExists(atPath: candidate.appendingPathComponent("README.md").path) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }

    /// The quote's pieces: split at `…` and at `[corrections]`, the corrections left out.
    static func pieces(_ quote: String) -> [[Character]] {
        var pieces: [[Character]] = [[]], inCorrection = false
        for character in quote {
            switch character {
            case "…": pieces.append([])
            case "[": inCorrection = true; pieces.append([])
            case "]": inCorrection = false
            default:
                if !inCorrection, character.isLetter || character.isNumber { pieces[pieces.count - 1].append(contentsOf: character.lowercased()) }
            }
        }
        return pieces.filter { !$0.isEmpty }
    }

    /// Where the quote stands in the text (offsets of its first and last letter), or nil.
    func find(_ quote: String) -> ClosedRange<Int>? {
        var from = 0, first: Int?, last = 0
        for piece in Self.pieces(quote) {
            guard let start = index(of: piece, from: from) else { return nil }
            first = first ?? start
            last = start + piece.count - 1
            from = last + 1
        }
        guard let first else { return nil }
        return offsets[first]...offsets[last]
    }

    private func index(of piece: [Character], from: Int) -> Int? {
        guard piece.count <= letters.count - from else { return nil }
        var start = from
        while start + piece.count <= letters.count {
            if letters[start] == piece[0], Array(letters[start..<(start + piece.count)]) == piece { return start }
            start += 1
        }
        return nil
    }

    /// Whether `number` is written as a number of its own (not a part of another) within
    /// ``nearness`` characters of `span`.
    func writesNumber(_ number: Double, near span: ClosedRange<Int>) -> Bool {
        let characters = Array(text)
        let window = String(characters[max(0, span.lowerBound - Self.nearness)..<min(characters.count, span.upperBound + 1 + Self.nearness)])
        let pattern = #"(?<![0-9.,])"# + NSRegularExpression.escapedPattern(for: Format.number(number)) + #"(?![0-9]|[.,][0-9])"#
        return window.range(of: pattern, options: .regularExpression) != nil
    }
}
