import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentReports
@testable import ExperimentResults
@testable import ExperimentRunner

#if canImport(FoundationXML)
import FoundationXML
#endif

/// What a CI system reads of a run: the JUnit XML, GitHub's annotations at the line, and the
/// comparison with an earlier run's report.json; from hand-made results.
@Suite(.serialized, .oneAtATime) struct CIFormatsTests {
    static let conditions = RunConditions(
        host: HostMachine(cpus: 2, os: "Linux 6.1.0", swift: "6.3"), timeScale: 1, profile: .linux)

    /// What a learner's code can print that XML must not take as markup.
    static let hostileText = "a < b && c > d ]]> \"quoted\" 'single' \u{1B}[2J\u{7}\u{0}end"

    /// One sleeper of a second on a queue, measured at `measured`, judged `verdict`.
    static func result(
        _ name: String, measured: Double?, verdict: Verdict, reason: String? = nil,
        unmodelled: [UnmodelledConstruct] = [], printed: String = "done"
    ) -> ExperimentResult {
        let experiment = Experiment(name, source: ArticleSource(file: "000_test.txt", section: "Experiment 1")) {
            _, _ in Outcome()
        }
        .title("One sleeper")
        .summary("One second of sleep.")
        .claim("It sleeps.", seconds: 1)
        .expectedOutcome("It ends after a second.")
        .platformDifference("None.")
        .plannedAs {
            var workload = Workload()
            let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: nil))
            workload.add(PlannedOperation(label: "sleeper", articleSeconds: 1, executor: .queue(queue)))
            workload.unmodelled = unmodelled
            return workload
        }
        let workload = experiment.workload()
        let measurement = measured.map {
            MeasuredRun(
                totalSeconds: $0, enqueueSeconds: nil,
                operations: [OperationSpan(label: "sleeper", start: 0, end: $0, thread: 1)],
                output: [PrintedLine(at: $0, text: printed, thread: 1)], outcome: Outcome()
            )
        }
        return ExperimentResult(
            experiment: experiment,
            prediction: Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1),
            applePrediction: Scheduler.predict(workload, profile: PlatformProfile(kind: .apple, cpus: 2), timeScale: 1),
            measurement: measurement, verdict: verdict, reason: reason,
            checks: [Check("total within bounds", passed: verdict != .fail)],
            childEnding: measured == nil ? nil : .returned
        )
    }

    /// A pass, a fail, an error, an unmodelled and a declared hang that happened, the fail's
    /// reason and the pass's printed line holding what XML gives a meaning to.
    static var run: [ExperimentResult] {
        [
            result("one-pass", measured: 1.003, verdict: .pass, printed: hostileText),
            result(
                "one-fail", measured: 1.9, verdict: .fail, reason: "total 1.90 s outside 0.90–1.10 s " + hostileText),
            result("one-error", measured: nil, verdict: .error, reason: "trapped: signal 4"),
            result(
                "one-unmodelled", measured: 1.0, verdict: .unmodelled, reason: "the plan leaves out what the code does",
                unmodelled: [
                    UnmodelledConstruct(
                        construct: "DispatchQueue.asyncAfter", site: "Probe.swift:41",
                        why: "the model does not plan timers yet")
                ]
            ),
            ResultKindTests.hang,
        ]
    }

    @Test func junitHoldsATestcaseForEachExperimentWithWhatItsVerdictAdds() throws {
        let xml = JUnitRenderer.render(RunReport(Self.run, conditions: Self.conditions))
        let document = try XMLDocument(xmlString: xml, options: [])
        let root = try #require(document.rootElement())
        #expect(root.name == "testsuites")
        #expect(root.attribute(forName: "tests")?.stringValue == "5")
        #expect(root.attribute(forName: "failures")?.stringValue == "1")
        #expect(root.attribute(forName: "errors")?.stringValue == "1")
        #expect(root.attribute(forName: "skipped")?.stringValue == "1")
        let cases = try root.nodes(forXPath: "//testcase").compactMap { $0 as? XMLElement }
        #expect(
            cases.map { $0.attribute(forName: "name")?.stringValue } == [
                "one-pass", "one-fail", "one-error", "one-unmodelled", "tiny-hang",
            ])
        #expect(cases.allSatisfy { $0.attribute(forName: "classname")?.stringValue == "article 000" })
        func children(_ index: Int) -> [String] { cases[index].children?.compactMap(\.name) ?? [] }
        #expect(children(0) == ["system-out"])
        #expect(children(1) == ["failure", "system-out"])
        #expect(children(2) == ["error"])
        #expect(children(3) == ["skipped", "system-out"])
        #expect(children(4) == [], "a declared hang that happened passes")
        #expect(cases[0].attribute(forName: "time")?.stringValue == "1.003")

        let failure = try #require(cases[1].elements(forName: "failure").first)
        let message = try #require(failure.attribute(forName: "message")?.stringValue)
        #expect(message.hasPrefix("total 1.90 s outside 0.90–1.10 s a < b && c > d ]]> \"quoted\" 'single' "))
        #expect(!message.unicodeScalars.contains { $0.value < 0x20 }, "no control character survives: \(message)")
        let table = try #require(failure.stringValue)
        #expect(
            table.contains("measured") && table.contains("1.90 s") && table.contains("✗ total within bounds"),
            "\(table)")
        let skipped = try #require(
            cases[3].elements(forName: "skipped").first?.attribute(forName: "message")?.stringValue)
        #expect(skipped.contains("the plan leaves out"))
        let printed = try #require(cases[0].elements(forName: "system-out").first?.stringValue)
        #expect(printed.contains("a < b && c > d ]]> \"quoted\""), "\(printed)")
    }

    @Test func aRunThatWasOnlyPredictedIsSkippedWithTheReason() throws {
        var result = Self.result("apple-only", measured: nil, verdict: .predicted)
        result.prediction = result.applePrediction
        let xml = JUnitRenderer.render(RunReport([result], conditions: Self.conditions))
        let skipped =
            try XMLDocument(xmlString: xml, options: []).nodes(forXPath: "//testcase/skipped").first as? XMLElement
        #expect(
            skipped?.attribute(forName: "message")?.stringValue?.contains("predicted only: the apple profile") == true,
            "\(xml)")
    }

    @Test func annotationsNameTheFileAndLineOfWhatFailedOrIsUnmodelled() throws {
        let commands = GitHubAnnotations.commands(for: Self.run)
        #expect(commands.count == 3, "a fail, an error and an unmodelled: \(commands)")
        #expect(
            commands[0].hasPrefix("::error file=Experiments/") == false,
            "hand-made results declared outside Experiments/ name no file")
        #expect(commands[0].hasPrefix("::error title=one-fail%3A fail::total 1.90 s"), "\(commands[0])")
        #expect(commands[2].hasPrefix("::warning title=one-unmodelled%3A unmodelled::"))
        #expect(commands.allSatisfy { !$0.contains("\n") })
        #expect(GitHubAnnotations.data("50% done\r\nnext") == "50%25 done%0D%0Anext")
        #expect(GitHubAnnotations.property("a:b,c") == "a%3Ab%2Cc")
        #expect(GitHubAnnotations.isActionsJob(["GITHUB_ACTIONS": "true"]))
        #expect(!GitHubAnnotations.isActionsJob([:]))
    }

    @Test func anUnmodelledConstructInTheExperimentsOwnFileIsItsAnnotationLine() throws {
        var result = Self.result(
            "probe", measured: 1, verdict: .unmodelled,
            unmodelled: [UnmodelledConstruct(construct: "Task.sleep", site: "Probe.swift:41", why: "not planned")]
        )
        result.experiment.declaration = Experiment.Declaration(
            path: "/home/me/package/Experiments/Playground/Probe.swift", line: 12)
        #expect(AnnotationLocation(result) == AnnotationLocation(file: "Experiments/Playground/Probe.swift", line: 41))
        result.verdict = .fail
        #expect(AnnotationLocation(result) == AnnotationLocation(file: "Experiments/Playground/Probe.swift", line: 12))
        #expect(
            GitHubAnnotations.commands(for: [result]).first?.hasPrefix(
                "::error file=Experiments/Playground/Probe.swift,line=12,title=probe%3A fail::") == true)
    }

    // MARK: - The earlier run

    /// A report.json as `--format json` writes it, of the fields the comparison reads.
    static func earlierDocument(
        schemaVersion: Int = JSONRenderer.schemaVersion, timeScale: Double = 1, profile: String = "linux",
        seconds: Double = 1.0
    ) -> Data {
        Data(
            """
            {"schemaVersion": \(schemaVersion), "timeScale": \(timeScale), "profile": "\(profile)",
             "host": {"cpus": 4, "os": "Linux 6.1.0", "swift": "6.3"},
             "experiments": [{"name": "one-pass", "kind": "timed", "ending": "returned", "measuredSeconds": \(seconds), "parameters": {}}]}
            """.utf8)
    }

    @Test func aTotalWithinTheThresholdPassesAndOneBeyondItFails() throws {
        let earlier = try EarlierRun(
            Self.earlierDocument(seconds: 1.0), path: "old.json", schemaVersion: JSONRenderer.schemaVersion)
        let within = earlier.compare(
            Self.result("one-pass", measured: 1.04, verdict: .pass), conditions: Self.conditions)
        #expect(within.verdict == .pass)
        #expect(within.earlier == EarlierTotal(seconds: 1.0, comparable: true))
        #expect(
            within.checks.last?.description
                == "measured total 1.04 s against the earlier run's 1.00 s: +0.04 s (+4.0 %), within ±(5 % + 0.01 s)")
        let beyond = earlier.compare(
            Self.result("one-pass", measured: 1.2, verdict: .pass), conditions: Self.conditions)
        #expect(beyond.verdict == .fail)
        #expect(beyond.reason?.contains("+0.20 s (+20.0 %), beyond ±(5 % + 0.01 s)") == true, "\(beyond.reason ?? "")")
        #expect(earlier.hostDifferences(Self.conditions.host) == ["4 CPUs there, 2 here"])
    }

    @Test func anotherScaleOrProfileIsNotComparableAndSaysWhich() throws {
        let other = try EarlierRun(
            Self.earlierDocument(timeScale: 0.25, profile: "apple"), path: "old.json",
            schemaVersion: JSONRenderer.schemaVersion)
        let judged = other.compare(Self.result("one-pass", measured: 1.0, verdict: .pass), conditions: Self.conditions)
        #expect(judged.verdict == .fail)
        #expect(
            judged.reason
                == "compared with the earlier run: not comparable, time scale 0.25 there, 1 here; profile apple there, linux here"
        )
        #expect(judged.earlier?.comparable == false)
    }

    @Test func whatTheEarlierRunLacksIsANoteAndRacesAreNotCompared() throws {
        let earlier = try EarlierRun(
            Self.earlierDocument(), path: "old.json", schemaVersion: JSONRenderer.schemaVersion)
        let unknown = earlier.compare(
            Self.result("new-one", measured: 1.0, verdict: .pass), conditions: Self.conditions)
        #expect(unknown.verdict == .pass && unknown.checks.last?.isNote == true && unknown.earlier == nil)
        let hang = earlier.compare(ResultKindTests.hang, conditions: Self.conditions)
        #expect(hang.checks == ResultKindTests.hang.checks, "a demonstration's total is when it was stopped")
    }

    @Test func aDocumentOfAnotherSchemaOrNoReportIsRefused() {
        #expect(throws: UsageError.self) {
            try EarlierRun(
                Self.earlierDocument(schemaVersion: 99), path: "old.json", schemaVersion: JSONRenderer.schemaVersion)
        }
        #expect(throws: UsageError.self) {
            try EarlierRun(Data("not json".utf8), path: "old.json", schemaVersion: JSONRenderer.schemaVersion)
        }
        #expect(throws: UsageError.self) {
            try EarlierRun(Data(#"{"schemaVersion": 1}"#.utf8), path: "old.json", schemaVersion: 1)
        }
        do {
            _ = try EarlierRun(
                Self.earlierDocument(schemaVersion: 99), path: "old.json", schemaVersion: JSONRenderer.schemaVersion)
        } catch {
            #expect(
                error.message
                    == "--compare takes a report.json of schema version \(JSONRenderer.schemaVersion); 'old.json' has schema version 99."
            )
        }
    }
}
