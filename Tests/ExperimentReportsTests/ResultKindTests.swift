import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentReports
@testable import ExperimentResults

/// Races and demonstrations read as what they are, and the Apple model's timeline sits beside
/// the measured one: from hand-made results, in text, Markdown, HTML, SVG and JSON.
@Suite(.serialized, .oneAtATime) struct ResultKindTests {
    /// A loop of five one-second sums that checks `isCancelled`, cancelled at 2 s, the instant
    /// the second sum ends: the model allows two sums or three.
    static func raceResult() -> ExperimentResult {
        var experiment = Experiment("tiny-race", source: ArticleSource(file: "000_test.txt", section: "Cancellation")) {
            _, _ in Outcome()
        }
        .title("A cancel on a sum's end")
        .summary("Five one-second sums, cancelled at 2 s.")
        .claim("We got 2 sums.", seconds: nil)
        .expectedOutcome("Two sums or three.")
        .platformDifference("One loop runs the same everywhere.")
        .plannedAs {
            var workload = Workload()
            let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
            let loop = workload.add(
                PlannedOperation(
                    label: "sum loop", articleSeconds: 1, executor: .queue(queue), steps: 5, checksCancellation: true))
            workload.cancel(.operation(loop), atArticleSeconds: 2)
            return workload
        }
        experiment = experiment.namingOutcomes(
            OutcomeNaming(
                predicted: { branch, _ in "\(branch.spans[0]?.stepsCompleted ?? 0) sums" },
                measured: { ($0.outcome["sums"]?.arrayCount).map { "\($0) sums" } }
            ))
        let measurement = MeasuredRun(
            totalSeconds: 2.001, enqueueSeconds: 0.0002,
            operations: [OperationSpan(label: "sum loop", start: 0, end: 2.001, thread: 1, cancelled: true)],
            output: [], outcome: Outcome([Outcome.Field("sums", .array([.number(3), .number(7)]))])
        )
        return judged(experiment, measurement, ending: .returned)
    }

    /// One sleeper that finishes, one operation that never does: a declared hang or trap.
    static func demonstration(_ ending: ExpectedEnding, stoppedAt total: Double, childEnding: ChildEnding)
        -> ExperimentResult
    {
        let experiment = Experiment(
            ending == .hangs ? "tiny-hang" : "tiny-trap",
            source: ArticleSource(file: "000_test.txt", section: "Pitfalls")
        ) { _, _ in Outcome() }
        .title("A demonstration")
        .summary("One sleeper, and an operation that never finishes.")
        .claim("It never ends.", seconds: nil)
        .expectedOutcome("The sleeper ends; the other never does.")
        .platformDifference("A bug of its own code.")
        .plannedAs {
            var workload = Workload()
            let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
            workload.add(PlannedOperation(label: "sleeper", articleSeconds: 1, executor: .queue(queue)))
            workload.add(
                PlannedOperation(label: "stuck", articleSeconds: 1, executor: .queue(queue), work: .neverFinishes))
            return workload
        }
        .ending(ending)
        let measurement = MeasuredRun(
            totalSeconds: total, enqueueSeconds: nil,
            operations: [
                OperationSpan(label: "sleeper", start: 0, end: 1, thread: 1),
                OperationSpan(label: "stuck", start: 0, end: total, thread: 2, finished: false),
            ],
            output: [], outcome: Outcome()
        )
        return judged(experiment, measurement, ending: childEnding)
    }

    static func judged(_ experiment: Experiment, _ measurement: MeasuredRun, ending: ChildEnding) -> ExperimentResult {
        let workload = experiment.workload()
        return ExperimentResult(
            experiment: experiment,
            prediction: Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1),
            applePrediction: Scheduler.predict(workload, profile: PlatformProfile(kind: .apple, cpus: 2), timeScale: 1),
            measurement: measurement, verdict: .pass, reason: nil, checks: [], childEnding: ending
        )
    }

    static let hang = demonstration(.hangs, stoppedAt: 2.5, childEnding: .hung(afterSeconds: 2.5))
    static let trap = demonstration(.traps(containing: "boom"), stoppedAt: 1.2, childEnding: .trapped(signal: 4))

    /// Whether the text holds a signed duration such as `+0.43 s` or `-1.00 s`: what a Δ looks like.
    static func hasSignedDelta(_ text: String) -> Bool {
        text.contains(#/[+-]\d+\.\d\d s/#)
    }

    static func jsonExperiments(_ results: [ExperimentResult]) throws -> [[String: Any]] {
        let text = JSONWriter.write(JSONRenderer.document(results, conditions: HandMadeRun.conditions))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        return try #require(document["experiments"] as? [[String: Any]])
    }

    @Test func aRaceShowsItsPossibleOutcomesAndWhichHappenedWithoutADelta() throws {
        let result = Self.raceResult()
        #expect(result.kind == .race(RaceOutcome(possible: ["2 sums", "3 sums"], happened: "2 sums")))
        #expect(result.deltaSeconds == nil)
        #expect(
            ResultSummary.row(result) == ["tiny-race", "—", "race: 2 sums or 3 sums", "2 sums in 2.00 s", "—", "pass"])

        let comparison = ExperimentSection.comparison(result)
        #expect(comparison.rows.contains(["outcome", "—", "2 sums or 3 sums", "2 sums or 3 sums", "2 sums"]))
        let section = TextRenderer(colour: false).section(result, position: 1, count: 1)
        #expect(!Self.hasSignedDelta(section), "no signed Δ anywhere in a race's section")

        // Without a naming of its own, a race names the operations whose fate differs.
        #expect(
            RaceOutcome.possible(in: result.prediction, naming: nil) == [
                "sum loop 2 of 5 steps", "sum loop 3 of 5 steps",
            ])

        // Off the tie, the same loop has one outcome: a timing with its Δ.
        var certain = result
        certain.prediction = Scheduler.predict(
            {
                var workload = result.prediction.workload; workload.cancellations[0].atArticleSeconds = 1.75;
                return workload
            }(),
            profile: result.prediction.profile, timeScale: 1
        )
        #expect(certain.kind == .timed)
        #expect(ResultSummary.row(certain)[4] == Format.signedSeconds(2.001 - 2))
    }

    /// A race the model does not time (one branch): the outcomes the experiment declares.
    /// A serial queue of A, B and C, cancelled as A ends, without a naming of its own: each
    /// outcome names only the operations whose work ran, or that none did, and the run says
    /// which happened from the spans it measured.
    @Test(arguments: [([String](), "B, C cancelled before they ran"), (["B"], "B ran"), (["C"], "C ran")])
    func aRaceWithoutANamingNamesTheOperationsWhoseWorkRan(worked: [String], happened: String) {
        let experiment = Experiment(
            "tiny-cancel-loop", source: ArticleSource(file: "000_test.txt", section: "Cancellation")
        ) { _, _ in Outcome() }
        .title("A cancel as the first ends")
        .summary("Three one-second closures on a serial queue, cancelled as the first ends.")
        .expectedOutcome("A, and one of B or C or neither.")
        .platformDifference("The cancel loop runs alike everywhere.")
        .plannedAs {
            var workload = Workload()
            let queue = workload.addQueue(QueueSpec(name: "serial", maxConcurrentOperationCount: 1))
            for label in ["A", "B", "C"] {
                workload.add(PlannedOperation(label: label, articleSeconds: 1, executor: .queue(queue)))
            }
            workload.cancel(.queue(queue), atArticleSeconds: 1.005)
            return workload
        }
        let spans = (["A"] + worked).enumerated().map {
            OperationSpan(label: $1, start: Double($0), end: Double($0 + 1), thread: 1)
        }
        let result = Self.judged(
            experiment,
            MeasuredRun(totalSeconds: Double(spans.count), operations: spans, output: [], outcome: Outcome()),
            ending: .returned)
        let possible = ["B, C cancelled before they ran", "B ran", "C ran"]
        #expect(result.kind == .race(RaceOutcome(possible: possible, happened: happened)))
        #expect(ResultSummary.row(result)[2] == "race: " + possible.joined(separator: " or "))
    }

    @Test func aDeclaredRaceReadsAsARaceThoughTheModelHasOneBranch() throws {
        let timed = Self.raceResult()
        var experiment = timed.experiment
        experiment.makeWorkload = { _ in
            var workload = Workload()
            let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
            workload.add(PlannedOperation(label: "sum loop", articleSeconds: 1, executor: .queue(queue)))
            return workload
        }
        experiment = experiment.namingOutcomes(OutcomeNaming(declared: ["lost", "won"], measured: { _ in "won" }))
        let result = Self.judged(experiment, try #require(timed.measurement), ending: .returned)
        #expect(result.prediction.outcomeBranches.count == 1)
        #expect(result.kind == .race(RaceOutcome(possible: ["lost", "won"], happened: "won")))
        #expect(result.deltaSeconds == nil)
    }

    @Test func aDeclaredHangOrTrapSaysHowItEndedWithoutADelta() {
        #expect(Self.hang.kind == .hang && Self.trap.kind == .trap)
        #expect(
            ResultSummary.row(Self.hang) == [
                "tiny-hang", "—", "hangs after 1.00 s", "stopped by the watchdog at 2.50 s", "—", "pass",
            ])
        #expect(
            ResultSummary.row(Self.trap) == [
                "tiny-trap", "—", "traps after 1.00 s", "trapped, as shown, at 1.20 s", "—", "pass",
            ])
        for result in [Self.hang, Self.trap] {
            #expect(result.deltaSeconds == nil)
            let total = ExperimentSection.comparison(result).rows[0]
            // Neither model is held to bounds: the total is the watchdog's or the trap's moment.
            #expect(total[2] == total[3] && !total[3].contains("bounds"))
            #expect(total[4] == ResultSummary.row(result)[3])
            #expect(!Self.hasSignedDelta(TextRenderer(colour: false).section(result, position: 1, count: 1)))
        }
        // Its picture: the measured bar was stopped, the Apple model's never finishes.
        let svg = SVGTimeline.render(Self.hang)
        #expect(svg.contains("<title>stuck, t2: 0.000 s to 2.500 s, still running when stopped</title>"))
        #expect(svg.contains(">still running when stopped, or never finishes</text>"))
        // The same hang, undeclared, is an error that still says what stopped it.
        var undeclared = Self.hang
        undeclared.experiment.expectedEnding = .returns
        #expect(ResultSummary.measuredTotal(undeclared) == "stopped by the watchdog at 2.50 s")
    }

    /// Text, Markdown, HTML and JSON say the same of a timing, a race, a hang and a trap: the
    /// same expected and measured cells, a Δ only for the timing.
    @Test func everyFormatAgreesOnRacesAndDemonstrations() throws {
        let results = [HandMadeRun.result(), Self.raceResult(), Self.hang, Self.trap]
        let text =
            results.map { TextRenderer(colour: false).section($0, position: 1, count: 1) }.joined()
            + TextRenderer(colour: false).summary(results, conditions: HandMadeRun.conditions)
        let markdown = MarkdownRenderer.render(results, conditions: HandMadeRun.conditions)
        let html = HTMLReport.render(
            results, conditions: HandMadeRun.conditions, reportDirectory: URL(fileURLWithPath: "/nonexistent"))
        let json = try Self.jsonExperiments(results)

        #expect(json.map { $0["kind"] as? String } == ["timed", "race", "hang", "trap"])
        #expect(json.map { $0["ending"] as? String } == ["returned", "returned", "hung", "trapped"])
        for (result, document) in zip(results, json) {
            let row = ResultSummary.row(result)
            for cell in row[2...3] {
                #expect(text.contains(cell) && markdown.contains(cell) && html.contains(cell.markupEscaped), "\(cell)")
            }
            // A Δ in every format, or in none.
            let delta = document["deltaSeconds"] as? Double
            #expect(delta.map(Format.signedSeconds) == (row[4] == "—" ? nil : row[4]))
            if let delta {
                #expect(abs(delta - (2.4 - result.prediction.total)) < 1e-9)
                #expect(markdown.contains("| \(row[4]) |") && html.contains(">\(row[4])</td>") && text.contains(row[4]))
            }
            let race = document["race"] as? [String: Any]
            if case .race(let outcome) = result.kind {
                #expect(
                    race?["possible"] as? [String] == outcome.possible
                        && race?["happened"] as? String == outcome.happened)
                // The comparison's outcome row: each model's outcomes, then the one that happened.
                for document in [text, markdown] {
                    let line = try #require(
                        document.split(separator: "\n").first {
                            $0.trimmingCharacters(in: .whitespaces).hasPrefix("outcome ")
                        })
                    let cells = line.components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }
                        .filter { !$0.isEmpty }
                    #expect(cells == ["outcome", "—", outcome.possibleText, outcome.possibleText, outcome.happened!])
                }
                #expect(html.contains("<td>\(outcome.possibleText)</td><td>\(outcome.happened!)</td>"))
            } else {
                #expect(document["race"] is NSNull)
            }
        }
    }

    @Test func theAppleTimelineIsDrawnBesideTheMeasuredOne() throws {
        let result = HandMadeRun.result()
        let section = TextRenderer(colour: false).section(result, position: 1, count: 1)
        let lines = section.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let measured = try #require(lines.firstIndex(of: "  Timeline, measured"))
        let apple = try #require(
            lines.firstIndex(of: "  Timeline, predicted by the apple model, the article's platform (t = pool worker)"))
        #expect(apple > measured)
        // One axis for both, so the bars line up; the Apple model's three all run 0–1 s.
        #expect(lines[apple + 1] == lines[measured + 1])
        let bar = String(repeating: "█", count: 20)
        #expect(
            Array(lines[(apple + 2)...(apple + 4)]) == [
                "    Каждый 🍎       t1    " + bar,
                "    Tom & Jerry <b> t2    " + bar,
                "    Фазан 🍆        t3    " + bar,
            ])

        let svg = SVGTimeline.render(result)
        #expect(svg.contains("predicted by the apple model, the article&#39;s platform</text>"))
        for (label, thread) in zip(HandMadeRun.labels, ["t1", "t2", "t3"]) {
            #expect(svg.contains("<title>\(label.markupEscaped), \(thread): 0.000 s to 1.000 s</title>"))
        }

        let json = try #require(try Self.jsonExperiments([result]).first)
        let appleWindows = try #require((json["apple"] as? [String: Any])?["operations"] as? [[String: Any]])
        #expect(appleWindows.map { $0["label"] as? String } == HandMadeRun.labels)
        #expect(appleWindows.allSatisfy { $0["startSeconds"] as? Double == 0 && $0["endSeconds"] as? Double == 1 })
        let expectedWindows = try #require((json["expected"] as? [String: Any])?["operations"] as? [[String: Any]])
        // On two CPUs the third waits for the monitor's tick at 0.97 s.
        #expect(expectedWindows.map { $0["startSeconds"] as? Double } == [0, 0, 0.97])

        // Not for an untimed benchmark, nor twice when the run's own model is Apple's.
        var untimed = result
        untimed.experiment.timing = .untimed(reason: "a benchmark")
        var onApple = result
        onApple.prediction = result.applePrediction
        for other in [untimed, onApple] {
            #expect(
                !TextRenderer(colour: false).section(other, position: 1, count: 1).contains("the article's platform"))
            #expect(!SVGTimeline.render(other).contains("the article&#39;s platform"))
        }
    }

    /// The Apple rows read the same in text, Markdown, the SVG the HTML page shows, and JSON.
    @Test func everyFormatAgreesOnTheApplePicture() throws {
        let results = [HandMadeRun.result(), Self.raceResult(), Self.hang]
        let markdown = MarkdownRenderer.render(results, conditions: HandMadeRun.conditions)
        let html = HTMLReport.render(
            results, conditions: HandMadeRun.conditions, reportDirectory: URL(fileURLWithPath: "/nonexistent"))
        let json = try Self.jsonExperiments(results)
        for (result, document) in zip(results, json) {
            let timelines = TextRenderer(colour: false).timelines(result, indent: "")
            #expect(
                TextRenderer(colour: false).section(result, position: 1, count: 1).contains(
                    TextRenderer(colour: false).timelines(result, indent: "  ")))
            #expect(markdown.contains(timelines))
            #expect(html.contains(#"id="timeline-\#(result.experiment.name)""#))
            let svg = SVGTimeline.render(result)
            let windows = try #require((document["apple"] as? [String: Any])?["operations"] as? [[String: Any]])
            #expect(windows.count == result.applePrediction.nominal.spans.compactMap { $0 }.count)
            let appleChart = try #require(
                timelines.components(separatedBy: "Timeline, predicted by the apple model").last)
            for (window, span) in zip(windows, result.applePrediction.nominal.spans.compactMap { $0 }) {
                let label = try #require(window["label"] as? String)
                #expect(label == span.label && window["startSeconds"] as? Double == span.start)
                let thread = "t\(span.lane)"
                #expect(appleChart.contains("\(label) ") && appleChart.contains(" \(thread) "))
                #expect(svg.contains("<title>\(label.markupEscaped), \(thread): "))
            }
        }
    }
}

extension JSONValue {
    /// How many items an array holds.
    var arrayCount: Int? {
        if case .array(let items) = self { return items.count }
        return nil
    }
}
