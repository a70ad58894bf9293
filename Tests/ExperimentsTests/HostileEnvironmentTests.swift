import ExperimentCLI
import Foundation
import ReportFiles
import Synchronization
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import Experiments

/// The runner when its environment turns against it: signals, a reader that goes away, children
/// that trap, hang, print garbage or fail. These start real processes, so they run with the
/// other timed tests, one at a time.
extension TimedRuns {
    @Suite struct HostileEnvironment {
        /// Starts the built binary, with `input` on its stdin if given; returns the process and
        /// its stdout/stderr pipes.
        func start(_ arguments: [String], input: Data? = nil) throws -> (Process, Pipe, Pipe) {
            let process = Process()
            process.executableURL = BuiltBinary.url
            process.arguments = arguments
            let out = Pipe(), err = Pipe(), stdin = Pipe()
            process.standardOutput = out
            process.standardError = err
            if input != nil { process.standardInput = stdin }
            try process.run()
            if let input {
                try stdin.fileHandleForWriting.write(contentsOf: input)
                try stdin.fileHandleForWriting.close()
            }
            return (process, out, err)
        }

        /// Children of this build's binary still running: processes whose command line is that
        /// binary with the child marker (other checkouts' runs on the same machine are not ours).
        func childProcesses() -> [String] {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            let child = "\(BuiltBinary.url.resolvingSymlinksInPath().path) \(ChildProcess.command) "
            return entries.filter { $0.allSatisfy(\.isNumber) }.compactMap { pid in
                guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
                let line = String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: " ")
                return line.hasPrefix(child) ? line : nil
            }
        }

        /// The children of this build still running once `seconds` have passed, or as soon as
        /// none is: the same bound as sleeping that long, without the sleep when they are gone.
        func childProcessesLeft(after seconds: Double = 0.3) -> [String] {
            let deadline = Date().addingTimeInterval(seconds)
            var left = childProcesses()
            while !left.isEmpty, Date() < deadline {
                pause(0.01)
                left = childProcesses()
            }
            return left
        }

        /// Two experiments in registry order: the shortest there is (start-thread, 12.5 ms at 0.05),
        /// which has finished when the second is announced, and one that is still running when
        /// the signal comes right after (printer-queue-max-2-async, 0.4 s). The run is stopped
        /// there, so only the first one's length is waited for. What the first one's verdict is
        /// does not matter here: at 12.5 ms, a pool thread woken late on a loaded machine makes
        /// its two operations miss each other now and then, which is that experiment's to show,
        /// not the interrupt's.
        static let finishedThenRunning = ["start-thread", "printer-queue-max-2-async"]

        @Test(arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
        func aSignalStopsTheChildAndPrintsWhatFinished(signal: Int32, status: Int32) throws {
            let (first, second) = (Self.finishedThenRunning[0], Self.finishedThenRunning[1])
            let (process, out, err) = try start(Self.finishedThenRunning + ["--time-scale", "0.05"])
            let announced = read(err, until: "[2/2] \(second)")
            #expect(announced.contains("[2/2] \(second)"))
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            let stdout = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let stderr = announced + String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == status)
            #expect(stdout.contains("Summary") && stdout.contains(first) && stdout.contains(" of 1 passed"))
            #expect(stderr.contains("Interrupted by signal \(signal): 1 of 2 experiments finished."))
            #expect(childProcessesLeft().isEmpty, "no child outlives the runner")
        }

        @Test func aReaderThatGoesAwayEndsTheRunQuietly() throws {
            let (process, out, err) = try start(["all", "--time-scale", "0.05"])
            _ = out.fileHandleForReading.availableData // the first chunk of output
            try out.fileHandleForReading.close()
            let started = Date()
            process.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == RunExperimentsCommand.outputClosedStatus)
            #expect(Date().timeIntervalSince(started) < 10, "it stops soon, not after the whole run")
            #expect(!stderr.contains("Fatal") && !stderr.contains("Error"))
            #expect(childProcessesLeft().isEmpty)
        }

        /// Reads `pipe` until its text holds `marker` (a progress line), for at most `timeout` seconds.
        @discardableResult
        func read(_ pipe: Pipe, until marker: String, timeout: Double = 60) -> String {
            var text = ""
            let deadline = Date().addingTimeInterval(timeout)
            while !text.contains(marker), Date() < deadline {
                let chunk = pipe.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            return text
        }

        @Test func anInterruptedJSONDocumentSaysSo() throws {
            let (first, second) = (Self.finishedThenRunning[0], Self.finishedThenRunning[1])
            let (process, out, err) = try start(
                Self.finishedThenRunning + ["--time-scale", "0.05", "--format", "json"])
            nonisolated(unsafe) var stdout = Data()
            let reading = Thread { stdout = out.fileHandleForReading.readDataToEndOfFile() }
            reading.start()
            #expect(read(err, until: "[2/2] \(second)").contains("[2/2] \(second)"))
            kill(process.processIdentifier, SIGTERM)
            process.waitUntilExit()
            while !reading.isFinished { pause(0.01) }
            #expect(process.terminationStatus == 128 + SIGTERM)
            let document = try #require(try JSONSerialization.jsonObject(with: stdout) as? [String: Any])
            #expect((document["interrupted"] as? [String: Any])?["signal"] as? Int == Int(SIGTERM))
            #expect((document["experiments"] as? [[String: Any]])?.map { $0["name"] as? String } == [first])
        }

        /// A reader that goes away does not cancel the report asked for: the run goes on, writes
        /// it whole, and ends quietly with 141. The reader leaves after the first section, while
        /// the second experiment (0.4 s) runs: its section is the first write that fails.
        @Test func aReaderThatGoesAwayStillGetsTheReportWritten() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let report = folder.appendingPathComponent("report")
            let (process, out, err) = try start(
                Self.finishedThenRunning + ["--time-scale", "0.05", "--report-dir", report.path])
            _ = out.fileHandleForReading.availableData // the first section
            try out.fileHandleForReading.close()
            process.waitUntilExit()
            let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            #expect(process.terminationStatus == RunExperimentsCommand.outputClosedStatus)
            #expect(!stderr.contains("Error"), "\(stderr)")
            let document =
                try JSONSerialization.jsonObject(with: Data(contentsOf: report.appendingPathComponent("report.json")))
                as? [String: Any]
            #expect(
                (document?["experiments"] as? [[String: Any]])?.map { $0["name"] as? String }
                    == Self.finishedThenRunning)
            #expect(
                FileManager.default.fileExists(
                    atPath: report.appendingPathComponent("timelines/\(Self.finishedThenRunning[1]).svg").path))
        }

        /// `/dev/full` is a full disk, not a closed reader: an error saying so, status 74. Any
        /// experiment writes its results: the shortest (start-thread, 12.5 ms) is the cheapest.
        @Test(arguments: [
            ["list"],
            ["start-thread", "--time-scale", "0.05", "--format", "json"],
            ["start-thread", "--time-scale", "0.05"],
        ])
        func aFullDiskIsAnError(arguments: [String]) throws {
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            let result = try BuiltBinary.run(arguments, timeout: 60, output: full)
            #expect(result.status == RunExperimentsCommand.writeFailedStatus, "\(result.stderr)")
            #expect(
                result.stderr.split(separator: "\n").last
                    == "Error: Cannot write the results to standard output: No space left on device.")
        }

        @Test func aFullDiskOnStdoutStillWritesTheReport() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
            // Two experiments, the second after the first write failed: the shortest will do.
            let result = try BuiltBinary.run(
                ["start-thread", "hello-world-group", "--time-scale", "0.05", "--report-dir", "report"], timeout: 60,
                in: folder, output: full)
            #expect(result.status == RunExperimentsCommand.writeFailedStatus)
            #expect(result.stderr.contains("Report written to"))
            #expect(
                FileManager.default.fileExists(
                    atPath: folder.appendingPathComponent("report/timelines/hello-world-group.svg").path))
        }

        /// The child streams its timeline with plain writes on its protocol channel: a reader
        /// gone away ends it quietly.
        @Test func aChildWhoseReaderGoesAwayEndsQuietly() throws {
            let plan = Array(try JSONEncoder().encode(serialQueue.workload()) + Data("\n".utf8))
            let (input, channel, errors) = (try ClosingPipe(), try ClosingPipe(), try ClosingPipe())
            let argument = ChildProcess.Request(
                experiment: serialQueue.name, timeScale: 0.05, parameters: serialQueue.defaultParameters
            ).argument
            let child = try SpawnedProcess.start(
                BuiltBinary.url.path, arguments: [ChildProcess.command, argument],
                environment: ProcessInfo.processInfo.environment,
                descriptors: [
                    STDIN_FILENO: input.reading, STDOUT_FILENO: errors.writing, STDERR_FILENO: errors.writing,
                    ChildProcess.protocolDescriptor: channel.writing,
                ]
            )
            [input.reading, channel.writing, errors.writing].forEach { close($0) }
            _ = plan.withUnsafeBytes { write(input.writing, $0.baseAddress, $0.count) }
            close(input.writing)
            var first = [UInt8](repeating: 0, count: 4096)
            #expect(Glibc.read(channel.reading, &first, first.count) > 0)
            close(channel.reading)
            child.ended.dispatchWait()
            let written = FileHandle(fileDescriptor: errors.reading, closeOnDealloc: true).readDataToEndOfFile()
            #expect(child.termination == .exited(status: RunExperimentsCommand.outputClosedStatus))
            #expect(written.isEmpty, "\(String(decoding: written, as: UTF8.self))")
        }

        /// A child started by hand, without the runner's protocol channel, says so and writes
        /// nothing it could be taken for.
        @Test func aChildWithoutItsChannelIsAUsageError() throws {
            let argument = ChildProcess.Request(
                experiment: serialQueue.name, timeScale: 0.05, parameters: serialQueue.defaultParameters
            ).argument
            let result = try BuiltBinary.run([ChildProcess.command, argument], timeout: 60)
            #expect(result.status == RunExperimentsCommand.usageErrorStatus)
            #expect(
                result.stderr.hasPrefix("Error: A child of run-experiments is started by run-experiments itself"),
                "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }

        // MARK: - The report folder under attack

        /// A link planted where an image goes: never followed, with or without a report.
        @Test func aLinkPlantedAtAnImageIsNeverWrittenThrough() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let victim = folder.appendingPathComponent("victim.txt")
            try Data("victim".utf8).write(to: victim)
            let images = folder.appendingPathComponent("Reports/latest/images")
            try FileManager.default.createDirectory(at: images, withIntermediateDirectories: true)
            let planted = images.appendingPathComponent("load-and-filter-eiffel-tower.png")
            try FileManager.default.createSymbolicLink(at: planted, withDestinationURL: victim)

            // Its verdict (a timing, 0 or 1) is not what is tested here: where it writes is.
            let plain = try BuiltBinary.run(["load-and-filter", "--time-scale", "0.05"], in: folder)
            #expect(plain.status == 0 || plain.status == 1, "\(plain.stderr)")
            #expect(try String(contentsOf: victim, encoding: .utf8) == "victim", "without --report no file is written")

            let reported = try BuiltBinary.run(["load-and-filter", "--time-scale", "0.05", "--report"], in: folder)
            #expect(reported.status == RunExperimentsCommand.writeFailedStatus)
            #expect(
                reported.stderr.split(separator: "\n").last?.hasPrefix(
                    "Error: Cannot write the report to '\(planted.path)': run-experiments did not write it") == true,
                "\(reported.stderr)")
            #expect(try String(contentsOf: victim, encoding: .utf8) == "victim")
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("Reports").path) == [
                    "latest"
                ])
            #expect(try FileManager.default.contentsOfDirectory(atPath: images.path) == [planted.lastPathComponent])
        }

        /// A link planted where the images folder goes: refused before anything runs, and no
        /// picture lands where it points.
        @Test func aLinkPlantedAtTheImagesFolderIsRefused() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let elsewhere = folder.appendingPathComponent("elsewhere")
            let latest = folder.appendingPathComponent("Reports/latest")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: latest, withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                at: latest.appendingPathComponent("images"), withDestinationURL: elsewhere)

            let plain = try BuiltBinary.run(["load-and-filter", "--time-scale", "0.05"], in: folder)
            #expect(plain.status == 0 || plain.status == 1, "\(plain.stderr)")
            let reported = try BuiltBinary.run(["load-and-filter", "--time-scale", "0.05", "--report"], in: folder)
            #expect(reported.status == RunExperimentsCommand.usageErrorStatus)
            #expect(
                reported.stderr.hasPrefix("Error: The report folder 'Reports/latest' cannot be written: '"),
                "\(reported.stderr)")
            #expect(
                reported.stderr.contains("/Reports/latest/images': run-experiments did not write it"),
                "\(reported.stderr)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty)
            #expect(try FileManager.default.contentsOfDirectory(atPath: latest.path) == ["images"])
        }

        /// A user's files in the report folder stay through reports, which replace only their own.
        @Test func aUsersFileInTheReportFolderSurvives() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let notes = folder.appendingPathComponent("timelines/notes.txt")
            try FileManager.default.createDirectory(
                at: notes.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("my notes".utf8).write(to: notes)
            // Two reports of different experiments, one after the other: the shortest two will do.
            for experiment in ["start-thread", "hello-world-group"] {
                let result = try BuiltBinary.run([experiment, "--time-scale", "0.05", "--report-dir", folder.path])
                #expect(result.status == 0, "\(result.stderr)")
                #expect(try String(contentsOf: notes, encoding: .utf8) == "my notes")
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: notes.deletingLastPathComponent().path).sorted()
                        == ["notes.txt", "\(experiment).svg"].sorted())
            }
        }

        /// Every file in `folder` with its inode, modification time and contents.
        func snapshot(_ folder: URL) throws -> [String: String] {
            var files: [String: String] = [:]
            let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
            for case let path as String in enumerator {
                let attributes = try FileManager.default.attributesOfItem(
                    atPath: folder.appendingPathComponent(path).path)
                let contents =
                    FileManager.default.contents(atPath: folder.appendingPathComponent(path).path).map {
                        "\($0.hashValue)"
                    } ?? "-"
                files[path] =
                    "\(attributes[.systemFileNumber] ?? "") \(attributes[.modificationDate] ?? "") \(contents)"
            }
            return files
        }

        /// Killed in the middle of a run (after an image experiment, during the next), a run
        /// leaves the previous report exactly as it was; the next run clears what it left.
        @Test func aKilledRunLeavesThePreviousReportIntact() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let arguments = ["load-and-filter", "four-images", "--time-scale", "0.05", "--report-dir", "report"]
            // The report to leave intact is an earlier run's, with a picture: load-and-filter's
            // alone will do (0.4 s; with four-images, 1.2 s). Each file's inode and modification
            // time are compared, so even a byte-identical rewrite would be seen.
            let first = try BuiltBinary.run(
                ["load-and-filter", "--time-scale", "0.05", "--report-dir", "report"], in: folder)
            #expect(first.stderr.contains("Report written to"), "\(first.stderr)")
            let before = try snapshot(folder.appendingPathComponent("report"))

            let process = Process()
            process.executableURL = BuiltBinary.url
            process.arguments = arguments
            process.currentDirectoryURL = folder
            let err = Pipe()
            process.standardError = err
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            #expect(read(err, until: "[2/2] four-images").contains("[2/2] four-images"))
            pause(0.2)
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(try snapshot(folder.appendingPathComponent("report")) == before)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 2,
                "the killed run's hidden working folder")

            _ = childProcessesLeft() // its child notices it is orphaned and exits
            #expect(
                try BuiltBinary.run(["start-thread", "--time-scale", "0.05", "--report-dir", "report"], in: folder)
                    .status == 0)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report"])
        }

        /// Killed with SIGKILL at each step of the swap in turn (the run kills itself there, as
        /// `kill -9` at that moment would), a run never takes a user's file out of the folder:
        /// right after the kill every one is in place, the folder's manifest lists every other
        /// file, and one more run leaves every user's file, one whole report and no hidden folder.
        /// The report swapped in (cancellation's predictions) and the one it replaces (the
        /// printer queues') differ in their timelines, so the swap both adds and removes files.
        @Test func aRunKilledAtAnyStepOfTheSwapLosesNoUsersFile() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let report = folder.appendingPathComponent("report")
            let previous = ["--filter", "printer", "--profile", "apple", "--report-dir", "report"]
            #expect(try BuiltBinary.run(previous, in: folder).status == 0)
            var users: [String: String] = [
                "notes.txt": "top", "timelines/notes.txt": "beside the timelines", "images.txt": "a file",
            ]
            for index in 1...200 {
                users["mine/deeper/\(index).txt"] = "mine \(index)"
            }
            for (path, text) in users {
                let file = report.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: file)
            }
            func expectUsersFiles(_ when: String) {
                for (path, text) in users {
                    #expect(
                        FileManager.default.contents(atPath: report.appendingPathComponent(path).path)
                            == Data(text.utf8), "\(path) \(when)")
                }
            }
            var environment = ProcessInfo.processInfo.environment
            var steps = 0
            for step in 1...100 {
                environment["RUN_EXPERIMENTS_KILL_AT_SWAP_STEP"] = "\(step)"
                let killed = try BuiltBinary.run(
                    ["--filter", "cancel", "--profile", "apple", "--report-dir", "report"], environment: environment,
                    in: folder)
                // Past the last step the run ends as usual.
                guard killed.status == SIGKILL else {
                    #expect(killed.status == 0, "\(killed.stderr)")
                    break
                }
                steps = step
                expectUsersFiles("after a kill at step \(step)")
                let manifest = try String(
                    contentsOf: report.appendingPathComponent(ReportFolder.manifestFile), encoding: .utf8
                )
                .split(separator: "\n").map(String.init)
                let files =
                    FileManager.default.enumerator(atPath: report.path)?.allObjects.compactMap { $0 as? String } ?? []
                let unlisted = files.filter { path in
                    AtomicFile.kind(of: report.appendingPathComponent(path).path) != .directory
                        && !users.keys.contains(path) && !manifest.contains(path) && path != ReportFolder.manifestFile
                }
                #expect(
                    unlisted.isEmpty, "files neither the user's nor listed after a kill at step \(step): \(unlisted)")

                #expect(try BuiltBinary.run(previous, in: folder).status == 0)
                expectUsersFiles("after the run that follows a kill at step \(step)")
                try expectOneWholeReport(in: report)
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["report"],
                    "no hidden folder is left")
            }
            #expect(
                steps > 10,
                "the swap's steps: the manifest, each file moved or removed, the manifest again, the hidden folder")
        }

        /// The report folder is the user's: a private one (0700) stays private, with its files' modes.
        @Test func aPrivateReportFolderKeepsItsMode() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let report = folder.appendingPathComponent("report")
            try FileManager.default.createDirectory(at: report, withIntermediateDirectories: true)
            let secret = report.appendingPathComponent("secret.txt")
            try Data("mine".utf8).write(to: secret)
            chmod(secret.path, 0o600)
            chmod(report.path, 0o700)
            func mode(_ url: URL) throws -> Int {
                try #require(FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int)
            }
            for _ in 1...2 {
                #expect(
                    try BuiltBinary.run(
                        ["--filter", "printer", "--profile", "apple", "--report-dir", "report"], in: folder
                    ).status == 0)
                #expect(try mode(report) == 0o700)
                #expect(try mode(secret) == 0o600)
                #expect(FileManager.default.contents(atPath: secret.path) == Data("mine".utf8))
            }
        }

        /// Three runs at once into the default folder, round after round: the folder always holds
        /// one whole report (its report.json, index.html, timelines, images and manifest agree),
        /// no working folder is left, and the user's file stays.
        @Test func concurrentReportsAreEachWhole() throws {
            let folder = try BuiltBinary.temporaryFolder()
            defer { try? FileManager.default.removeItem(at: folder) }
            let latest = folder.appendingPathComponent(RunExperimentsCommand.defaultReportDirectory)
            let notes = latest.appendingPathComponent("timelines/notes.txt")
            try FileManager.default.createDirectory(
                at: notes.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data("my notes".utf8).write(to: notes)
            let runs = [
                ["--filter", "printer", "--profile", "apple", "--report"],
                ["--filter", "cancel", "--profile", "apple", "--report"],
                ["load-and-filter", "--time-scale", "0.05", "--report"],
            ]
            for _ in 1...3 {
                let results = Mutex<[BuiltBinary.Result?]>([])
                DispatchQueue.dispatchConcurrentPerform(iterations: runs.count) { index in
                    let result = try? BuiltBinary.run(runs[index], in: folder)
                    results.withLock { $0.append(result) }
                }
                // Each run writes its report, whatever its verdicts (a timing on a busy machine).
                for result in results.withLock({ $0 }) {
                    #expect(result?.status == 0 || result?.status == 1, "\(result?.stderr ?? "did not start")")
                    #expect(result?.stderr.contains("Report written to") == true)
                }
                try expectOneWholeReport(in: latest)
                #expect(try String(contentsOf: notes, encoding: .utf8) == "my notes")
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: latest.deletingLastPathComponent().path) == [
                        "latest"
                    ])
            }
        }

        /// The report in `folder` is one run's: the same experiments in report.json, index.html,
        /// timelines/ and the manifest, and the same images in report.json, images/ and the manifest.
        func expectOneWholeReport(in folder: URL) throws {
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: folder.appendingPathComponent("report.json")))
                    as? [String: Any])
            let experiments = try #require(document["experiments"] as? [[String: Any]])
            let names = experiments.compactMap { $0["name"] as? String }.sorted()
            let images = experiments.flatMap { (($0["outcome"] as? [String: Any])?["images"] as? [String]) ?? [] }
                .map { URL(fileURLWithPath: $0).lastPathComponent }.sorted()
            let manifest = try String(
                contentsOf: folder.appendingPathComponent(ReportFolder.manifestFile), encoding: .utf8
            )
            .split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
            let html = try String(contentsOf: folder.appendingPathComponent("index.html"), encoding: .utf8)
            let svgs = try FileManager.default.contentsOfDirectory(
                atPath: folder.appendingPathComponent("timelines").path
            ).filter { $0.hasSuffix(".svg") }
            let pngs =
                (try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("images").path))
                ?? []

            #expect(svgs.map { String($0.dropLast(4)) }.sorted() == names)
            #expect(
                html.matches(of: #/<svg xmlns="http://www.w3.org/2000/svg" id="timeline-([^"]+)"/#).map {
                    String($0.output.1)
                }.sorted() == names)
            #expect(pngs.sorted() == images)
            #expect(
                manifest.sorted()
                    == (["index.html", "report.json", "report.md"] + names.map { "timelines/\($0).svg" }
                    + images.map { "images/\($0)" }).sorted())
        }

        /// A stand-in child: a shell script that misbehaves as told.
        func misbehavingChild(_ body: String) throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("child-\(UUID().uuidString).sh")
            try "#!/bin/sh\n\(body)\n".write(to: url, atomically: true, encoding: .utf8)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
            return url
        }

        /// Processes whose command line holds `marker`.
        func processes(holding marker: String) -> [pid_t] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid in
                guard pid.allSatisfy(\.isNumber),
                    let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
                else { return nil }
                return String(decoding: data, as: UTF8.self).contains(marker) ? pid_t(pid) : nil
            }
        }

        /// A child that leaves a background process holding its stdout and stderr, then exits or
        /// hangs: its report comes at once (or at the watchdog), and the process is gone with it.
        @Test(arguments: [
            (
                "sleep 300.211 & echo 'not a timeline'; exit 0", "300.211",
                "the child exited without reporting the experiment's end"
            ),
            ("sleep 300.212 & exec sleep 30", "300.212", "hung: no result after 0.2 s"),
        ])
        func aChildsBackgroundProcessEndsWithIt(body: String, marker: String, reason: String) throws {
            let child = try misbehavingChild(body)
            defer { try? FileManager.default.removeItem(at: child) }
            let experiment = serialQueue
            let prediction = Scheduler.predict(
                experiment.workload(), profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.1)
            let started = Date()
            let report = ChildProcess.launch(
                executable: child,
                request: ChildProcess.Request(
                    experiment: experiment.name, timeScale: 0.1, parameters: experiment.defaultParameters),
                plan: experiment.workload(), watchdogSeconds: 0.2)
            let seconds = Date().timeIntervalSince(started)
            let result = ExperimentResult.judging(
                report, of: experiment, prediction: prediction, applePrediction: prediction)
            #expect(result.reason?.hasPrefix(reason) == true, "\(result.reason ?? "no reason")")
            // The start allowance of a loaded machine at most; never the background's 300 s.
            #expect(seconds < ChildProcess.startAllowanceSeconds, "\(seconds) s")
            let left = processes(holding: marker)
            #expect(left.isEmpty, "left running: \(left)")
            left.forEach { kill($0, SIGKILL) }
        }

        @Test(arguments: [
            ("echo 'not a timeline'; exit 0", "the child exited without reporting the experiment's end"),
            ("echo 'broken' >&2; exit 3", "the child exited with status 3: broken"),
            ("kill -SEGV $$", "trapped: the child was killed by signal 11"),
            ("exec sleep 30", "hung: no result after 0.2 s"),
        ])
        func aMisbehavingChildIsAnErrorWithItsReason(body: String, reason: String) throws {
            let child = try misbehavingChild(body)
            defer { try? FileManager.default.removeItem(at: child) }
            let experiment = serialQueue
            let prediction = Scheduler.predict(
                experiment.workload(), profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.1)
            // The watchdog's length is what the hung case waits: a fifth of a second says the same.
            let report = ChildProcess.launch(
                executable: child,
                request: ChildProcess.Request(
                    experiment: experiment.name, timeScale: 0.1, parameters: experiment.defaultParameters),
                plan: experiment.workload(), watchdogSeconds: 0.2)
            let result = ExperimentResult.judging(
                report, of: experiment, prediction: prediction, applePrediction: prediction)
            #expect(result.verdict == .error)
            #expect(result.reason?.hasPrefix(reason) == true, "\(result.reason ?? "no reason")")
        }
    }
}
