import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentResults
@testable import ExperimentRunner

/// Parameters and outcomes read back by typed keys, and notes beside checks.
@Suite(.serialized, .oneAtATime) struct TypedKeysTests {
    func parameters(_ overrides: [String: String]) throws -> Parameters {
        try KnobsExperiment.experiment.parameters(overriding: overrides)
    }

    @Test func defaultsAndOverridesReadTyped() throws {
        let defaults = try parameters([:])
        #expect(defaults[KnobsExperiment.pairs] == 5 && defaults[KnobsExperiment.cancelAt] == 1.75)
        #expect(defaults[KnobsExperiment.width] == .limited(2) && defaults[KnobsExperiment.qos] == .utility)
        let set = try parameters(["pairs": "3", "cancel-at": "2.0", "width": "default", "qos": "background"])
        #expect(
            set[KnobsExperiment.pairs] == 3 && set[KnobsExperiment.cancelAt] == 2
                && set[KnobsExperiment.width] == .default && set[KnobsExperiment.qos] == .background)
        // "2.0" is read as the number 2, the article's value.
        #expect(set.values.first { $0.key == "cancel-at" }?.value == .seconds(2) && set.origins[1] == .article)
        #expect(
            set[KnobsExperiment.width].maxConcurrentOperationCount == OperationQueue.defaultMaxConcurrentOperationCount)
    }

    @Test func theWidthLimitIsThePlatformModelsLimit() {
        let limit = PlatformProfile.maximumWorkers
        #expect(throws: UsageError("'\(limit + 1)' is not a valid value for 'width': 1 to \(limit), or default.")) {
            try parameters(["width": String(limit + 1)])
        }
        #expect(throws: UsageError("'nan' is not a valid value for 'cancel-at': article seconds from 0.1 to 20.")) {
            try parameters(["cancel-at": "nan"])
        }
        #expect(throws: UsageError.self) { try parameters(["pairs": "11"]) }
        #expect(throws: UsageError.self) { try parameters(["qos": "fast"]) }
    }

    /// A value is marked the article's only where the article states it: a chosen default says
    /// so and why, and a value set on the command line says that.
    @Test func eachValueSaysWhereItComesFrom() throws {
        let defaults = try parameters([:])
        #expect(defaults.origins == [.article, .chosen(why: "clear of the race"), .article, .article])
        #expect(
            ArticleText.settingsLine(defaults)
                == "pairs=5 (the article's), cancel-at=1.75 (chosen here: clear of the race), width=2, qos=utility (the article's)"
        )
        let articles = try parameters(["cancel-at": "2"])
        #expect(articles.origins.allSatisfy { $0 == .article } && articles.isArticleSetting)
        #expect(ArticleText.settingsLine(articles) == "pairs=5, cancel-at=2, width=2, qos=utility (the article's)")
        let set = try parameters(["cancel-at": "3"])
        #expect(set.origins[1] == .set && !set.isArticleSetting)
        #expect(
            ArticleText.settingsLine(set)
                == "pairs=5 (the article's), cancel-at=3 (set here), width=2, qos=utility (the article's); not the article's setting, so its figure is not shown"
        )
        let chosenOnly = ParameterSpec.seconds(
            KnobsExperiment.cancelAt, summary: "cancel", default: 0.5,
            origin: .chosen("away from a sum's end", insteadOf: Double?.none), range: 0.1...20)
        #expect(
            chosenOnly.articleValue == nil
                && chosenOnly.origin(of: .seconds(0.5)) == .chosen(why: "away from a sum's end")
                && chosenOnly.origin(of: .seconds(1)) == .set)
    }

    /// `--set` values are parsed once, for the selected experiments: each gets its typed values,
    /// and a value refused or a key no experiment declares is the usage error, never a default.
    @Test func settingsAreParsedOnceForTheSelection() throws {
        let plain = Experiment("plain", source: ArticleSource(file: "f", section: "s")) { _ in }
            .title("plain")
            .summary("s")
            .expectedOutcome("o")
            .platformDifference("d")
        let settings = try ParameterSettings(
            ["width": "3", "qos": "background"], for: [KnobsExperiment.experiment, plain])
        let knobs = settings.parameters(of: KnobsExperiment.experiment)
        #expect(
            knobs[KnobsExperiment.width] == .limited(3) && knobs[KnobsExperiment.qos] == .background
                && knobs[KnobsExperiment.pairs] == 5)
        #expect(knobs.origins == [.article, .chosen(why: "clear of the race"), .set, .set])
        #expect(settings.parameters(of: plain).values.isEmpty)
        #expect(
            throws: UsageError(
                "'0' is not a valid value for 'width': 1 to \(PlatformProfile.maximumWorkers), or default.")
        ) {
            try ParameterSettings(["width": "0"], for: [plain, KnobsExperiment.experiment])
        }
        #expect(
            throws: UsageError(
                "No selected experiment has a parameter 'depth' (valid keys: cancel-at, pairs, qos, width).")
        ) {
            try ParameterSettings(["depth": "1", "width": "3"], for: [KnobsExperiment.experiment])
        }
        #expect(
            throws: UsageError("No selected experiment has a parameter 'width' (the selected experiments take none).")
        ) {
            try ParameterSettings(["width": "3"], for: [plain])
        }
    }

    /// The child's request carries the values typed: it reads back the very values the runner
    /// parsed, and a value its knob refuses does not make a request.
    @Test func theChildReceivesTypedValues() throws {
        let values = try parameters(["width": "default", "cancel-at": "2.5", "pairs": "7"])
        let request = ChildProcess.Request(
            experiment: KnobsExperiment.experiment.name, timeScale: 1, parameters: values)
        let received = try #require(ChildProcess.Request(argument: request.argument))
        #expect(received.parameters == values && received.parameters.origins == values.origins)
        #expect(
            received.parameters[KnobsExperiment.width] == .default
                && received.parameters[KnobsExperiment.cancelAt] == 2.5
                && received.parameters[KnobsExperiment.pairs] == 7)
        let narrow = ChildProcess.Request(
            experiment: KnobsExperiment.experiment.name, timeScale: 1, parameters: try parameters(["width": "3"])
        ).argument
        #expect(narrow.contains(#"{"width":3}"#))
        let tooWide = narrow.replacingOccurrences(
            of: #"{"width":3}"#, with: #"{"width":\#(QueueWidth.limits.upperBound + 1)}"#)
        #expect(ChildProcess.Request(argument: tooWide) == nil)
        let planning = PlanChild.Request(experiments: [
            .init(experiment: KnobsExperiment.experiment.name, parameters: values)
        ])
        #expect(PlanChild.Request(argument: planning.argument) == planning)
    }

    @Test func outcomesReadTyped() {
        var outcome = Outcome()
        outcome.set(.images, ["a.png", "b.png"])
        #expect(outcome[.images] == ["a.png", "b.png"])
        #expect(outcome["images"] == .strings(["a.png", "b.png"]))
        outcome.set("images", .number(1))
        #expect(outcome[.images] == nil, "a field of another type is not read as images")
    }

    @Test func aNoteIsNotACheck() {
        let note = Check.note("the race, measured")
        #expect(note.isNote && note.passed && note.mark == "·")
        #expect(Check("held", passed: true).mark == "✓" && Check("did not", passed: false).mark == "✗")
        #expect(!Check("held", passed: true).isNote)
    }
}
