import ExperimentReports
import ExperimentResults
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import ExperimentRunner
@testable import Experiments
@testable import Pictures

/// What the runner costs beside the experiments: `list`, `describe` and the runner's own
/// prediction draw no picture and calibrate nothing (only the child that runs the work does), and
/// the task-overhead benchmark is sized to the time scale.
@Suite(.serialized, .oneAtATime) struct RunnerCostTests {
    /// The experiments whose plans hold real CPU work: the image filters and the benchmark.
    static let computing: Set<String> = [
        "filter-images", "load-and-filter", "four-images", "four-images-cancel-6s", "table-view-scroll",
        "simple-image-provider", "four-images-async", "task-overhead",
    ]

    @Test func predictingAndDescribingNeitherDrawNorCalibrate() {
        let calibrations = CPUCalibration.count, pictures = SourceImages.requests
        var leavingOut: Set<String> = []
        for profile in [PlatformProfile.Kind.linux, .apple] {
            let runner = Runner(executable: BuiltBinary.url, timeScale: 0.1, profile: profile, cpus: 2)
            for experiment in articleExperiments {
                let predictions = runner.predictions(experiment)
                _ = TextRenderer(colour: false).parameters(of: experiment)
                if predictions.chosen.leavesOutCPUWork { leavingOut.insert(experiment.name) }
                // No figure was made up for the work left to measure, nor calibrated for any.
                #expect(
                    predictions.chosen.workload.operations.allSatisfy { ($0.cpuSeconds ?? 0) == 0 },
                    "\(experiment.name)")
            }
        }
        #expect(!CPUCalibration.isEnabled, "a test process is no child")
        #expect(CPUCalibration.count == calibrations)
        #expect(SourceImages.requests == pictures)
        #expect(leavingOut == Self.computing)
        // The counters do count: a request made here is seen.
        _ = SourceImages.named("city")
        #expect(SourceImages.requests == pictures + 1)
    }

    @Test func theListSaysWhatItLeavesOut() {
        let runner = Runner(executable: BuiltBinary.url, timeScale: 0.1, profile: .linux, cpus: 2)
        let text = TextRenderer(colour: false).list(
            articleExperiments.map { ($0, runner.prediction($0)) }, timeScale: 0.1)
        let lines = text.split(separator: "\n")
        for name in Self.computing {
            #expect(lines.contains { $0.hasPrefix(name + " ") && $0.hasSuffix(" + CPU work") }, "\(name)")
        }
        #expect(lines.filter { $0.hasSuffix(" + CPU work") }.count == Self.computing.count)
        #expect(
            text.contains(
                "\n+ CPU work: real computing (image filters, a benchmark), measured when the experiment runs"))
        let json = JSONWriter.write(
            JSONRenderer.list(
                [(filterImages, runner.prediction(filterImages)), (serialQueue, runner.prediction(serialQueue))],
                conditions: runner.conditions))
        #expect(json.components(separatedBy: "\"leavesOutCPUWork\": true").count == 2)
        #expect(json.components(separatedBy: "\"leavesOutCPUWork\": false").count == 2)
    }

    @Test func theBenchmarkFollowsTheTimeScaleUpToItsFullSize() {
        #expect(TaskOverheadPlan.taskCounts(timeScale: 0.05) == [500, 5_000])
        #expect(TaskOverheadPlan.taskCounts(timeScale: 0.1) == [1_000, 10_000])
        #expect(TaskOverheadPlan.taskCounts(timeScale: 0.5) == [5_000, 50_000])
        #expect(TaskOverheadPlan.taskCounts(timeScale: 1) == TaskOverheadPlan.articleTaskCounts)
        #expect(TaskOverheadPlan.taskCounts(timeScale: 10) == TaskOverheadPlan.articleTaskCounts)
        #expect(
            TaskOverheadPlan.taskCounts(timeScale: 0.001) == [
                TaskOverheadPlan.minimumTasks, TaskOverheadPlan.minimumTasks,
            ])
    }

    @Test func theBenchmarkStatesItsPrecision() {
        // Runs 1, 2, 3, 4 and a cold 100 µs: median 3, distances 0, ⅓, ⅓, ⅔, 32⅓ → ±33 %.
        let cold = OverheadFigure(
            mechanism: .operationQueue, tasks: 1_000, microsecondsPerTask: [100, 1, 2, 3, 4], everyTaskRanOnce: true)
        let steady = OverheadFigure(
            mechanism: .dispatchGroup, tasks: 10_000, microsecondsPerTask: [2, 2, 2, 2, 2.2], everyTaskRanOnce: true)
        #expect(abs(cold.spread - 1.0 / 3) < 1e-12)
        #expect(steady.spread == 0)
        #expect(
            OverheadFigure.precision([cold, steady], repeats: 5, timeScale: 0.1)
                == "each figure: the median of 5 runs of 1 000 and 10 000 tasks, sized to time scale 0.1; half the runs of every figure within ±33 % of its median"
        )
        #expect(
            OverheadFigure.precision([steady], repeats: 5, timeScale: 1)
                == "each figure: the median of 5 runs of 10 000 tasks; half the runs of every figure within ±0 % of its median"
        )
    }
}

/// The child's side of the runner's cost, with real children.
extension TimedRuns {
    @Suite struct ChildCosts {
        /// The benchmark's estimate, calibrated by the child before its clock, reaches the
        /// runner before the clock starts, and sizes the watchdog.
        @Test func theWatchdogIsSizedFromWhatTheChildCalibrated() throws {
            let seen = Mutex<[CPUCost]?>(nil)
            let report = ChildProcess.launch(
                executable: BuiltBinary.url,
                request: ChildProcess.Request(
                    experiment: taskOverhead.name, timeScale: 0.05, parameters: taskOverhead.defaultParameters),
                plan: taskOverhead.workload(), watchdogSeconds: 0.001,
                recounting: { costs in
                    seen.withLock { $0 = costs }
                    return 120
                }
            )
            #expect(report.ending == .returned, "the 1 ms given without the calibration would have stopped it")
            let costs = try #require(seen.withLock { $0 })
            #expect(costs.map(\.label) == [TaskOverheadPlan.label])
            #expect(costs.allSatisfy { $0.source == .calibrated && $0.seconds > 0 })
            // In the run, the benchmark was timed where it ran, and that replaces the estimate.
            #expect(report.measurement?.cpuCosts.map(\.source) == [.measured])
        }

        /// A trapping child dies at its trap: the runtime's backtracer (half a second of
        /// symbolicating, counted as the trap's moment) is off in children; its message stays.
        @Test func aTrapEndsTheChildWithoutABacktrace() throws {
            let report = ChildProcess.launch(
                executable: BuiltBinary.url,
                request: ChildProcess.Request(
                    experiment: operationRunsOnce.name, timeScale: 0.05, parameters: operationRunsOnce.defaultParameters
                ), plan: operationRunsOnce.workload(), watchdogSeconds: 30)
            guard case .trapped = report.ending else {
                Issue.record("expected a trap, got \(report.ending)")
                return
            }
            #expect(report.diagnostics.contains("cannot be enqueued"))
            #expect(!report.diagnostics.contains("Backtracing"), "\(report.diagnostics.prefix(300))")
        }

        /// The progress line's expected time leaves out CPU work measured only when it runs, and
        /// says so, as the list does; an experiment without CPU work gets no mark.
        /// Read from the shared run of the whole registry: a line per experiment, each marked
        /// exactly when the experiment computes.
        @Test func theProgressLineSaysWhatItLeavesOut() async throws {
            let result = try await TimedRuns.fullRun.ran().result
            #expect(result.status == 0, "\(result.stderr)")
            let progress = result.stderr.split(separator: "\n").filter { $0.hasPrefix("[") }
            #expect(progress.count == articleExperiments.count)
            for (line, experiment) in zip(progress, articleExperiments) {
                #expect(line.contains(" \(experiment.name) · expected "), "\(line)")
                let marked = RunnerCostTests.computing.contains(experiment.name)
                #expect(line.contains(" + CPU work · ") == marked && line.contains("CPU work") == marked, "\(line)")
            }
        }

        /// What the runner adds to an experiment beyond the same code in bare Foundation
        /// (Tests/Benchmarks/BareTwins, the twins `twins.py` times): each experiment and its twin
        /// run in turn, five times, at scale 0.05, and the difference of their fastest runs is
        /// shared among the experiment's operations. A busy machine only ever adds time, so the
        /// fastest of several runs is the closest to what each costs. Measured so on the 2-CPU
        /// machine (`twins.py --scale 0.05 --rounds 5`), with a core kept busy (load average
        /// about 2): 0.15–0.3 ms an operation alone, but up to 1.55 ms inside the whole suite,
        /// where the test process and its earlier children share the cores (dependent-thread-reuse's
        /// four operations, where a few milliseconds of noise weigh most). The bound, 2.5 ms,
        /// catches a recording that grows a millisecond an operation costlier, not that noise.
        @Test(arguments: ["serial-queue", "dependent-thread-reuse"])
        func theRunnerAddsLittleToBareFoundation(_ name: String) throws {
            let experiment = try #require(articleExperiments.first { $0.name == name })
            let scale = 0.05
            var bare: [Double] = [], underTheRunner: [Double] = []
            for _ in 0..<5 {
                bare.append(try BareTwin.seconds(name, scale: scale))
                let result = Runner(executable: BuiltBinary.url, timeScale: scale, profile: .linux).result(
                    of: experiment)
                TimedRuns.requirePass(result)
                underTheRunner.append(try #require(result.measurement?.totalSeconds))
            }
            let operations = Double(experiment.workload().operations.count)
            let perOperation = (try #require(underTheRunner.min()) - (try #require(bare.min()))) / operations
            #expect(
                perOperation <= 0.0025,
                "\(name): \(String(format: "%.2f", perOperation * 1000)) ms an operation (bare \(bare), under the runner \(underTheRunner))"
            )
        }

        /// A filter that ran is timed, not calibrated; one cancelled before it ran is calibrated
        /// after the run: the child never calibrates before its clock what it then times.
        @Test func onlyWorkThatDidNotRunIsCalibratedAfterTheRun() async throws {
            // What was calibrated does not depend on the verdict: a late run still shows it.
            let run = try #require(try await TimedRuns.reported(tableViewScroll).measurement)
            let calibrated = Set(run.cpuCosts.filter { $0.source == .calibrated }.map(\.label))
            let ran = Set(run.operations.map(\.label))
            #expect(!calibrated.isEmpty)
            #expect(calibrated.isDisjoint(with: ran))
            #expect(run.cpuCosts.filter { $0.source == .measured }.allSatisfy { ran.contains($0.label) })
        }
    }
}

/// The bare-Foundation twin of an experiment (Tests/Benchmarks/BareTwins), built beside the runner.
enum BareTwin {
    /// Runs the twin of the experiment `name` at `scale` and returns the seconds it printed.
    static func seconds(_ name: String, scale: Double) throws -> Double {
        let process = Process()
        process.executableURL = BuiltBinary.url.deletingLastPathComponent().appendingPathComponent("bare-twins")
        process.arguments = [name, scale.decimalText]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return try #require(printed.split(separator: "\n").last.flatMap { Double($0.split(separator: " ").last ?? "") })
    }
}
