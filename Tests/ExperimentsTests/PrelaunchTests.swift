import Foundation
import Testing
@testable import ExperimentKit
@testable import Experiments
import TestSupport

extension TimedRuns {
    /// The runner starts the next child while one runs (issue 15): that child prepares, leaves the
    /// thread pool alone until its go (the pool monitor's phase the model relies on is set by the
    /// go), and is killed and reaped when its turn never comes.
    @Suite struct Prelaunch {
        /// Every experiment the runner may start beside another (all but the untimed benchmark,
        /// ``Runner/prepares(_:beside:)``), started ahead, either prepares (plan rehearsed,
        /// pictures drawn) and waits with no thread of the pool started, or declines and ends.
        /// libdispatch names its workers after their root queue (`com.apple.root.default-qos`, …),
        /// and the go makes them appear. underlying-queue declines: its rehearsal frees a queue with
        /// specifics, whose destructors libdispatch runs on the pool.
        @Test func aPreparedChildLeavesThePoolAloneUntilItsGo() throws {
            let experiments = allExperiments.filter { $0.timing == .predicted }
            let children = experiments.map {
                ChildProcess.Child.start(executable: BuiltBinary.url, request: ChildProcess.Request(experiment: $0.name, timeScale: 0.1), ahead: true)
            }
            defer { children.forEach { $0.abandon() } }
            var declined: [String] = []
            for (experiment, child) in zip(experiments, children) {
                guard child.waitUntilPrepared() else {
                    declined.append(experiment.name)
                    continue
                }
                #expect(Self.poolThreads(child.processIdentifier).isEmpty, "\(experiment.name) touched the pool before its go: \(Self.poolThreads(child.processIdentifier))")
            }
            #expect(declined.contains(underlyingQueueExperiment.name))
            #expect(!declined.contains(serialQueue.name) && !declined.contains(filterImages.name), "declined: \(declined)")
            // The check can fail: a child told to go starts the pool's workers.
            let child = try #require(children.first)
            child.go()
            let deadline = Date().addingTimeInterval(10)
            while Self.poolThreads(child.processIdentifier).isEmpty, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(!Self.poolThreads(child.processIdentifier).isEmpty, "no pool thread seen after the go")
        }

        /// A child started for a turn that never comes is killed and reaped: no process is left,
        /// not even a zombie.
        @Test func anAbandonedChildIsKilledAndReaped() {
            let child = ChildProcess.Child.start(executable: BuiltBinary.url, request: ChildProcess.Request(experiment: startThread.name, timeScale: 0.1), ahead: true)
            let pid = child.processIdentifier
            #expect(child.waitUntilPrepared())
            child.abandon()
            #expect(kill(pid, 0) == -1 && errno == ESRCH, "the child \(pid) is still there")
        }

        /// A run of two experiments, twice each, starts each next child beside the one running,
        /// judges every run as it does without (all pass, wall time at least the measured time),
        /// and, stopped after its first child, leaves no child behind (the next one, started
        /// already, is killed and reaped).
        @Test func aRunStartsTheNextChildAndLeavesNoneBehind() {
            let runner = Runner(executable: BuiltBinary.url, timeScale: 0.1, profile: .linux)
            let results = runner.run([helloWorldGroup, startThread], repeats: 2, stops: { false }, progress: { _ in }, finished: { _, _ in })
            #expect(results.map(\.verdict) == [.pass, .pass], "\(results.map { $0.reason ?? "" })")
            for result in results {
                #expect((result.wallSeconds ?? 0) >= (result.measurement?.totalSeconds ?? .infinity), "\(result.experiment.name)")
            }
            let before = Set(Self.children())
            let stopped = runner.run([helloWorldGroup, startThread], repeats: 1, stops: { true }, progress: { _ in }, finished: { _, _ in })
            #expect(stopped.isEmpty)
            // The child started ahead for start-thread, whose turn never came, is gone, and no
            // zombie is left (its command line reads empty). Other tests' children are left out.
            let leftBehind = Set(Self.children()).subtracting(before).filter { pid in
                let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
                return command.isEmpty || (command.contains(#""waitsForGo":true"#) && command.contains(startThread.name))
            }
            #expect(leftBehind.isEmpty, "left behind: \(leftBehind)")
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
            return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }.filter { pid in
                // stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its ')'.
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8), let close = stat.lastIndex(of: ")") else { return false }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                return fields.count > 1 && Int32(fields[1]) == me
            }
        }
    }
}
