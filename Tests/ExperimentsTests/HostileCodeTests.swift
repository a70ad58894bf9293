import Foundation
import Testing
import ExperimentModel
import ExperimentKit
import ExperimentRunner
import ExperimentReports
import ReportFiles
import ExperimentCLI
@testable import Experiments
import TestSupport

/// A learner's code that traps, or never returns, in its rehearsal or in its run: the runner
/// reports that experiment as an error naming the line, runs the others, and still stops at
/// once on a signal. Built on the kept copy of the package (``LearnerCopy``), once for all of
/// them and the learner corpus, with these experiments in its Playground folder.
extension TimedRuns {
    @Suite(.serialized) struct HostileCode {
        /// The experiments' code, by name; their file names put them in this order.
        static let code: [(name: String, body: String)] = [
            ("a-trap", """
                let missing: String? = nil
                print("\\(missing!)")
            """),
            ("b-spin", """
                var spins = 0
                while spins >= 0 { spins = (spins + 1) % 1_000 }
            """),
            ("c-fine", """
                let queue = OperationQueue()
                queue.addOperation { print("fine"); sleep(1) }
                queue.waitUntilAllOperationsAreFinished()
            """),
            ("d-run-trap", """
                let missing: String? = nil
                if !context.isRehearsal { print("\\(missing!)") }
            """),
            ("e-run-spin", """
                var spins = 0
                while !context.isRehearsal, spins >= 0 { spins = (spins + 1) % 1_000 }
            """),
        ]

        /// The copy's binary, built with these experiments and the corpus's, and the line of
        /// each experiment's file that traps or spins (`ATrap.swift:18`): the body's last.
        static var built: Result<(binary: URL, lines: [String: String]), any Error> {
            LearnerCopy.built.map { built in
                (built.binary, Dictionary(uniqueKeysWithValues: code.map { name, body in
                    let last = body.components(separatedBy: "\n").last!.trimmingCharacters(in: .whitespaces)
                    return (name, built.site(of: last, in: name) ?? "")
                }))
            }
        }

        /// The processes whose command line starts with `binary` and `marker` (its children).
        static func children(of binary: URL, marker: String) -> [pid_t] {
            let prefix = "\(binary.resolvingSymlinksInPath().path) \(marker) "
            return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid in
                guard pid.allSatisfy(\.isNumber), let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
                return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: " ").hasPrefix(prefix) ? pid_t(pid) : nil
            }
        }

        /// Waits until a child with `marker` runs (at most `timeout` seconds) and returns them.
        static func waitForChildren(of binary: URL, marker: String, timeout: Double = 30) -> [pid_t] {
            let deadline = Date().addingTimeInterval(timeout)
            var found = children(of: binary, marker: marker)
            while found.isEmpty, Date() < deadline {
                pause(0.005)
                found = children(of: binary, marker: marker)
            }
            return found
        }

        @Test(.timeLimit(.minutes(30))) func aTrapOrAHangIsThatExperimentsErrorAndTheRunGoesOn() throws {
            let (binary, lines) = try Self.built.get()
            let started = Date()
            let ran = try PlaygroundEndToEnd.run(binary, ["a-trap", "b-spin", "c-fine", "d-run-trap", "--time-scale", "0.05", "--format", "json"], in: binary.deletingLastPathComponent(), timeout: 60)
            let seconds = Date().timeIntervalSince(started)
            #expect(ran.status == 1)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran.stderr)")
            let results = (document["experiments"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0["verdict"] as? String ?? "", $0["reason"] as? String ?? "") }
            #expect(results.map(\.0) == ["a-trap", "b-spin", "c-fine", "d-run-trap"])
            let reasons = Dictionary(uniqueKeysWithValues: results.map { ($0.0, $0.2) })
            #expect(results.map(\.1) == ["error", "error", "pass", "error"], "\(reasons)")
            #expect(reasons["a-trap"]?.contains("\(lines["a-trap"]!): Fatal error: Unexpectedly found nil while unwrapping an Optional value") == true, "\(reasons)")
            // The line the loop was interrupted on; the file alone when the interrupted instruction
            // belongs to no line (the loop's jump back), never another line.
            let spinSite = lines["b-spin"]!, spinFile = String(spinSite.prefix { $0 != ":" })
            let stuck = reasons["b-spin"] ?? ""
            #expect(stuck.contains("did not return within 3 s, stuck at \(spinSite);") || stuck.contains("did not return within 3 s, stuck at \(spinFile);"), "\(reasons)")
            #expect(reasons["d-run-trap"]?.contains("\(lines["d-run-trap"]!): Fatal error: Unexpectedly found nil") == true, "\(reasons)")
            // The watchdog's 3 s, the fine one's 0.05 s, and a few process starts; 5 s of room
            // for a loaded machine.
            #expect(seconds > PlanChild.rehearsalLimitSeconds && seconds < PlanChild.rehearsalLimitSeconds + 5, "\(seconds) s")
            #expect(Self.children(of: binary, marker: PlanChild.command).isEmpty)
        }

        /// A signal during a busy loop, in a rehearsal (the plan child: nothing has run) or in
        /// a run (the run child: c-fine, before it in the registry, has), ends the run within a
        /// second, with the summary and no child left.
        @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))], [("b-spin", PlanChild.command, 0), ("e-run-spin", ChildProcess.command, 1)])
        func aSignalDuringABusyLoopEndsTheRun(signal: (Int32, Int32), spinning: (String, String, Int)) throws {
            let (number, status) = signal
            let (name, marker, finished) = spinning
            let (binary, _) = try Self.built.get()
            let process = Process()
            process.executableURL = binary
            process.arguments = [name, "c-fine", "--time-scale", "0.05"]
            let out = Pipe(), err = Pipe()
            (process.standardOutput, process.standardError) = (out, err)
            // Dispatch's own semaphore: this file sees the Experiments module's instrumented one too.
            let ended = DispatchSemaphore(permits: 0)
            process.terminationHandler = { _ in _ = ended.dispatchSignal() }
            try process.run()
            let children = Self.waitForChildren(of: binary, marker: marker)
            #expect(!children.isEmpty, "the spinning child started")
            // Well into the loop: the child has loaded and started the code.
            pause(0.3)
            let sent = DispatchTime.now()
            kill(process.processIdentifier, number)
            // One second, as asked of the runner; the wait ends as soon as it exits.
            let endedInTime = ended.dispatchWait(timeout: sent + 1) == .success
            #expect(endedInTime, "it ended within 1 s of the signal")
            if !endedInTime { process.terminate() }
            process.waitUntilExit()
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == status)
            #expect(stdout.contains("Summary"), "\(stdout)")
            #expect(stderr.contains("Interrupted by signal \(number): \(finished) of 2 experiments finished."), "\(stderr)")
            // A child killed is gone at once; a third of a second of room for the kernel to reap it.
            let deadline = Date().addingTimeInterval(0.3)
            var left = Self.children(of: binary, marker: marker)
            while !left.isEmpty, Date() < deadline {
                pause(0.01)
                left = Self.children(of: binary, marker: marker)
            }
            #expect(left.isEmpty, "no child outlives the runner: \(left)")
        }
    }
}
