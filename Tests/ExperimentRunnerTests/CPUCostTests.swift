import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentReports
@testable import ExperimentResults
@testable import ExperimentRunner

/// CPU work counted where it runs: the child's figures reach the model and the verdict, the
/// timed run ends before the files are written, and a failed bound reads as a failure.
@Suite(.serialized, .oneAtATime) struct CPUCostTests: TwoCPUProfiles {

    /// Two filters one after another (a queue of width 1): each sleeps one article second, then
    /// computes for `cpu` real seconds.
    static func filters(cpu: Double) -> Workload {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "q", maxConcurrentOperationCount: 1))
        for label in ["a", "b"] {
            workload.add(PlannedOperation(label: label, articleSeconds: 1, executor: .queue(queue), cpuSeconds: cpu))
        }
        return workload
    }

    static let experiment = Experiment("filters", source: ArticleSource(file: "f", section: "s")) { _, _ in Outcome() }
        .title("filters")
        .summary("")
        .claim("", seconds: nil)
        .expectedOutcome("")
        .platformDifference("")
        .plannedAs { filters(cpu: 0.01) }

    static func close(_ value: Double, _ expected: Double) -> Bool {
        abs(value - expected) < 1e-9
    }

    @Test func theChildsFiguresReplaceTheCalibration() {
        let planned = Scheduler.predict(Self.filters(cpu: 0.01), profile: Self.linux, timeScale: 0.1)
        #expect(Self.close(planned.total, 0.22))
        let counted = planned.counting([
            CPUCost(label: "a", seconds: 0.1, source: .measured),
            CPUCost(label: "b", seconds: 0.03, source: .calibrated),
        ])
        #expect(counted.workload.operations.map(\.cpuSeconds) == [0.1, 0.03])
        // a: 0.1 s asleep, 0.1 s computing; b starts then: 0.1 s asleep, 0.03 s computing.
        #expect(Self.close(counted.nominal.spans[1]!.start, 0.2))
        #expect(Self.close(counted.total, 0.33))
        #expect(counted.timeScale == planned.timeScale && counted.profile == planned.profile)
        #expect(planned.counting([]) == planned, "nothing reported: the plan stands")
    }

    /// A busy machine: each filter took 140 ms instead of the 10 ms the parent calibrated.
    static func busyRun(reportingCosts: Bool) -> ChildProcess.Report {
        let measured = MeasuredRun(
            totalSeconds: 0.48, enqueueSeconds: nil,
            operations: [
                OperationSpan(label: "a", start: 0, end: 0.24, thread: 1),
                OperationSpan(label: "b", start: 0.24, end: 0.48, thread: 1),
            ],
            output: [], outcome: Outcome(),
            cpuCosts: reportingCosts ? ["a", "b"].map { CPUCost(label: $0, seconds: 0.14, source: .measured) } : []
        )
        return ChildProcess.Report(ending: .returned, measurement: measured, diagnostics: "")
    }

    @Test func theVerdictHoldsTheRunToWhatItsWorkCostThere() {
        let planned = Scheduler.predict(Self.experiment.workload(), profile: Self.linux, timeScale: 0.1)
        let apple = Scheduler.predict(Self.experiment.workload(), profile: Self.apple, timeScale: 0.1)
        let counted = ExperimentResult.judging(
            Self.busyRun(reportingCosts: true), of: Self.experiment, prediction: planned, applePrediction: apple)
        #expect(counted.verdict == .pass, "\(counted.reason ?? "")")
        #expect(Self.close(counted.prediction.total, 0.48))
        #expect(Self.close(counted.applePrediction.total, 0.48))
        #expect(counted.checks[0].description == "total 0.48 s within 0.41–0.55 s (model 0.48 s ±(5 % + 0.05 s))")

        // The same run held to the parent's calibration fails, and its reasons read as failures.
        let calibrated = ExperimentResult.judging(
            Self.busyRun(reportingCosts: false), of: Self.experiment, prediction: planned, applePrediction: apple)
        #expect(calibrated.verdict == .fail)
        #expect(calibrated.reason == "total 0.48 s outside 0.16–0.28 s (model 0.22 s ±(5 % + 0.05 s))")
        #expect(calibrated.checks[1].description == "'b' started at 0.24 s outside 0.05–0.17 s (predicted 0.11 s)")
    }

    @Test func aFailedBoundReadsAsAFailure() {
        #expect(TimingChecks.placed(0.31, in: 0.25...0.39) == "0.31 s within 0.25–0.39 s")
        #expect(TimingChecks.placed(0.43, in: 0.25...0.39) == "0.43 s outside 0.25–0.39 s")
        // Just past a bound, a third digit: it must not print as the bound it crossed.
        #expect(TimingChecks.placed(0.2347, in: 0.11...0.2341) == "0.235 s outside 0.110–0.234 s")
        #expect(TimingChecks.placed(0.1096, in: 0.11...0.2341) == "0.1096 s outside 0.1100–0.2341 s")

        let overlapping = MeasuredRun(
            totalSeconds: 0.4, enqueueSeconds: nil,
            operations: [
                OperationSpan(label: "a", start: 0, end: 0.3, thread: 1),
                OperationSpan(label: "b", start: 0.1, end: 0.4, thread: 2),
            ],
            output: [], outcome: Outcome()
        )
        let prediction = Scheduler.predict(Self.filters(cpu: 0), profile: Self.linux, timeScale: 0.1)
        let overlap = TimingChecks.checks(overlapping, against: prediction)[2]
        #expect(!overlap.passed)
        #expect(overlap.description == "at most 2 ran at once, not the 1 predicted")
    }

    @Test func timingsInTheRunReplaceTheCalibrationAndAverage() throws {
        var assembler = MeasuredRunAssembler()
        assembler.add(.clockStarted(uptimeNanoseconds: 1_000_000_000))
        assembler.add(.cpuCost(CPUCost(label: "a", seconds: 0.01, source: .calibrated)))
        assembler.add(.cpuCost(CPUCost(label: "b", seconds: 0.02, source: .calibrated)))
        assembler.add(.cpuCost(CPUCost(label: "a", seconds: 0.25, source: .measured)))
        assembler.add(.cpuCost(CPUCost(label: "a", seconds: 0.75, source: .measured)))
        assembler.add(.cpuCost(CPUCost(label: "a", seconds: 0.01, source: .calibrated)))
        assembler.add(.finished(totalSeconds: 1))
        let run = try #require(assembler.measurement(stoppedAt: nil))
        #expect(
            run.cpuCosts == [
                CPUCost(label: "a", seconds: 0.5, source: .measured),
                CPUCost(label: "b", seconds: 0.02, source: .calibrated),
            ])
    }

    @Test func theTimelineTimesTheWorkAndStopsBeforeTheFiles() throws {
        let timeline = Timeline(clock: MonotonicClock())
        timeline.calibrated(Self.filters(cpu: 0.004))
        // The operation waits 30 ms, then works for 20 ms (a sleep stands in for the work).
        let result = timeline.computing("a", after: { Thread.sleep(forTimeInterval: 0.03) }) { () -> Int in
            Thread.sleep(forTimeInterval: 0.02)
            return 7
        }
        timeline.stopClock()
        let stopped = timeline.now()
        // What comes after the stop (writing pictures) is not part of the total.
        Thread.sleep(forTimeInterval: 0.05)
        timeline.stopClock()
        timeline.finish(outcome: Outcome([Outcome.Field("images", .strings(["x.png"]))]))
        let run = try #require(timeline.measurement())
        #expect(result == 7)
        #expect(run.totalSeconds >= 0.05 && run.totalSeconds <= stopped, "taken at the first stop, not at the return")
        #expect(run.outcome["images"] == .strings(["x.png"]))
        let row = try #require(run.span("a"))
        #expect(row.end - row.start >= 0.05, "the row holds the wait and the work")
        #expect(run.cpuCosts.map(\.label) == ["a", "b"])
        let work = run.cpuCosts[0]
        #expect(work.source == .measured && work.seconds >= 0.02)
        #expect(work.seconds <= row.end - row.start - 0.03, "the wait is not counted as work")
        #expect(run.cpuCosts[1] == CPUCost(label: "b", seconds: 0.004, source: .calibrated))
    }

    @Test func theHostLineShowsTheLoad() {
        let load = LoadAverage(oneMinute: 2.77, fiveMinutes: 1.57, fifteenMinutes: 0.71)
        #expect(LoadAverage.parse("2.77 1.57 0.71 4/111 11329\n") == load)
        #expect(LoadAverage.parse("") == nil)
        #expect(LoadAverage.parse("2.77 busy 0.71") == nil)
        #expect(LoadAverage.parse("nan 1 1") == nil)
        #if os(Linux)
        #expect(LoadAverage.current() != nil)
        #endif
        var host = HostMachine(cpus: 2, os: "Linux 6.0.0", swift: "6.3", loadAverage: load)
        #expect(
            ResultSummary.hostLine(RunConditions(host: host, timeScale: 0.05, profile: .linux))
                == "host: 2 CPUs · Linux 6.0.0 · Swift 6.3 · time scale 0.05 · profile linux",
            "nothing ran: neither the load nor the jitter")
        host.timerJitter = TimerJitter(median: 0.00007, maximum: 0.0002)
        #expect(
            ResultSummary.hostLine(RunConditions(host: host, timeScale: 0.05, profile: .linux))
                == "host: 2 CPUs · Linux 6.0.0 · Swift 6.3 · time scale 0.05 · profile linux · load average 2.77, 1.57, 0.71 (1, 5, 15 min) on 2 CPUs · timer jitter 70 µs median, 200 µs max (20 × 1 ms sleeps)"
        )
        let json = JSONWriter.write(JSONRenderer.hostValue(host))
        #expect(json.contains("\"oneMinute\": 2.77") && json.contains("\"fifteenMinutes\": 0.71"))
    }
}
