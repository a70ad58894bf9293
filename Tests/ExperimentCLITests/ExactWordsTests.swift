import ExperimentKit
import ExperimentModel
import ExperimentReports
import Foundation
import TestSupport
import Testing

@testable import ExperimentCLI
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import ReportFiles

/// What the command line says is exactly so: input quoted as typed and never acted on by the
/// terminal, counts in the right number, colour by the convention, every child counted, the
/// runs an interrupt left, the reason nothing ran, `list` and `describe` in Markdown, and the
/// JSON schema article (ExperimentReports.docc/JSONSchema.md) naming every key the JSON has.
@Suite(.serialized, .oneAtATime) struct ExactWordsTests: TwoCPUProfiles {
    func parseError(_ arguments: [String]) -> String? {
        ArgumentParserTests().error(arguments)
    }

    @Test func echoedInputShowsControlCharactersAndIsCut() {
        #expect(Format.echoed("serial-queue") == "'serial-queue'")
        #expect(Format.echoed("\u{1B}[31mRED\u{1B}[0m") == #"'\u{1B}[31mRED\u{1B}[0m'"#)
        #expect(Format.echoed("a\nb\tc\r\0\u{7F}\u{85}") == #"'a\nb\tc\r\0\u{7F}\u{85}'"#)
        #expect(Format.echoed("C:\\n") == #"'C:\\n'"#, "a typed backslash is told apart from an escape")
        #expect(
            Format.echoed("\u{202E}gnp.exe\u{2028}") == #"'\u{202E}gnp.exe\u{2028}'"#,
            "a right-to-left override and a line separator")
        #expect(
            Format.echoed("Каждый 🍎 👩‍💻") == "'Каждый 🍎 👩‍💻'", "printable text, an emoji sequence included, stays as it is")

        let limit = String(repeating: "x", count: Format.echoLimit)
        #expect(Format.echoed(limit) == "'\(limit)'")
        let over = limit + "y"
        #expect(Format.echoed(over) == "'\(over.prefix(40))…\(over.suffix(30))' (81 characters)")
        let huge = String(repeating: "x", count: 100_000)
        #expect(Format.echoed(huge) == "'\(huge.prefix(40))…\(huge.suffix(30))' (100000 characters)")
        // Cut between escapes, never through one: 6 of 6 characters each fit the 40 at the start, 5 the 30 at the end.
        let escapes = String(repeating: "\u{1B}", count: 30)
        #expect(
            Format.echoed(escapes) == "'" + String(repeating: #"\u{1B}"#, count: 6) + "…"
                + String(repeating: #"\u{1B}"#, count: 5) + "' (30 characters)")
        #expect(Format.echoed(huge, cut: false).count == 100_002)
    }

    /// Every message that quotes what was typed quotes it escaped, keeping its "Did you mean".
    @Test func everyMessageQuotingInputEscapesIt() throws {
        let escape = "\u{1B}[2J"
        #expect(parseError(["list", escape]) == #"'list' takes no experiment names; got '\u{1B}[2J'."#)
        #expect(parseError([escape, escape]) == #"The experiment '\u{1B}[2J' was named twice."#)
        #expect(parseError(["all", escape]) == #"'all' already selects every experiment; drop '\u{1B}[2J' or 'all'."#)
        #expect(parseError(["all", "--set", "a\nb"]) == #"'--set' takes KEY=VALUE, e.g. --set width=3; got 'a\nb'."#)
        #expect(parseError(["all", "--set", "k\n=1", "--set", "k\n=2"]) == #"'k\n' was set more than once."#)
        #expect(parseError(["all", "--filter\n"]) == #"Unknown option '--filter\n'. Did you mean '--filter'?"#)
        #expect(
            parseError(["all", "--format", "\u{1B}]0;x\u{7}"])
                == #"Unknown format '\u{1B}]0;x\u{7}' (values: text, json, markdown, junit)."#)
        #expect(
            parseError(["all", "--time-scale", "1\n"])
                == #"'1\n' is not a valid time scale (a number from 0.05 to 10)."#)
        let registry = [HandMadeRun.experiment(name: "tiny-queue")]
        #expect(
            Selection(registry: registry).unknown("tiny-queu\n").message
                == #"Unknown experiment 'tiny-queu\n'. Did you mean 'tiny-queue'?"#)
        func selectError(_ change: (inout RunOptions) -> Void) -> String? {
            var options = RunOptions()
            change(&options)
            do {
                _ = try RunExperimentsCommand.select(options, from: registry)
                return nil
            } catch {
                return error.message
            }
        }
        #expect(
            selectError {
                $0.all = true; $0.settings = ["k\ney": "1"]
            } == #"No selected experiment has a parameter 'k\ney' (the selected experiments take none)."#)
        let filter = String(repeating: "f", count: 100_000)
        #expect(
            selectError { $0.filters = [filter, "\u{1B}"] }
                == "No experiment matches '\(filter.prefix(40))…\(filter.suffix(30))' (100000 characters), '\\u{1B}'. See 'run-experiments list'."
        )
        #expect(
            ReportFolder.Failure("/tmp/a\nb", "it is not a folder").description
                == #"Cannot write the report to '/tmp/a\nb': it is not a folder"#)
    }

    /// no-color.org: a `NO_COLOR` with a value turns colour off, an empty one does not; a dumb
    /// terminal gets none; and nothing but a terminal gets any.
    @Test(
        arguments: [
            ([:], true, true),
            (["TERM": "xterm-256color"], true, true),
            (["NO_COLOR": ""], true, true),
            (["NO_COLOR": "1"], true, false),
            (["NO_COLOR": "0"], true, false),
            (["TERM": "dumb"], true, false),
            (["TERM": "xterm"], false, false),
            ([:], false, false),
        ] as [([String: String], Bool, Bool)])
    func colourFollowsTheConvention(environment: [String: String], onTerminal: Bool, colours: Bool) {
        #expect(TextRenderer.colours(environment: environment, onTerminal: onTerminal) == colours)
    }

    @Test func countsAreSingularForOne() {
        #expect(
            Format.count(1, "CPU") == "1 CPU" && Format.count(2, "CPU") == "2 CPUs"
                && Format.count(0, "run") == "0 runs")
        #expect(
            Format.count(1, "child", "children") == "1 child" && Format.count(5, "child", "children") == "5 children")
        let host = HostMachine(
            cpus: 1, os: "Linux", swift: "6.3", timerJitter: TimerJitter(median: 0.0001, maximum: 0.0002),
            loadAverage: LoadAverage(oneMinute: 1, fiveMinutes: 1, fifteenMinutes: 1))
        let line = ResultSummary.hostLine(RunConditions(host: host, timeScale: 1, profile: .linux))
        #expect(line.hasPrefix("host: 1 CPU · ") && line.contains("(1, 5, 15 min) on 1 CPU ·"), "\(line)")
        let experiment = HandMadeRun.experiment(name: "tiny-queue")
        let prediction = Scheduler.predict(
            experiment.workload(), profile: PlatformProfile(kind: .linux, cpus: 1), timeScale: 1)
        #expect(
            TextRenderer(colour: false).list([(experiment, prediction)], timeScale: 1).contains(
                "predicted (linux, 1 CPU)"))
        var result = HandMadeRun.result()
        result.prediction = prediction
        #expect(TextRenderer(colour: false).section(result, position: 1, count: 1).contains("model linux (1 CPU)"))
    }

    /// Three runs of the fixture, each 2.5 s of wall for its 2.4 s measured.
    func runs(_ count: Int) -> [ExperimentResult] {
        (0..<count).map { _ in
            var run = HandMadeRun.result()
            run.wallSeconds = 2.5
            return run
        }
    }

    @Test func theRunnerLineCountsEveryChild() throws {
        let repeated = ExperimentResult.repeated(runs(3), of: 3)
        #expect(
            ResultSummary.overheadLine([repeated])
                == "runner: 7.50 s wall for 7.20 s measured in 3 children; overhead 0.30 s, 100 ms per child")
        let single = ExperimentResult.repeated(runs(1), of: 1)
        #expect(
            ResultSummary.overheadLine([single, repeated])
                == "runner: 10.00 s wall for 9.60 s measured in 4 children; overhead 0.40 s, 100 ms per child")
        #expect(
            ResultSummary.overheadLine([single])
                == "runner: 2.50 s wall for 2.40 s measured in 1 child; overhead 0.10 s, 100 ms per child")
        let json = JSONWriter.write(JSONRenderer.document([repeated], conditions: HandMadeRun.conditions))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let experiment = try #require((document["experiments"] as? [[String: Any]])?.first)
        #expect((experiment["repeats"] as? [[String: Any]])?.map { $0["wallSeconds"] as? Double } == [2.5, 2.5, 2.5])
    }

    /// An interrupt after two of five runs: the summary, the JSON and the report show those two.
    @Test func aRepetitionCutShortShowsTheRunsThatFinished() throws {
        let cut = ExperimentResult.repeated(runs(2), of: 5)
        #expect(
            cut.isCutShort && !ExperimentResult.repeated(runs(5), of: 5).isCutShort
                && !ExperimentResult.repeated(runs(1), of: 1).isCutShort)
        #expect(
            ExperimentResult.repeated(runs(1), of: 5).repeats.count == 1,
            "one run of five is still shown as a run of a repetition")
        let summary = TextRenderer(colour: false).summary([cut], conditions: HandMadeRun.conditions)
        #expect(summary.contains("  tiny-queue: only 2 of its 5 runs finished before the interrupt; its row is theirs"))
        #expect(summary.contains("fail (0/2 passed)"))
        let json = JSONWriter.write(
            JSONRenderer.document([cut], conditions: HandMadeRun.conditions, interruptedBy: SIGINT))
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        let experiment = try #require((document["experiments"] as? [[String: Any]])?.first)
        #expect(experiment["runsAsked"] as? Int == 5 && (experiment["repeats"] as? [Any])?.count == 2)
    }

    @Test func nothingRunSaysWhy() {
        #expect(
            RunConditions.whyNothingRuns(profile: PlatformProfile(kind: .linux, cpus: 8), hostCPUs: 2)
                == "8 CPUs asked, this machine has 2")
        #expect(
            RunConditions.whyNothingRuns(profile: PlatformProfile(kind: .linux, cpus: 2), hostCPUs: 1)
                == "2 CPUs asked, this machine has 1")
        #expect(
            RunConditions.whyNothingRuns(profile: PlatformProfile(kind: .apple, cpus: 2), hostCPUs: 2)
                == "profile apple is not this machine's")
        #expect(RunConditions.whyNothingRuns(profile: PlatformProfile(kind: .linux, cpus: 2), hostCPUs: 2) == nil)
        let predicted = HandMadeRun.result(measured: false)
        let oneCPU = HostMachine(cpus: 1, os: "Linux", swift: "6.3")
        #expect(
            TextRenderer(colour: false).summary(
                [predicted], conditions: RunConditions(host: oneCPU, timeScale: 1, profile: .linux)
            ).hasSuffix("  1 predicted, nothing run (2 CPUs asked, this machine has 1).\n"))
    }

    /// `list --format markdown`: the text list's rows as a Markdown table, escaped as the report's.
    @Test func listAndDescribeInMarkdown() {
        let experiment = HandMadeRun.experiment(name: "tiny-queue")
        let prediction = Scheduler.predict(experiment.workload(), profile: Self.linux, timeScale: 1)
        #expect(
            MarkdownRenderer.list([(experiment, prediction)], timeScale: 1) == """
                | name | title | article | predicted (linux, 2 CPUs) |
                | --- | --- | --- | --- |
                | tiny-queue | Three closures &amp; a &lt;queue&gt; | 1.00 s | 1.97 s (1.97–2.00 s) |

                Times in real seconds at time scale 1.

                """)
        #expect(
            MarkdownRenderer.parameters(of: experiment) == """
                ## tiny-queue · Three closures &amp; a &lt;queue&gt;

                No parameters: this experiment runs as the article has it.

                """)
    }

    /// `describe` and `new` refuse the options they would ignore, as `list` does.
    @Test func subcommandsRefuseOptionsTheyWouldIgnore() throws {
        #expect(
            parseError(["describe", "serial-queue", "--time-scale", "2"])
                == "'describe' does not take '--time-scale' (it takes --format).")
        #expect(
            parseError(["describe", "serial-queue", "--set", "width=2"])
                == "'describe' does not take '--set' (it takes --format).")
        #expect(
            try ArgumentParser.parse(["describe", "serial-queue", "--format", "markdown"])
                == .describe(name: "serial-queue", format: .markdown))
        #expect(parseError(["new", "my-queue", "--report"]) == "'new' does not take '--report' (it takes no options).")
        #expect(
            parseError(["new", "my-queue", "--format", "json"])
                == "'new' does not take '--format' (it takes no options).")
    }

    /// Every key the JSON documents have (a run with repeats, cut short by a signal, on a host
    /// with its load and jitter; `list`; `describe`) is named in the JSON schema article,
    /// `Sources/ExperimentReports/ExperimentReports.docc/JSONSchema.md`, which the README links to.
    @Test func theSchemaArticleNamesEveryJSONKey() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..")
        let schema = try String(
            contentsOf: root.appendingPathComponent("Sources/ExperimentReports/ExperimentReports.docc/JSONSchema.md"),
            encoding: .utf8)
        let readme = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(
            readme.contains("(Sources/ExperimentReports/ExperimentReports.docc/JSONSchema.md)"),
            "the README links to the JSON schema article")
        let words = Set(schema.split { !$0.isLetter && !$0.isNumber }.map(String.init))

        var host = HandMadeRun.host
        host.timerJitter = TimerJitter(median: 0.0001, maximum: 0.0002)
        host.loadAverage = LoadAverage(oneMinute: 1, fiveMinutes: 2, fifteenMinutes: 3)
        var measured = HandMadeRun.result()
        measured.measurement?.cpuCosts = [CPUCost(label: "blur", seconds: 0.1, source: .measured)]
        let cut = ExperimentResult.repeated([measured, measured], of: 5)
        let experiment = HandMadeRun.experiment(name: "tiny-queue")
        let prediction = Scheduler.predict(experiment.workload(), profile: Self.linux, timeScale: 1)
        let documents = [
            JSONRenderer.document(
                [cut, HandMadeRun.result(measured: false)],
                conditions: RunConditions(host: host, timeScale: 1, profile: .linux), interruptedBy: SIGINT),
            JSONRenderer.list(
                [(experiment, prediction)], conditions: RunConditions(host: host, timeScale: 1, profile: .linux)),
            JSONRenderer.parameters(of: experiment),
        ]
        var keys: Set<String> = []
        func collect(_ value: JSONValue) {
            switch value {
            case .object(let fields):
                for field in fields {
                    keys.insert(field.key)
                    // An experiment's own keys: its outcome and parameter names.
                    if field.key != "outcome", field.key != "parameters" || !(field.value.isObject) {
                        collect(field.value)
                    }
                }
            case .array(let items): items.forEach(collect)
            default: break
            }
        }
        documents.forEach(collect)
        #expect(keys.contains("loadAverage") && keys.contains("runsAsked") && keys.contains("cpuCosts"))
        for key in keys.sorted() {
            #expect(words.contains(key), "JSONSchema.md does not name '\(key)'")
        }
    }
}

extension JSONValue {
    var isObject: Bool {
        if case .object = self { return true }
        return false
    }
}
