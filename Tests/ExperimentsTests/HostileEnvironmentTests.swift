import Foundation
import Testing
@testable import ExperimentKit
@testable import Experiments

/// The runner when its environment turns against it: signals, a reader that goes away, children
/// that trap, hang, print garbage or fail. These start real processes, so they run with the
/// other timed tests, one at a time.
extension TimedRuns {
    @Suite struct HostileEnvironment {
        /// Starts the built binary; returns the process and its stdout/stderr pipes.
        func start(_ arguments: [String]) throws -> (Process, Pipe, Pipe) {
            let process = Process()
            process.executableURL = BuiltBinary.url
            process.arguments = arguments
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            return (process, out, err)
        }

        /// Processes whose command line holds the child marker.
        func childProcesses() -> [String] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
                let line = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: " ")
                return line.contains(" \(ChildProcess.command) ") ? line : nil
            }
        }

        @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143))])
        func aSignalStopsTheChildAndPrintsWhatFinished(signal: Int32, status: Int32) throws {
            let (process, out, err) = try start(["printer-queue-max-2", "serial-queue", "--time-scale", "0.5"])
            Thread.sleep(forTimeInterval: 5)  // printer-queue-max-2 (4 s) has finished; serial-queue runs
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == status)
            #expect(stdout.contains("Summary") && stdout.contains("printer-queue-max-2") && stdout.contains("1 of 1 passed"))
            #expect(stderr.contains("Interrupted by signal \(signal): 1 of 2 experiments finished."))
            Thread.sleep(forTimeInterval: 0.3)
            #expect(childProcesses().isEmpty, "no child outlives the runner")
        }

        @Test func aReaderThatGoesAwayEndsTheRunQuietly() throws {
            let (process, out, err) = try start(["all", "--time-scale", "0.05"])
            _ = out.fileHandleForReading.availableData  // the first chunk of output
            try out.fileHandleForReading.close()
            let started = Date()
            process.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == RunExperimentsCommand.outputClosedStatus)
            #expect(Date().timeIntervalSince(started) < 10, "it stops soon, not after the whole run")
            #expect(!stderr.contains("Fatal") && !stderr.contains("Error"))
            Thread.sleep(forTimeInterval: 0.3)
            #expect(childProcesses().isEmpty)
        }

        /// A stand-in child: a shell script that misbehaves as told.
        func misbehavingChild(_ body: String) throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).sh")
            try "#!/bin/sh\n\(body)\n".write(to: url, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            return url
        }

        @Test(arguments: [
            ("echo 'not a timeline'; exit 0", "the child exited without reporting the experiment's end"),
            ("echo 'broken' >&2; exit 3", "the child exited with status 3: broken"),
            ("kill -SEGV $$", "trapped: the child was killed by signal 11"),
            ("exec sleep 30", "hung: no result after 1.0 s"),
        ])
        func aMisbehavingChildIsAnErrorWithItsReason(body: String, reason: String) throws {
            let child = try misbehavingChild(body)
            defer { try? FileManager.default.removeItem(at: child) }
            let experiment = serialQueue
            let prediction = Scheduler.predict(experiment.workload(), profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.1)
            let report = ChildProcess.launch(executable: child, request: ChildProcess.Request(experiment: experiment.name, timeScale: 0.1), watchdogSeconds: 1)
            let result = ExperimentResult.judging(report, of: experiment, prediction: prediction, applePrediction: prediction)
            #expect(result.verdict == .error)
            #expect(result.reason?.hasPrefix(reason) == true, "\(result.reason ?? "no reason")")
        }
    }
}
