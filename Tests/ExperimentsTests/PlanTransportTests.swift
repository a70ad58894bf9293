import ExperimentModel
import ExperimentReports
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import Experiments

/// Plans read away from the runner: what travels is the plan the code builds, and an experiment
/// without one is an error that runs nothing; a plan that names what it cannot contain is judged
/// `unmodelled` in every format.
@Suite(.serialized, .oneAtATime) struct PlanTransportTests {
    /// Every registered experiment's plan, read in process.
    static let inProcess = PlanSource.inProcess.read(articleExperiments.map { ($0, $0.defaultParameters) })

    @Test func everyPlanRoundTripsThroughJSON() throws {
        for (experiment, plan) in zip(articleExperiments, Self.inProcess) {
            let workload = try plan.get()
            let line = try JSONEncoder().encode(workload)
            #expect(try JSONDecoder().decode(Workload.self, from: line) == workload, "\(experiment.name)")
        }
    }

    /// One plan child reads every registered experiment's plan, the same as the rehearsal in
    /// process, with the `--set` values each declares.
    @Test func thePlanChildReadsTheSamePlans() throws {
        let child = PlanSource.child(BuiltBinary.url).read(articleExperiments.map { ($0, $0.defaultParameters) })
        #expect(child.count == articleExperiments.count)
        for (experiment, (read, expected)) in zip(articleExperiments, zip(child, Self.inProcess)) {
            #expect(try Self.byLine(read.get()) == Self.byLine(expected.get()), "\(experiment.name)")
        }
        let narrow = try serialQueue.parameters(overriding: ["width": "1"])
        let set = PlanSource.child(BuiltBinary.url).read([(serialQueue, narrow)])
        #expect(try Self.byLine(set[0].get()) == Self.byLine(serialQueue.workload(narrow)))
    }

    /// Asked for plans without call stacks (`list` in text or Markdown), the child sends the same
    /// plans with none; asked for them, it sends none of the runner's frames outside the rehearsal.
    @Test func thePlanChildSendsTheStacksOnlyWhenAskedAndOnlyTheRehearsals() throws {
        let wanted = articleExperiments.map { ($0, $0.defaultParameters) }
        let bare = PlanSource.child(BuiltBinary.url, keepingCallSites: false).read(wanted)
        let whole = PlanSource.child(BuiltBinary.url).read(wanted)
        #expect(bare.count == articleExperiments.count && whole.count == articleExperiments.count)
        var stacks = 0
        for (experiment, (bare, whole)) in zip(articleExperiments, zip(bare, whole)) {
            let (bareOperations, wholeOperations) = (try bare.get().operations, try whole.get().operations)
            #expect(bareOperations.allSatisfy { $0.calledFrom == nil }, "\(experiment.name)")
            #expect(try Self.byLine(bare.get()).0 == Self.byLine(whole.get()).0, "\(experiment.name)")
            stacks += wholeOperations.filter { $0.calledFrom != nil }.count
        }
        #expect(stacks > articleExperiments.count, "the plans' operations are sent with their stacks")
    }

    /// A stack loses the outer frames it shares with the runner's, whether or not the capture
    /// reached them all; one of another image, or wholly the runner's, is kept as it is.
    @Test func aStackLosesOnlyTheOuterFramesItSharesWithTheRunners() {
        let runners = CallSite.Stack(image: "/bin/runner", addresses: [1, 90, 10, 11, 12])
        func cut(_ addresses: [UInt64], image: String = "/bin/runner") -> [UInt64] {
            CallSite.Stack(image: image, addresses: addresses).cuttingOuterFrames(of: runners).addresses
        }
        #expect(cut([1, 2, 3, 50, 10, 11, 12]) == [1, 2, 3, 50])
        #expect(cut([1, 2, 3, 50, 10]) == [1, 2, 3, 50])
        #expect(cut([1, 2, 3, 50]) == [1, 2, 3, 50])
        #expect(cut([1, 10, 11]) == [1, 10, 11])
        #expect(cut([1, 2, 10, 11, 12], image: "/bin/other") == [1, 2, 10, 11, 12])
    }

    /// The plan without its call stacks, and the line each operation's names: a child's stacks
    /// hold the runner's addresses, this test bundle's its own, and what must agree is the line.
    /// Nor the priority of the cooperative pool's queues, in their names and classes: a `Task`
    /// the code starts takes the priority of the thread that starts it, 25 on the child's main
    /// thread, 21 in a test, which runs in a task; the queues, one per priority, are the same.
    static func byLine(_ workload: Workload) -> (Workload, [SourceLine?]) {
        var withoutStacks = workload
        for index in withoutStacks.operations.indices { withoutStacks.operations[index].calledFrom = nil }
        for index in withoutStacks.queues.indices where withoutStacks.queues[index].isCooperativePool {
            withoutStacks.queues[index].name = "cooperative pool"
            withoutStacks.queues[index].priorityClass = .default
        }
        return (withoutStacks, workload.operations.map(\.line))
    }

    /// A source that hands more results than it was asked for, at indices of no experiment
    /// asked (a forged plan line once did): they are dropped, and the runner predicts each
    /// experiment asked from its own.
    @Test func aResultForNoExperimentAskedIsDropped() {
        let forging = PlanSource { experiments, each in
            for (index, wanted) in experiments.enumerated() {
                each(index, .success(wanted.experiment.workload(wanted.parameters)))
            }
            each(experiments.count, .success(Workload()))
            each(-1, .success(Workload()))
        }
        let runner = Runner(executable: BuiltBinary.url, timeScale: 1, profile: .linux, plans: forging)
        let predicted = runner.predictions([serialQueue, concurrentPrinterQueue])
        #expect(
            predicted.map(\.chosen.workload.operations.count)
                == [serialQueue, concurrentPrinterQueue].map { $0.workload().operations.count })
    }

    /// Reads `failing` as failed with `reason`, and the others in process.
    static func source(failing: String, reason: String) -> PlanSource {
        PlanSource { experiments, each in
            for (index, wanted) in experiments.enumerated() {
                each(
                    index,
                    wanted.experiment.name == failing
                        ? .failure(PlanFailure(reason)) : PlanSource.inProcess.read([wanted])[0])
            }
        }
    }

    /// An experiment without a plan is an error with the reason and no child; the run goes on
    /// to the next. Under the Apple profile, nothing runs and the same holds.
    @Test(arguments: [PlatformProfile.Kind.linux, .apple])
    func anExperimentWithoutAPlanIsAnErrorAndRunsNothing(profile: PlatformProfile.Kind) {
        let reason = "its rehearsal trapped (signal 4): Probe.swift:24: Fatal error: Unexpectedly found nil"
        // No child can start from this executable: a child started would be an error of its own.
        let runner = Runner(
            executable: URL(fileURLWithPath: "/nonexistent"), timeScale: 0.05, profile: profile,
            plans: Self.source(failing: startThread.name, reason: reason)
        )
        let results = runner.run([startThread], repeats: 1, stops: { false }, progress: { _ in }, finished: { _, _ in })
        #expect(results.map(\.verdict) == [.error])
        #expect(results.first?.reason == reason)
        #expect(results.first?.measurement == nil)
    }

    /// A result judged against a plan that names constructs the model leaves out.
    static func unmodelled(_ verdict: Verdict) -> ExperimentResult {
        var workload = serialQueue.workload()
        workload.unmodelled = [
            UnmodelledConstruct(
                construct: "DispatchSemaphore.wait()", site: "Probe.swift:22",
                why: "the plan cannot tell what it waits for"),
            UnmodelledConstruct(
                construct: "Thread.detachNewThread", site: nil, why: "the plan holds no threads of the code's own"),
        ]
        let prediction = Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.05)
        return ExperimentResult(
            experiment: serialQueue, prediction: prediction, applePrediction: prediction, measurement: nil,
            verdict: verdict, reason: verdict == .error ? "trapped" : nil, checks: []
        ).unmodelledIfSo()
    }

    @Test func aPlanWithUnmodelledConstructsIsJudgedUnmodelledButAnErrorStaysOne() {
        for verdict in [Verdict.pass, .fail, .predicted] {
            let result = Self.unmodelled(verdict)
            #expect(result.verdict == .unmodelled)
            #expect(
                result.reason
                    == "the plan leaves out what the code does: DispatchSemaphore.wait() at Probe.swift:22: the plan cannot tell what it waits for; Thread.detachNewThread: the plan holds no threads of the code's own"
            )
        }
        #expect(Self.unmodelled(.error).verdict == .error)
        #expect(Self.unmodelled(.error).reason == "trapped")
        // A plan without any keeps its verdict.
        let plain = ExperimentResult(
            experiment: serialQueue,
            prediction: Scheduler.predict(
                serialQueue.workload(), profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.05),
            applePrediction: Scheduler.predict(
                serialQueue.workload(), profile: PlatformProfile(kind: .apple, cpus: 2), timeScale: 0.05),
            measurement: nil, verdict: .pass, reason: nil, checks: []
        )
        #expect(plain.unmodelledIfSo().verdict == .pass)
    }

    /// `serialQueue` as if a learner had written it: its file in a Playground folder holding `text`.
    static func learners(_ text: String = "") throws -> Experiment {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "learner-\(UUID().uuidString)/Experiments/Playground")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("Probe.swift")
        try text.write(to: file, atomically: true, encoding: .utf8)
        var experiment = serialQueue
        experiment.declaration = Experiment.Declaration(path: file.path, line: 1)
        return experiment
    }

    @Test func aLearnersRunThatDoesWhatThePlanLacksIsUnmodelledNotFailed() throws {
        let experiment = try Self.learners()
        #expect(experiment.isLearners)
        let prediction = Scheduler.predict(
            serialQueue.workload(), profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.05)
        let drift = "Probe.swift:5: an operation on 'queue 1' was added that the plan does not have"
        let measurement = MeasuredRun(
            totalSeconds: 0.3, operations: [], output: [], outcome: Outcome(), modelOutOfDate: [drift])
        let result = ExperimentResult(
            experiment: experiment, prediction: prediction, applePrediction: prediction, measurement: measurement,
            verdict: .fail, reason: "a check failed", checks: [Check("'first' ran", passed: false)]
        ).unmodelledIfSo()
        #expect(result.verdict == .unmodelled)
        #expect(result.reason == "the run did what the plan does not have: " + drift)
        #expect(result.checks.isEmpty)
        // An article's experiment with the same run is not excused.
        var articles = result
        articles.experiment = serialQueue
        articles.verdict = .fail
        #expect(articles.unmodelledIfSo().verdict == .fail)
    }

    @Test func whatNoCallReportsIsFoundInTheLearnersCodeNotInItsCommentsOrStrings() throws {
        let experiment = try Self.learners(
            """
            // withDiscardingTaskGroup in a comment
            let text = "withDiscardingTaskGroup in a string"
            await withDiscardingTaskGroup { _ in print("in a group") }
            /* RunLoop.main.run() */
            let thread = Thread { print("mine") }
            Thread.sleep(forTimeInterval: 1)
            """)
        #expect(
            experiment.unseenConstructs.map(\.sentence) == [
                "a discarding task group at Probe.swift:3: the model does not plan discarding task groups yet, only task groups whose children it can count",
                "Thread at Probe.swift:5: the plan holds the queues' threads only, not one of the code's own",
            ])
        #expect(serialQueue.unseenConstructs.isEmpty)
    }

    @Test func anUnmodelledRunIsShownAsMeasuredBesideNoPrediction() {
        var result = Self.unmodelled(.pass)
        result.measurement = MeasuredRun(totalSeconds: 0.3, operations: [], output: [], outcome: Outcome())
        let text = TextRenderer(colour: false)
        let section = text.section(result, position: 1, count: 1)
        #expect(section.contains("Timeline, measured") && !section.contains("predicted by"))
        #expect(!section.contains("model linux") && !section.contains("bounds"))
        let row = ResultSummary.row(result)
        #expect(row[2] == "—" && row[4] == "—", "\(row)")
    }

    @Test func everyFormatSaysUnmodelledAndTheSummaryCountsIt() throws {
        let results = [Self.unmodelled(.pass)]
        let conditions = RunConditions(
            host: HostMachine(cpus: 2, os: "Linux", swift: "6.3"), timeScale: 0.05, profile: .linux)
        let text = TextRenderer(colour: false)
        #expect(text.section(results[0], position: 1, count: 1).contains("UNMODELLED"))
        #expect(text.summary(results, conditions: conditions).contains("0 of 1 passed, 1 unmodelled."))
        let json = JSONWriter.write(JSONRenderer.document(results, conditions: conditions))
        #expect(json.contains(#""verdict": "unmodelled""#) || json.contains(#""verdict":"unmodelled""#))
        #expect(MarkdownRenderer.render(results, conditions: conditions).contains("**Verdict: unmodelled**"))
        let html = HTMLReport.render(results, conditions: conditions, reportDirectory: URL(fileURLWithPath: "/tmp"))
        #expect(html.contains(#"<span class="verdict unmodelled">UNMODELLED</span>"#))
        #expect(html.contains(".verdict.unmodelled {"))
    }
}
