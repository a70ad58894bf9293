import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentReports
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import Experiments

/// Text, Markdown, HTML and JSON say the same about the article for every registered
/// experiment: its words (or "—" / null), its figure (or "—" / null, also off the article's
/// setting), and the places where it is corrected. Predictions only: nothing runs.
@Suite(.serialized, .oneAtATime) struct ArticleAgreementTests {
    static let host = HostMachine(cpus: 2, os: "Linux", swift: "6.3")

    /// The experiment as the runner would report it with `settings` (`--set`), unrun.
    static func result(_ experiment: Experiment, settings: [String: String] = [:], scale: Double = 0.5) throws
        -> ExperimentResult
    {
        let values = try experiment.parameters(overriding: settings)
        func predict(_ kind: PlatformProfile.Kind) -> Prediction {
            var prediction = Scheduler.predict(
                experiment.workload(values), profile: PlatformProfile(kind: kind, cpus: 2), timeScale: scale)
            prediction.parameters = values
            return prediction
        }
        return ExperimentResult(
            experiment: experiment, prediction: predict(.linux), applePrediction: predict(.apple), measurement: nil,
            verdict: .predicted, reason: nil, checks: [])
    }

    /// Every registered experiment at its defaults, predicted and rendered in every format once
    /// for the tests that read them all (a third of a second each time in the debug build).
    static let registry = Result { try articleExperiments.map { try Rendered(result($0)) } }

    /// Every format of one result.
    struct Rendered {
        var result: ExperimentResult
        var text: String, markdown: String, html: String
        /// The JSON document as written; ``json`` reads its experiment.
        var document: String

        init(_ result: ExperimentResult) {
            self.result = result
            let renderer = TextRenderer(colour: false)
            let conditions = RunConditions(host: host, timeScale: result.prediction.timeScale, profile: .linux)
            text = renderer.section(result, position: 1, count: 1) + renderer.summary([result], conditions: conditions)
            markdown = MarkdownRenderer.render([result], conditions: conditions)
            html = HTMLReport.render(
                [result], conditions: conditions, reportDirectory: FileManager.default.temporaryDirectory)
            document = JSONWriter.write(JSONRenderer.document([result], conditions: conditions))
        }

        /// The document's one experiment.
        var json: [String: Any] {
            get throws {
                let object = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String: Any]
                return try #require((object?["experiments"] as? [[String: Any]])?.first)
            }
        }

        /// The text with every run of spaces and line breaks as one space, so wrapped lines read on.
        var flatText: String { Self.flat(text) }

        static func flat(_ text: String) -> String {
            text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }

        /// The article column of each format's summary row, and of the text's comparison table.
        var figures: [String] {
            let textRow = text.split(separator: "\n").first { $0.hasPrefix("  total ") }.map { cells(String($0)) } ?? []
            let markdownRow =
                markdown.split(separator: "\n").first {
                    $0.hasPrefix("| ") && !$0.hasPrefix("| experiment") && !$0.hasPrefix("| ---")
                }
                .map { $0.components(separatedBy: " | ") } ?? []
            let htmlRow =
                html.split(separator: "\n").first { $0.contains("<tr><td><a href=") }
                .map {
                    String($0).components(separatedBy: "<td").dropFirst().map {
                        $0.drop { $0 != ">" }.dropFirst().prefix { $0 != "<" }
                    }
                } ?? []
            return [
                textRow.count > 1 ? textRow[1] : "?", markdownRow.count > 1 ? markdownRow[1] : "?",
                htmlRow.count > 1 ? String(htmlRow[1]) : "?",
            ]
        }

        func cells(_ line: String) -> [String] {
            line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }

        var jsonArticle: [String: Any] {
            get throws { try json["article"] as? [String: Any] ?? [:] }
        }
    }

    @Test func everyFormatShowsTheSameWords() throws {
        for rendered in try Self.registry.get() {
            let experiment = rendered.result.experiment
            let words = ArticleText.quote(experiment.claim)
            #expect(rendered.flatText.contains("Article " + Rendered.flat(words)), "\(experiment.name): text")
            #expect(rendered.markdown.contains("> " + words.markdownEscaped + "\n"), "\(experiment.name): Markdown")
            #expect(rendered.html.contains("<p>" + words.markupEscaped + "</p>"), "\(experiment.name): HTML")
            if let quote = experiment.claim.quote {
                #expect(try rendered.jsonArticle["claim"] as? String == quote, "\(experiment.name): JSON")
                #expect(words.hasPrefix("“" + quote + "”"))
            } else {
                #expect(try rendered.jsonArticle["claim"] is NSNull, "\(experiment.name): JSON")
                #expect(words == "—")
            }
        }
    }

    @Test func everyFormatShowsTheSameFigure() throws {
        for rendered in try Self.registry.get() {
            let experiment = rendered.result.experiment
            let expected = experiment.claim.seconds.map { Format.seconds($0 * 0.5) } ?? "—"
            #expect(rendered.figures == [expected, expected, expected], "\(experiment.name)")
            let article = try rendered.jsonArticle
            #expect(
                article["seconds"] as? Double == experiment.claim.seconds.map { $0 * 0.5 }, "\(experiment.name): JSON")
            #expect(experiment.claim.seconds != nil || article["seconds"] is NSNull, "\(experiment.name): JSON null")
        }
    }

    @Test func everyFormatShowsTheSameCorrections() throws {
        for rendered in try Self.registry.get() {
            let experiment = rendered.result.experiment
            let json = try rendered.json["articleCorrections"] as? [[String: String]] ?? []
            #expect(
                json.map { $0["sentence"] } == experiment.articleCorrections.map(\.sentence), "\(experiment.name): JSON"
            )
            for correction in experiment.articleCorrections {
                #expect(
                    rendered.flatText.contains("Errata " + Rendered.flat(correction.sentence)),
                    "\(experiment.name): text")
                #expect(
                    rendered.markdown.contains("Errata: " + correction.sentence.markdownEscaped + "\n"),
                    "\(experiment.name): Markdown")
                #expect(
                    rendered.html.contains("<strong>Errata:</strong> " + correction.sentence.markupEscaped + "</p>"),
                    "\(experiment.name): HTML")
            }
        }
        // The cases the articles get wrong, each said where the experiment shows it.
        let corrected = Set(articleExperiments.filter { !$0.articleCorrections.isEmpty }.map(\.name))
        #expect(
            corrected == [
                "cancellation-semantics", "completion-block-hand-off", "async-operation-pitfalls", "dependency-cycle",
                "is-asynchronous-thread", "dependent-of-cancelled", "update-waits-behind-background",
                "async-operation-super-start", "alert-finishes-at-once",
            ])
    }

    /// Every article an experiment names is one of the five the project cites, and every format
    /// cites it by number, title and author (the texts are not in the repository to look up).
    @Test func everyFormatCitesTheArticleByTitleAndAuthor() throws {
        for rendered in try Self.registry.get() {
            let experiment = rendered.result.experiment
            let files =
                [experiment.source.file] + [experiment.claim.file].compactMap { $0 }
                + experiment.articleCorrections.compactMap(\.file)
            for file in files {
                #expect(Article.read(from: file) != nil, "\(experiment.name): \(file) is none of the five articles")
            }
            let article = try #require(experiment.source.article)
            let citation =
                "article \(article.number), “\(article.title)” (\(article.author)), \(experiment.source.section)"
            #expect(rendered.flatText.contains("Source " + Rendered.flat(citation)), "\(experiment.name): text")
            #expect(
                rendered.markdown.contains("> — " + citation.markdownEscaped + "\n"), "\(experiment.name): Markdown")
            #expect(rendered.html.contains("— " + citation.markupEscaped + "</p>"), "\(experiment.name): HTML")
            let source = try rendered.json["source"] as? [String: Any] ?? [:]
            #expect(
                source["title"] as? String == article.title && source["author"] as? String == article.author,
                "\(experiment.name): JSON")
        }
        #expect(Set(Article.all.map(\.number)).count == 5)
    }

    /// `--set` compares with the article's value, not with the default: cancellation-at-2s cancels
    /// at 1.75 s by default (clear of the race), and `cancel-at=2` is the article's own value.
    @Test(arguments: [
        (["cancel-at": "2"], "cancel-at=2, pairs=5 (the article's)"),
        (["cancel-at": "2.0"], "cancel-at=2, pairs=5 (the article's)"),
        (
            ["cancel-at": "1.75"],
            "cancel-at=1.75 (chosen here: the article's 2 s less a quarter of a sum, clear of the race), pairs=5 (the article's)"
        ),
        (
            [:],
            "cancel-at=1.75 (chosen here: the article's 2 s less a quarter of a sum, clear of the race), pairs=5 (the article's)"
        ),
        (["cancel-at": "3"], "cancel-at=3 (set here), pairs=5 (the article's); not the article's setting"),
        (
            ["pairs": "4"],
            "cancel-at=1.75 (chosen here: the article's 2 s less a quarter of a sum, clear of the race), pairs=4 (set here); not the article's setting"
        ),
        (
            ["cancel-at": "2", "pairs": "4"],
            "cancel-at=2 (the article's), pairs=4 (set here); not the article's setting"
        ),
    ])
    func settingsAreComparedWithTheArticlesValue(settings: [String: String], line: String) throws {
        let isArticles = !line.hasSuffix("not the article's setting")
        let result = try Self.result(cancellationAtTwoSeconds, settings: settings)
        let rendered = Rendered(result)
        let figure = isArticles ? Format.seconds(2 * 0.5) : "—"
        #expect(rendered.figures == [figure, figure, figure], "\(settings)")
        let article = try rendered.jsonArticle
        #expect(article["seconds"] as? Double == (isArticles ? 1.0 : nil), "\(settings)")
        #expect(isArticles || article["seconds"] is NSNull)
        #expect(rendered.flatText.contains("Settings " + line), "\(settings): \(rendered.flatText)")
    }

    /// The article column holds only a total the article states for the experiment's own run:
    /// not the instant of a cancel (the progress experiments), nor the length of another run
    /// (cancellation-ignored's 5 s is the run before any cancel).
    @Test func theArticleColumnHoldsOnlyTotalsTheArticleStates() {
        let figures = Dictionary(
            uniqueKeysWithValues: articleExperiments.compactMap { experiment in
                experiment.claim.seconds.map { (experiment.name, $0) }
            })
        #expect(
            figures == [
                "concurrent-printer-queue": 2, "printer-queue-max-2": 8, "qos-ordering": 8, "serial-queue": 16,
                "cancellation-at-2s": 2, "filter-images": 1.19, "four-images": 10,
            ])
    }

    /// "(the article's)" marks only values the article states: the instants moved clear of a
    /// race or of a sum's end, and the four images' latencies, say they are chosen here.
    @Test func valuesTheArticleDoesNotStateSayTheyAreChosenHere() throws {
        var chosen: Set<String> = []
        for experiment in articleExperiments {
            for spec in experiment.parameters {
                guard case .chosen(let why, _) = spec.origin else { continue }
                chosen.insert("\(experiment.name) \(spec.key)")
                #expect(!why.isEmpty, "\(experiment.name) \(spec.key): chosen, and why")
            }
        }
        let latencies = ["eiffel-tower", "venice", "screenshot", "arctic-12"].map { "latency.\($0)" }
        let expected =
            [
                "cancellation-at-2s", "cancellation-progress-at-2s", "cancellation-progress-at-4s",
                "group-cancellation-at-500ms", "group-cancellation-at-1500ms",
            ].map { "\($0) cancel-at" }
            + ["four-images", "four-images-cancel-6s"].flatMap { name in latencies.map { "\(name) \($0)" } }
        #expect(chosen == Set(expected))
        let rendered = try Rendered(Self.result(groupCancellationEarly))
        #expect(
            rendered.flatText.contains(
                "Settings cancel-at=0.5 (chosen here: the article's 1 s moved away from any sum's end, so the outcome is certain), pairs=5, width=2 (the article's)"
            ))
        #expect(rendered.markdown.contains("(chosen here: the article's 1 s moved away from any sum's end"))
        let origins = try #require(rendered.json["parameterOrigins"] as? [String: String])
        #expect(
            origins == [
                "cancel-at": "chosen here: the article's 1 s moved away from any sum's end, so the outcome is certain",
                "pairs": "the article's", "width": "the article's",
            ])
    }

    /// The same through the command line a user types: `--set cancel-at=2` shows the article's
    /// figure in the text and in the JSON (the verdict is not what this test is about).
    @Test func theArticlesOwnValueShowsItsFigureEndToEnd() throws {
        let arguments = ["cancellation-at-2s", "--set", "cancel-at=2", "--time-scale", "0.05"]
        let text = try BuiltBinary.run(arguments)
        #expect(text.stdout.contains("cancel-at=2, pairs=5 (the article's)"), "\(text.stdout)")
        let described = try BuiltBinary.run(["describe", "four-images-cancel-6s", "--format", "json"])
        let parameters = try #require(
            (try JSONSerialization.jsonObject(with: Data(described.stdout.utf8)) as? [String: Any])?["parameters"]
                as? [[String: Any]])
        let origins = parameters.map {
            ($0["key"] as? String ?? "", ($0["origin"] as? [String: Any])?["kind"] as? String ?? "")
        }
        #expect(
            origins.filter { $0.0.hasPrefix("latency.") }.allSatisfy { $0.1 == "chosen" }
                && origins.last?.1 == "article", "\(origins)")
        #expect(
            try BuiltBinary.run(["describe", "four-images-cancel-6s"]).stdout.contains(
                "chosen here: the article states none"))
        let totalRow = text.stdout.split(separator: "\n").first { $0.hasPrefix("  total ") }
        #expect(totalRow?.split(separator: " ").dropFirst().first == "0.10", "\(totalRow ?? "")")
        let json = try BuiltBinary.run(arguments + ["--format", "json"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let experiment = try #require((document?["experiments"] as? [[String: Any]])?.first)
        #expect((experiment["article"] as? [String: Any])?["seconds"] as? Double == 0.1)
    }
}
