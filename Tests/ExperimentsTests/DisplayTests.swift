import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import ExperimentReports
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import Experiments

/// How the registered experiments read: which are races, which say why this platform differs,
/// and sum-operation's sleeping workers and completion order.
/// Serialized: predicting the image experiments measures their filters first, on the pool.
@Suite(.serialized, .oneAtATime) struct DisplayTests {
    /// The result of `experiment` before anything ran, as `run-experiments` judges it.
    static func predicted(_ experiment: Experiment, scale: Double = 1, settings: [String: String] = [:])
        -> ExperimentResult
    {
        let parsed = try! ParameterSettings(settings, for: [experiment])
        let runner = Runner(
            executable: BuiltBinary.url, timeScale: scale, profile: .linux,
            host: HostMachine(cpus: 2, os: "Linux", swift: "6.3"), settings: parsed)
        let predictions = runner.predictions(experiment)
        return ExperimentResult(
            experiment: experiment, prediction: predictions.chosen, applePrediction: predictions.apple,
            measurement: nil, verdict: .predicted, reason: nil, checks: []
        )
    }

    @Test func racesAreTheExperimentsWhoseModelAllowsSeveralOutcomes() {
        #expect(
            Self.predicted(groupCancellation).kind
                == .race(RaceOutcome(possible: ["2 tuples", "3 tuples", "4 tuples"], happened: nil)))
        #expect(Self.predicted(groupCancellationEarly).kind == .timed)
        // Clear of the race by default; the article's own instant puts it back.
        #expect(Self.predicted(cancellationAtTwoSeconds).kind == .timed)
        #expect(
            Self.predicted(cancellationAtTwoSeconds, settings: ["cancel-at": "2"]).kind
                == .race(RaceOutcome(possible: ["[3, 7]", "[3, 7, 11]"], happened: nil)))
        #expect(
            Self.predicted(cancellationProgressAtFourSeconds, settings: ["cancel-at": "4"]).kind
                == .race(RaceOutcome(possible: ["[3, 7, 11, 15]", "[3, 7, 11, 15, 19]"], happened: nil)))
        #expect(Self.predicted(fourImagesCancelledAtSixSeconds).kind == .timed)
        #expect(Self.predicted(asyncOperationPitfalls).kind == .hang)
        #expect(Self.predicted(dependencyCycle).kind == .hang)
        #expect(Self.predicted(underlyingQueueExperiment).kind == .trap)
        #expect(Self.predicted(taskOverhead).kind == .untimed)
        // The group's race at every scale the runner accepts.
        for scale in [0.05, 0.1, 0.25, 10] {
            guard case .race(let race) = Self.predicted(groupCancellation, scale: scale).kind else {
                Issue.record("group-cancellation is no race at scale \(scale)")
                continue
            }
            #expect(race.possible == ["2 tuples", "3 tuples", "4 tuples"])
        }
    }

    /// "Where this platform differs" lists an experiment when the platforms differ in anything
    /// the output shows: async-operation-pitfalls, whose bugs behave alike, runs fewer at once
    /// here; queue-quality-of-service, operation-runs-once, underlying-queue and
    /// dependent-thread-reuse differ in what the run shows beyond the models.
    @Test func wherePlatformsDifferListsEveryDifference() {
        for scale in [1.0, 0.05] {
            let results = articleExperiments.map { Self.predicted($0, scale: scale) }
            let listed = Set(ResultSummary.explanations(results).map { String($0.prefix { $0 != ":" }) })
            for name in [
                "concurrent-printer-queue", "block-operation-multi-printer", "sum-operation", "filter-images",
                "block-operation-three-blocks",
                "async-operation-pitfalls", "queue-quality-of-service", "operation-runs-once", "underlying-queue",
                "dependent-thread-reuse",
            ] {
                #expect(listed.contains(name), "\(name) at scale \(scale)")
            }
            for name in ["serial-queue", "printer-queue-max-2", "group-cancellation-async", "dependency-cycle"] {
                #expect(!listed.contains(name), "\(name) at scale \(scale)")
            }
        }
    }

    /// Wherever the comparison shows the two models apart (total, how many ran at once, the
    /// outcomes a race allows), the section says why, in the Why note and JSON's `explanation`;
    /// and every experiment's explanation is one sentence.
    @Test func everyDifferenceTheComparisonShowsSaysWhy() throws {
        for experiment in articleExperiments {
            let sentence = experiment.platformDifference
            #expect(
                sentence.hasSuffix(".") && sentence.range(of: #"[.!?] [A-Z]"#, options: .regularExpression) == nil,
                "\(experiment.name): one sentence: \(sentence)")
        }
        for scale in [1.0, 0.05] {
            for experiment in articleExperiments {
                let result = Self.predicted(experiment, scale: scale)
                let section = ExperimentSection(result)
                // The models' columns: the total cell without its bounds, ran at once, a race's outcomes.
                let columns = section.comparison.rows.map { row in
                    Array(row.suffix(2)).map { String($0.prefix { $0 != "," }) }
                }
                let apart = columns.contains { $0[0] != $0[1] }
                guard case .object(let fields) = JSONRenderer().section(section) else {
                    preconditionFailure("a section is a JSON object")
                }
                let explanation = fields.first { $0.key == "explanation" }?.value
                if apart || experiment.differsBeyondTheModel {
                    #expect(
                        section.notes.contains {
                            $0.kind == .platformDifference && $0.text == experiment.platformDifference
                        }, "\(experiment.name) at \(scale): \(columns)")
                    #expect(explanation == .string(experiment.platformDifference), "\(experiment.name) at \(scale)")
                }
            }
        }
    }
}

/// sum-operation run for real: each addition's sleep on a worker of its own, and the article's
/// point, the completion order, as an outcome every format shows.
extension TimedRuns {
    @Suite struct SumOperationRuns {
        @Test func eachSleepIsDrawnOnThePoolWorkerThatHoldsIt() throws {
            let scale = 0.1
            let result = TimedRuns.run(sumOperationExperiment, scale: scale)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            let input = try #require(run.outcome["inputOrder"]?.stringArray)
            let completion = try #require(run.outcome["completionOrder"]?.stringArray)
            #expect(input == Summing.asyncPairs.map(Summing.label))
            let printed = run.output.filter { $0.text.contains(" = ") }.sorted { $0.at < $1.at }.map {
                $0.text.components(separatedBy: " = ")[0]
            }
            #expect(completion == printed, "the completion order is the order of the printed lines")
            let completions = SumCompletions(printed: run.output, pairs: Summing.asyncPairs)
            #expect(run.outcome["completionOrderDiffers"] == .bool(completions.differs(from: input)))

            var sleeps: [OperationSpan] = []
            for pair in Summing.asyncPairs {
                let operation = try #require(run.span(Summing.label(pair)))
                let sleep = try #require(
                    run.span(Summing.workerLabel(pair)), "\(Summing.label(pair)): its sleep is drawn")
                #expect(sleep.thread != 0, "the sleep runs on a pool worker, not the experiment's thread")
                #expect(
                    sleep.start >= operation.start && sleep.end <= operation.end + 1e-6, "inside its operation's span")
                #expect(
                    Tolerance.standard.widen(scale...scale).contains(sleep.end - sleep.start),
                    "one article second of sleep")
                sleeps.append(sleep)
            }
            let atOnce = Overlap.maximum(of: sleeps.map { ($0.start, $0.end) })
            #expect(run.outcome["sleepsAtOnce"] == .number(Double(atOnce)))
            // The run (0.3 s) ends before the monitor's first tick (0.97 s): the pool never grows
            // past one worker per CPU, so the sleeps take turns, while the operations overlap.
            let workers = HostMachine.current.cpus
            #expect(atOnce <= workers)
            if result.prediction.maximumOverlapRange.lowerBound > workers {
                #expect(run.maximumOverlap(of: result.prediction.workload) > atOnce)
            }
        }

        /// The completion order's verdict, the sleeping workers' rows and the Why line read the
        /// same in text, Markdown, HTML and JSON.
        @Test func everyFormatAgreesOnSumOperation() throws {
            let result = TimedRuns.run(sumOperationExperiment, scale: 0.1)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            let differs = try #require(run.outcome["completionOrderDiffers"])
            let conditions = RunConditions(
                host: HostMachine(cpus: 2, os: "Linux", swift: "6.3"), timeScale: 0.1, profile: .linux)
            let text = TextRenderer(colour: false).section(result, position: 1, count: 1)
            let markdown = MarkdownRenderer.render([result], conditions: conditions)
            let html = HTMLReport.render(
                [result], conditions: conditions, reportDirectory: URL(fileURLWithPath: "/nonexistent"))
            let svg = SVGTimeline.render(result)
            let jsonText = JSONWriter.write(JSONRenderer.document([result], conditions: conditions))
            let json = try #require(
                ((try JSONSerialization.jsonObject(with: Data(jsonText.utf8)) as? [String: Any])?["experiments"]
                    as? [[String: Any]])?.first)

            let said = OutcomeText.describe(differs)
            #expect(text.contains("completionOrderDiffers: \(said)"))
            #expect(markdown.contains("- completionOrderDiffers: \(said)"))
            #expect(html.contains("<strong>completionOrderDiffers:</strong> \(said)"))
            #expect((json["outcome"] as? [String: Any])?["completionOrderDiffers"] as? Bool == (differs == .bool(true)))

            let workers = run.operations.filter { $0.label.hasSuffix("· asyncAdd") }
            #expect(workers.count == Summing.asyncPairs.count)
            let jsonOperations = try #require(json["operations"] as? [[String: Any]])
            for worker in workers {
                let thread = "t\(worker.thread)"
                #expect(text.contains(worker.label + " ") && markdown.contains(worker.label + " "))
                #expect(svg.contains("<title>\(worker.label), \(thread): "))
                #expect(
                    jsonOperations.contains {
                        $0["label"] as? String == worker.label && $0["thread"] as? Int == worker.thread
                    })
            }

            // The Why line, where this platform differs, is the same sentence everywhere.
            let why = sumOperationExperiment.platformDifference
            #expect(result.differsFromArticlePlatform)
            #expect(json["explanation"] as? String == why)
            #expect(markdown.contains("Why this platform differs: \(why)"))
            #expect(html.contains(why.markupEscaped))
            #expect(text.replacingOccurrences(of: "\n           ", with: " ").contains("Why      \(why)"))
        }
    }
}

/// sum-operation's completion order, from printed lines made by hand: the order of the lines,
/// and a tie where two were printed closer than the timers can tell apart.
@Suite(.serialized, .oneAtATime) struct SumCompletionsTests {
    static let pairs = [(1, 5), (3, 9), (6, 12)]

    static func line(_ at: Double, _ text: String) -> PrintedLine {
        PrintedLine(at: at, text: text, thread: 1)
    }

    @Test func theOrderIsThatOfThePrintedLines() {
        // Handed over out of time order, as two threads may append them.
        let completions = SumCompletions(
            printed: [
                Self.line(1.0102, "6 + 12 = 18"), Self.line(1.0001, "1 + 5 = 6"), Self.line(1.0051, "3 + 9 = 12"),
                Self.line(0.5, "cancel()"),
            ], pairs: Self.pairs)
        #expect(completions.order == ["1 + 5", "3 + 9", "6 + 12"])
        #expect(completions.ties.isEmpty)
        #expect(!completions.differs(from: ["1 + 5", "3 + 9", "6 + 12"]))
        #expect(completions.differs(from: ["3 + 9", "1 + 5", "6 + 12"]))
    }

    /// The reader's case: 3 + 9 printed 0.1 ms before 6 + 12 is a tie, not an order.
    @Test func linesCloserThanTheTimersCanTellApartAreATie() {
        let completions = SumCompletions(
            printed: [Self.line(1.0001, "6 + 12 = 18"), Self.line(1.0000, "3 + 9 = 12"), Self.line(1.2, "1 + 5 = 6")],
            pairs: Self.pairs)
        #expect(completions.order == ["3 + 9", "6 + 12", "1 + 5"])
        #expect(
            completions.ties == [
                "3 + 9 and 6 + 12 tied (printed less than \(Format.shortDuration(SumCompletions.tieSeconds)) apart)"
            ])
        #expect(completions.differs(from: ["1 + 5", "3 + 9", "6 + 12"]), "1 + 5 came last: an order of its own")
        #expect(
            !completions.differs(from: ["6 + 12", "3 + 9", "1 + 5"]), "a tie read in either order is no difference")
    }
}
