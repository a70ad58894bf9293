import ExperimentResults
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import ExperimentRunner
@testable import Experiments

extension TimedRuns {
    /// The runner starts the next child while one runs: that child prepares, leaves the
    /// thread pool alone until its go (the pool monitor's phase the model relies on is set by the
    /// go), and is killed and reaped when its turn never comes.
    @Suite struct Prelaunch {
        /// Every experiment the runner may start beside another (all but the untimed benchmark,
        /// ``Runner/prepares(_:beside:)``), started ahead, either prepares (plan received,
        /// pictures drawn) and waits with no thread of the pool started, or declines and ends.
        /// libdispatch names its workers after their root queue (`com.apple.root.default-qos`, …),
        /// and the go makes them appear. None declines: a child is sent its plan, and rehearses
        /// nothing that could free a queue on the pool.
        @Test func aPreparedChildLeavesThePoolAloneUntilItsGo() throws {
            let experiments = articleExperiments.filter { $0.timing == .predicted }
            let children = experiments.map {
                ChildProcess.Child.start(
                    executable: BuiltBinary.url,
                    request: ChildProcess.Request(
                        experiment: $0.name, timeScale: 0.1, parameters: $0.defaultParameters), plan: $0.workload(),
                    ahead: true)
            }
            defer { children.forEach { $0.abandon() } }
            var declined: [String] = []
            for (experiment, child) in zip(experiments, children) {
                guard child.waitUntilPrepared() else {
                    declined.append(experiment.name)
                    continue
                }
                #expect(
                    Self.poolThreads(child.processIdentifier).isEmpty,
                    "\(experiment.name) touched the pool before its go: \(Self.poolThreads(child.processIdentifier))")
            }
            #expect(declined.isEmpty, "declined: \(declined)")
            // The check can fail: a child told to go starts the pool's workers.
            let child = try #require(children.first)
            child.go()
            let deadline = Date().addingTimeInterval(10)
            while Self.poolThreads(child.processIdentifier).isEmpty, Date() < deadline { pause(0.01) }
            #expect(!Self.poolThreads(child.processIdentifier).isEmpty, "no pool thread seen after the go")
        }

        /// A child started for a turn that never comes is killed and reaped: no process is left,
        /// not even a zombie.
        @Test func anAbandonedChildIsKilledAndReaped() {
            let child = ChildProcess.Child.start(
                executable: BuiltBinary.url,
                request: ChildProcess.Request(
                    experiment: startThread.name, timeScale: 0.1, parameters: startThread.defaultParameters),
                plan: startThread.workload(), ahead: true)
            let pid = child.processIdentifier
            #expect(child.waitUntilPrepared())
            child.abandon()
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child \(pid) is still there")
        }

        /// A run of two experiments, twice each, starts each next child beside the one running,
        /// judges every run as it does without (all pass, wall time at least the measured time),
        /// and, stopped after its first child, leaves no child behind (the next one, started
        /// already, is killed and reaped).
        @Test func aRunStartsTheNextChildAndLeavesNoneBehind() throws {
            let runner = Runner(executable: BuiltBinary.url, timeScale: 0.1, profile: .linux)
            let results = runner.run(
                [helloWorldGroup, startThread], repeats: 2, stops: { false }, progress: { _ in }, finished: { _, _ in })
            #expect(results.map(\.verdict) == [.pass, .pass], "\(results.map { $0.reason ?? "" })")
            for result in results {
                #expect(
                    (result.wallSeconds ?? 0) >= (result.measurement?.totalSeconds ?? .infinity),
                    "\(result.experiment.name)")
                // Primed ahead or not, each child settled at least the usual time, and no longer
                // than its run allows (no tick of the pool monitor inside it).
                let settle = try #require(result.measurement?.poolSettleSeconds)
                let latest = runner.latestSettleSeconds(for: result.experiment, prediction: result.prediction)
                #expect(
                    settle >= PlatformProfile.settleSeconds && settle <= latest + Runner.goLatencySeconds,
                    "\(result.experiment.name) settled \(settle) s")
            }
            let before = Set(Self.children())
            let stopped = runner.run(
                [helloWorldGroup, startThread], repeats: 1, stops: { true }, progress: { _ in }, finished: { _, _ in })
            // The first child ended before the stop came, so it counts; the next one's turn never came.
            #expect(stopped.map(\.experiment.name) == [helloWorldGroup.name])
            // The child started ahead for start-thread, whose turn never came, is gone, and no
            // zombie is left (its command line reads empty). Other tests' children are left out.
            let leftBehind = Set(Self.children()).subtracting(before).filter { pid in
                let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
                return command.isEmpty
                    || (command.contains(#""waitsForGo":true"#) && command.contains(startThread.name))
            }
            #expect(leftBehind.isEmpty, "left behind: \(leftBehind)")
        }

        /// Which child is primed ahead, and when: a settle before the earliest end of the one
        /// running, later when its latest end would leave the next too long a settle; never
        /// beside CPU work, nor for a child whose CPU work is still to measure.
        @Test func theNextChildIsPrimedASettleBeforeTheRunningOneEnds() throws {
            let runner = Runner(executable: BuiltBinary.url, timeScale: 0.1, profile: .linux)
            func predicted(_ experiment: Experiment) -> (experiment: Experiment, predicted: Runner.Predictions) {
                (experiment, runner.predictions(experiment))
            }
            let (hello, start, serial, filters) = (
                predicted(helloWorldGroup), predicted(startThread), predicted(serialQueue), predicted(filterImages)
            )
            // A short run leaves room before the first tick at 0.97 s; serial-queue (1.6 s) does not,
            // and gets the latitude of a run judged from the settle it measured.
            #expect(runner.latestSettleSeconds(for: helloWorldGroup, prediction: hello.predicted.chosen) > 0.5)
            #expect(
                runner.latestSettleSeconds(for: serialQueue, prediction: serial.predicted.chosen) == PlatformProfile
                    .settleSeconds + Runner.phaseLatitudeSeconds)
            let ends = hello.predicted.chosen.totalRange
            #expect(
                runner.primingSeconds(during: hello, before: start, judging: 0) == ends.lowerBound
                    - PlatformProfile.settleSeconds)
            // Before serial-queue, a judging of 50 ms moves the prime later: an end at the latest,
            // then the judging, still leaves serial-queue a settle it may have.
            let late = try #require(runner.primingSeconds(during: hello, before: serial, judging: 0.05))
            #expect(late > ends.lowerBound - PlatformProfile.settleSeconds)
            let latest = runner.latestSettleSeconds(for: serialQueue, prediction: serial.predicted.chosen)
            #expect(ends.upperBound + 0.05 - late <= latest - Runner.primingSlackSeconds + 1e-9)
            #expect(runner.primingSeconds(during: hello, before: filters, judging: 0) == nil)
            #expect(runner.primingSeconds(during: filters, before: hello, judging: 0) == nil)
        }

        /// A child told to prime touches the pool then, not at its go: half a second between the
        /// two is its settle, and its clock starts at the go.
        @Test func aPrimedChildTouchesThePoolAtItsPrime() throws {
            let child = ChildProcess.Child.start(
                executable: BuiltBinary.url,
                request: ChildProcess.Request(
                    experiment: startThread.name, timeScale: 0.1, parameters: startThread.defaultParameters),
                plan: startThread.workload(), ahead: true)
            defer { child.abandon() }
            try #require(child.waitUntilPrepared())
            child.prime()
            let deadline = Date().addingTimeInterval(10)
            while Self.poolThreads(child.processIdentifier).isEmpty, Date() < deadline { pause(0.01) }
            #expect(!Self.poolThreads(child.processIdentifier).isEmpty, "no pool thread seen after the prime")
            pause(0.5)
            child.go()
            let measurement = try #require(child.finish(watchdogSeconds: 10).measurement)
            let settle = try #require(measurement.poolSettleSeconds)
            #expect(settle >= 0.5, "settled \(settle) s")
        }

        /// The names of `pid`'s threads that are libdispatch's pool workers.
        static func poolThreads(_ pid: pid_t) -> [String] {
            let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
            return tasks.compactMap { try? String(contentsOfFile: "/proc/\(pid)/task/\($0)/comm", encoding: .utf8) }
                .map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
                .filter { $0.contains("qos") || $0.contains("com.apple") }
        }

        /// This process's child processes (zombies included).
        static func children() -> [pid_t] {
            let me = getpid()
            return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
                .filter { pid in
                    // stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its ')'.
                    guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                        let close = stat.lastIndex(of: ")")
                    else { return false }
                    let fields = stat[stat.index(after: close)...].split(separator: " ")
                    return fields.count > 1 && Int32(fields[1]) == me
                }
        }
    }
}
