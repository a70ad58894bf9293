import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

/// What the built binary says of runs it makes: every child of a repetition counted, the runs a
/// signal left of one shown, and why nothing ran when the CPUs asked for are more than the
/// machine's. They start children, so they run with the other timed tests, one at a time.
extension TimedRuns {
    @Suite struct CommandLineRuns {
        /// The shortest experiment there is (12.5 ms at 0.05): a repetition of it costs its children's starts.
        static let shortest = "start-thread"

        @Test func theRunnerLineCountsEveryChildOfARepetition() throws {
            let result = try BuiltBinary.run([Self.shortest, "--repeat", "3", "--time-scale", "0.05"], timeout: 60)
            let runner = try #require(
                result.stdout.split(separator: "\n").first { $0.hasPrefix("  runner: ") }, "\(result.stdout)")
            #expect(runner.contains(" measured in 3 children; ") && runner.hasSuffix(" ms per child"), "\(runner)")
            // Three runs of at least the 12.5 ms the experiment sleeps each, in more wall time than that.
            let figures = runner.split(separator: " ").compactMap { Double($0) }
            #expect(figures.count >= 2 && figures[1] >= 3 * 0.0125 && figures[0] >= figures[1], "\(runner)")
        }

        /// More CPUs than this machine has: nothing runs, and the summary says that is why.
        @Test func moreCPUsThanTheMachineHasIsTheReasonGiven() throws {
            let cpus = ProcessInfo.processInfo.activeProcessorCount
            try #require(cpus < PlatformProfile.maximumWorkers, "a machine with fewer CPUs than --cpus accepts")
            let result = try BuiltBinary.run(
                [Self.shortest, "--cpus", "\(cpus + 1)", "--time-scale", "0.05"], timeout: 30)
            #expect(result.status == 0)
            #expect(
                result.stdout.hasSuffix(
                    "  1 predicted, nothing run (\(cpus + 1) CPUs asked, this machine has \(cpus)).\n"),
                "\(result.stdout)")
            #expect(
                result.stderr.contains("Predicting for \(cpus + 1) CPUs: this machine has \(cpus), so nothing runs."))
        }
    }
}

/// A signal in the middle of a repetition, beside the other signals the runner meets.
extension TimedRuns.HostileEnvironment {
    /// SIGINT after the third of 50 runs has been announced: the runs that finished (at least
    /// two, each ended before the next was announced) are the summary's row, the report's and
    /// the stderr line's, and no child outlives the runner.
    @Test func anInterruptedRepetitionShowsTheRunsThatFinished() throws {
        let folder = try BuiltBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let report = folder.appendingPathComponent("report")
        let shortest = TimedRuns.CommandLineRuns.shortest
        let (process, out, err) = try start([
            shortest, "--repeat", "50", "--time-scale", "0.05", "--report-dir", report.path,
        ])
        nonisolated(unsafe) var stdoutData = Data()
        let reading = Thread { stdoutData = out.fileHandleForReading.readDataToEndOfFile() }
        reading.start()
        var stderr = read(err, until: "(run 3/50)")
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        stderr += String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        while !reading.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        let stdout = String(decoding: stdoutData, as: UTF8.self)

        #expect(process.terminationStatus == 128 + SIGINT)
        let interrupted = try #require(
            stderr.split(separator: "\n").first { $0.hasPrefix("Interrupted by signal \(SIGINT): ") }, "\(stderr)")
        let prefix = "Interrupted by signal \(SIGINT): 0 of 1 experiment finished; "
        #expect(interrupted.hasPrefix(prefix) && interrupted.hasSuffix(" of 50 runs of \(shortest)."), "\(interrupted)")
        let finished = try #require(Int(interrupted.dropFirst(prefix.count).prefix { $0.isNumber }))
        #expect((2..<50).contains(finished), "\(interrupted)")
        #expect(stdout.contains("── 1/1 \(shortest) "), "its section is printed")
        #expect(
            stdout.contains(
                "  \(shortest): only \(finished) of its 50 runs finished before the interrupt; its row is theirs"),
            "\(stdout)")
        #expect(
            stdout.contains("/\(finished) passed)")
                && stdout.contains(" measured in \(Format.count(finished, "child", "children")); "), "\(stdout)")
        let document = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: report.appendingPathComponent("report.json")))
                as? [String: Any])
        #expect((document["interrupted"] as? [String: Any])?["signal"] as? Int == Int(SIGINT))
        let experiment = try #require((document["experiments"] as? [[String: Any]])?.first)
        #expect(experiment["name"] as? String == shortest && experiment["runsAsked"] as? Int == 50)
        #expect((experiment["repeats"] as? [[String: Any]])?.count == finished)
        #expect(childProcessesLeft().isEmpty, "no child outlives the runner")
    }
}

/// What a CI job gets from the built binary: the JUnit file beside the text, and a comparison
/// with an earlier run's report.json that holds when the runs are alike and refuses a run at
/// another time scale.
extension TimedRuns.CommandLineRuns {
    @Test func aRunWritesJUnitAndComparesWithAnEarlierReport() throws {
        let folder = try BuiltBinary.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let earlier = try BuiltBinary.run([Self.shortest, "--time-scale", "0.05", "--format", "json"], timeout: 60)
        #expect(earlier.status == 0, "\(earlier.stderr)")
        let report = folder.appendingPathComponent("report.json")
        try Data(earlier.stdout.utf8).write(to: report)
        let junit = folder.appendingPathComponent("results.xml")

        // A threshold no run-to-run noise reaches: this is about what is written, not about timing.
        let alike = try BuiltBinary.run(
            [
                Self.shortest, "--time-scale", "0.05", "--junit", junit.path, "--compare", report.path,
                "--compare-threshold", "1000%",
            ], timeout: 60
        )
        #expect(alike.status == 0, "\(alike.stdout)\(alike.stderr)")
        #expect(
            alike.stderr.contains(
                "Comparing each timed total with \(report.path) (time scale 0.05, profile linux), within ±(1000 % + 0.01 s)."
            ))
        #expect(
            alike.stdout.contains("against the earlier run's") && alike.stdout.contains("earlier run"),
            "\(alike.stdout)")
        let xml = try String(contentsOf: junit, encoding: .utf8)
        #expect(xml.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"#))
        #expect(
            xml.contains(#"<testcase classname="article "#) && xml.contains(#" name="\#(Self.shortest)" time=""#),
            "\(xml)")
        #expect(!xml.contains("<failure"), "\(xml)")

        let otherScale = try BuiltBinary.run(
            [Self.shortest, "--time-scale", "0.1", "--format", "junit", "--compare", report.path], timeout: 60)
        #expect(otherScale.status == 1)
        #expect(
            otherScale.stderr.contains(
                "Warning: that run is not comparable with this one (time scale 0.05 there, 0.1 here): every timed total it holds fails the comparison."
            ), "\(otherScale.stderr)")
        #expect(
            otherScale.stdout.contains(
                #"<failure message="compared with the earlier run: not comparable, time scale 0.05 there, 0.1 here""#),
            "\(otherScale.stdout)")
    }

    @Test func anUnreadableEarlierReportOrJUnitFileIsAUsageError() throws {
        let missing = try BuiltBinary.run([Self.shortest, "--compare", "/nonexistent/report.json"], timeout: 30)
        #expect(missing.status == 64)
        #expect(
            missing.stderr.hasPrefix(
                "Error: --compare '/nonexistent/report.json' cannot be read: there is no such file.\n"),
            "\(missing.stderr)")
        let nowhere = try BuiltBinary.run([Self.shortest, "--junit", "/nonexistent/results.xml"], timeout: 30)
        #expect(nowhere.status == 64)
        #expect(
            nowhere.stderr.hasPrefix(
                "Error: --junit '/nonexistent/results.xml' cannot be written: its folder '/nonexistent' is missing or not writable.\n"
            ), "\(nowhere.stderr)")
    }
}
