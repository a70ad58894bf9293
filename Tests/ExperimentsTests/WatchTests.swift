import ExperimentModel
import Foundation
import TestSupport
import Testing

/// `run-experiments watch` on a learner's experiment in a copy of the package, as a learner
/// uses it: saves rebuild and run again, a broken save shows the compiler's error, Ctrl-C ends it.
///
/// It shares the playground test's kept copy, built as `watch` and `swift run` build it (a copy
/// built two ways would be rebuilt whole at each turn), and like that test it runs among the
/// timed runs, so its builds never run beside a timed experiment.
extension TimedRuns {
    @Suite struct WatchEndToEnd {
        typealias EndToEnd = PlaygroundEndToEnd

        static let copy = EndToEnd.keptCopy

        /// A `watch` running in the background, its stdout and stderr in one file.
        final class Watching {
            let process = Process()
            let output: URL

            /// `environment`: watch's; nil, this process's.
            init(_ arguments: [String], in folder: URL, environment: [String: String]? = nil) throws {
                output = FileManager.default.temporaryDirectory.appendingPathComponent(
                    "run-experiments-watch-\(UUID().uuidString).out")
                try Data().write(to: output)
                process.executableURL = folder.appendingPathComponent(".build/debug/run-experiments")
                process.arguments = arguments
                process.currentDirectoryURL = folder
                process.environment = environment
                let file = try FileHandle(forWritingTo: output)
                process.standardOutput = file
                process.standardError = file
                try process.run()
            }

            deinit {
                if process.isRunning { kill(process.processIdentifier, SIGKILL) }
                try? FileManager.default.removeItem(at: output)
            }

            var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

            /// The output once `done` holds of it, or as it is after `timeout` seconds.
            func output(within timeout: Double, until done: (String) -> Bool) -> String {
                let deadline = Date().addingTimeInterval(timeout)
                while Date() < deadline {
                    if done(text) { break }
                    usleep(50_000)
                }
                return text
            }

            /// The output after the `count`-th "Watching" line: that many rounds have ended.
            func rounds(_ count: Int, within timeout: Double = 120) -> String {
                output(within: timeout) { $0.components(separatedBy: "Watching ").count > count }
            }
        }

        /// The live processes whose environment carries a lineage mark of `pid`'s children.
        static func lineage(of pid: Int32) -> [String] {
            let entry = Data("RUN_EXPERIMENTS_LINEAGE=\(pid)-".utf8)
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return processes.filter {
                Int32($0) != nil && FileManager.default.contents(atPath: "/proc/\($0)/environ")?.range(of: entry) != nil
            }
        }

        static func expectedSeconds(in copy: URL) throws -> Double? {
            let data = try Data(contentsOf: copy.appendingPathComponent("Reports/latest/report.json"))
            let experiment =
                ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["experiments"] as? [[String: Any]])?
                .first
            return (experiment?["expected"] as? [String: Any])?["seconds"] as? Double
        }

        /// The kept copy, with the learner's `my-queue` made by `new` and built as `watch`
        /// builds it: the copy, the learner's file and the starter it holds. The caller holds
        /// the copy's lock.
        static func learnersExperiment() throws -> (copy: URL, file: URL, starter: String) {
            let copy = try EndToEnd.copyOfThePackage(in: Self.copy)
            let made = try EndToEnd.run(BuiltBinary.url, ["new", "my-queue"], in: copy, timeout: 30)
            #expect(made.status == 0, "\(made.stderr)")
            let build = try EndToEnd.run(
                EndToEnd.env, ["swift", "build", "--product", "run-experiments"], in: copy, timeout: 1200)
            try #require(build.status == 0, "\(build.stdout.suffix(2000)) \(build.stderr.suffix(2000))")
            let file = copy.appendingPathComponent("Experiments/Playground/MyQueue.swift")
            // As `watch` does after a build: when the copy's last build was of this same text
            // (a test interrupted before its edit was built), nothing is linked again, and the
            // executable would be older than the file `new` has just written.
            utimensat(AT_FDCWD, copy.appendingPathComponent(".build/debug/run-experiments").path, nil, 0)
            return (copy, file, try String(contentsOf: file, encoding: .utf8))
        }

        /// The learner's edit: a closure of two seconds, printing `Знать 4`, after the starter's
        /// last; the edited file and the new closure's line.
        static func addingAClosure(to starter: String) throws -> (edited: String, line: Int) {
            let last = "    printerQueue.addOperation { print(\"Желает 🍋\"); sleep(1) }\n"
            let edited = starter.replacingOccurrences(
                of: last, with: last + "    printerQueue.addOperation { print(\"Знать 4\"); sleep(2) }\n")
            try #require(edited != starter)
            return (
                edited, try #require(edited.components(separatedBy: "\n").firstIndex { $0.contains("Знать 4") }) + 1
            )
        }

        /// Every build a watch makes sees the same environment, the first one (made after the
        /// first round) and a save's: SwiftPM keys its cache of the evaluated manifest on the whole
        /// environment, and a build seeing another would compile and run `Package.swift` again.
        /// Seen by a `swift` first on the PATH that writes its environment down, then runs the real one.
        @Test(.timeLimit(.minutes(30))) func everyBuildOfAWatchSeesTheSameEnvironment() throws {
            let lock = try EndToEnd.lockTheCopy(Self.copy)
            defer { close(lock) }
            let (copy, file, starter) = try Self.learnersExperiment()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "run-experiments-swift-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            var environment = ProcessInfo.processInfo.environment
            let path = environment["PATH"] ?? "/usr/bin:/bin"
            let swift = try #require(
                path.split(separator: ":").map { "\($0)/swift" }.first {
                    FileManager.default.isExecutableFile(atPath: $0)
                })
            let recorder = folder.appendingPathComponent("swift")
            try "#!/bin/sh\nenv | sort > \"\(folder.path)/build-$$.env\"\nexec \"\(swift)\" \"$@\"\n".write(
                to: recorder, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: recorder.path)
            environment["PATH"] = folder.path + ":" + path

            let watching = try Watching(
                ["watch", "my-queue", "--time-scale", EndToEnd.scale.decimalText], in: copy, environment: environment)
            let first = watching.rounds(1)
            try #require(first.contains("Verdict"), "\(first)")
            let (edited, added) = try Self.addingAClosure(to: starter)
            try edited.write(to: file, atomically: true, encoding: .utf8)
            let second = watching.rounds(2)
            #expect(
                (second.components(separatedBy: "──── round 2").last ?? "").contains("Знать 4  MyQueue.swift:\(added)"),
                "\(second)")
            kill(watching.process.processIdentifier, SIGINT)
            watching.process.waitUntilExit()

            let builds = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasPrefix("build-")
            }
            .map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
            #expect(builds.count == 2, "the build after the first round and the save's")
            #expect(Set(builds).count == 1, "\(builds)")
            #expect(
                builds.first?.contains("RUN_EXPERIMENTS_LINEAGE=\(watching.process.processIdentifier)-") == true,
                "the builds carry the watch's lineage")
        }

        /// Ctrl-C while a round's experiment runs: the round ends unfinished, and its report is
        /// not written, so the report folder (and a page open on it) keeps the last whole round.
        @Test(.timeLimit(.minutes(30))) func ctrlCDuringARoundsRunKeepsTheLastWholeRoundsReport() throws {
            let lock = try EndToEnd.lockTheCopy(Self.copy)
            defer { close(lock) }
            let (copy, file, starter) = try Self.learnersExperiment()
            let reports = copy.appendingPathComponent("Reports/latest")
            let watching = try Watching(["watch", "my-queue", "--time-scale", EndToEnd.scale.decimalText], in: copy)
            let first = watching.rounds(1)
            try #require(first.contains("Verdict"), "\(first)")
            let whole = try ["round.js", "report.json", "index.html"].map {
                try Data(contentsOf: reports.appendingPathComponent($0))
            }

            // A closure of 40 article seconds: the round's experiment runs 2 s at this scale,
            // time enough to be interrupted once its progress line shows it started.
            let long = starter.replacingOccurrences(
                of: "print(\"Желает 🍋\"); sleep(1)", with: "print(\"Желает 🍋\"); sleep(40)")
            try #require(long != starter)
            try long.write(to: file, atomically: true, encoding: .utf8)
            let secondRound = { (output: String) in output.components(separatedBy: "──── round 2").dropFirst().joined()
            }
            let started = secondRound(
                watching.output(within: 120) {
                    secondRound($0).contains("[1/1] my-queue") || $0.contains("the build failed")
                })
            try #require(started.contains("[1/1] my-queue") && !started.contains("Verdict"), "\(watching.text)")
            kill(watching.process.processIdentifier, SIGINT)
            let interrupted = Date()
            while watching.process.isRunning, Date().timeIntervalSince(interrupted) < 10 { usleep(20_000) }
            try #require(!watching.process.isRunning, "SIGINT did not end watch")
            #expect(watching.process.terminationStatus == 130)
            #expect(watching.text.contains("The interrupted round's report was not written"), "\(watching.text)")
            // The folder is round 1's, byte for byte, and nothing of round 2 is left beside it.
            #expect(
                try ["round.js", "report.json", "index.html"].map {
                    try Data(contentsOf: reports.appendingPathComponent($0))
                } == whole)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: copy.appendingPathComponent("Reports").path).filter
                { $0.hasPrefix(".latest.run-experiments-") }.isEmpty, "the folder round 2 was built in is removed")
            #expect(Self.lineage(of: watching.process.processIdentifier).isEmpty)
        }

        @Test(.timeLimit(.minutes(30))) func savesRunAgainABrokenSaveShowsTheErrorCtrlCEnds() throws {
            let lock = try EndToEnd.lockTheCopy(Self.copy)
            defer { close(lock) }
            let (copy, file, starter) = try Self.learnersExperiment()
            let scale = EndToEnd.scale

            let watching = try Watching(["watch", "my-queue", "--time-scale", scale.decimalText], in: copy)
            // The first round: the starter's three one-second closures, two at a time: 2 s.
            let first = watching.rounds(1)
            #expect(first.contains("──── round 1 ") && first.contains("Охотник 🍊  MyQueue.swift:"), "\(first)")
            #expect(try Self.expectedSeconds(in: copy).map { abs($0 - 2 * scale) < 1e-9 } == true)

            // A closure of two seconds added: the next round prints its line, and predicts 3 s.
            let (edited, added) = try Self.addingAClosure(to: starter)
            try edited.write(to: file, atomically: true, encoding: .utf8)
            let second = watching.rounds(2)
            let secondRound = second.components(separatedBy: "──── round 2").last ?? ""
            #expect(
                second.contains("──── round 2: MyQueue.swift saved")
                    && secondRound.contains("Знать 4  MyQueue.swift:\(added)"), "\(second)")
            #expect(try Self.expectedSeconds(in: copy).map { abs($0 - 3 * scale) < 1e-9 } == true)
            // The page of a round follows the rounds: it names its own, and round.js the last.
            let round = try String(contentsOf: copy.appendingPathComponent("Reports/latest/round.js"), encoding: .utf8)
            let page = try String(contentsOf: copy.appendingPathComponent("Reports/latest/index.html"), encoding: .utf8)
            #expect(
                round.hasPrefix("reportRound(\"") && round.contains(".2\");") && page.contains("window.reportRound"),
                "\(round)")

            // A broken save: the compiler's error with its file and line, and no run.
            try edited.replacingOccurrences(of: "print(\"Знать 4\")", with: "prnt(\"Знать 4\")").write(
                to: file, atomically: false, encoding: .utf8)
            let third = watching.rounds(3)
            let thirdRound = third.components(separatedBy: "──── round 3").last ?? ""
            #expect(
                thirdRound.contains("the build failed")
                    && thirdRound.contains("Experiments/Playground/MyQueue.swift:\(added):"), "\(third)")
            #expect(
                thirdRound.contains("error: cannot find 'prnt' in scope") && !thirdRound.contains("Verdict"), "\(third)"
            )

            // The fix runs again.
            try edited.replacingOccurrences(of: "Знать 4", with: "Знать 5").write(
                to: file, atomically: false, encoding: .utf8)
            let fourth = watching.rounds(4)
            let fourthRound = fourth.components(separatedBy: "──── round 4").last ?? ""
            #expect(
                fourthRound.contains("Знать 5  MyQueue.swift:\(added)") && fourthRound.contains("Verdict"), "\(fourth)")

            // Ctrl-C while the next save builds: 130 at once, and nothing it started is left.
            try edited.write(to: file, atomically: false, encoding: .utf8)
            _ = watching.output(within: 30) {
                $0.components(separatedBy: "Watching ").count > 5
                    || !Self.lineage(of: watching.process.processIdentifier).isEmpty
            }
            #expect(!Self.lineage(of: watching.process.processIdentifier).isEmpty, "the build had started")
            let interrupted = Date()
            kill(watching.process.processIdentifier, SIGINT)
            // Bounded: a watch that ignored the interrupt fails here (and is killed), never hangs the suite.
            while watching.process.isRunning, Date().timeIntervalSince(interrupted) < 10 { usleep(20_000) }
            try #require(!watching.process.isRunning, "SIGINT did not end watch")
            #expect(watching.process.terminationStatus == 130)
            // At once: the build is killed without waiting; 5 s leaves a busy machine room to schedule it.
            #expect(Date().timeIntervalSince(interrupted) < 5, "it ends at once")
            #expect(Self.lineage(of: watching.process.processIdentifier).isEmpty)
        }
    }
}
