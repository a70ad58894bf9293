import ExperimentKit
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ExperimentModel
@testable import ExperimentRunner
@testable import Experiments

/// A learner's code that traps, or never returns, in its rehearsal or in its run: the runner
/// reports that experiment as an error naming the line, runs the others, and still stops at
/// once on a signal. Built on the kept copy of the package (``LearnerCopy``), once for all of
/// them and the learner corpus, with these experiments in its Playground folder.
extension TimedRuns {
    @Suite(.serialized) struct HostileCode {
        /// The experiments' code, by name; their file names put them in this order.
        static let code: [(name: String, body: String)] = [
            (
                "a-trap",
                """
                    let missing: String? = nil
                    print("\\(missing!)")
                """
            ),
            (
                "b-spin",
                """
                    var spins = 0
                    while spins >= 0 { spins = (spins + 1) % 1_000 }
                """
            ),
            (
                "c-fine",
                """
                    let queue = OperationQueue()
                    queue.addOperation { print("fine"); sleep(1) }
                    queue.waitUntilAllOperationsAreFinished()
                """
            ),
            (
                "d-run-trap",
                """
                    let missing: String? = nil
                    if !context.isRehearsal { print("\\(missing!)") }
                """
            ),
            (
                "e-run-spin",
                """
                    var spins = 0
                    while !context.isRehearsal, spins >= 0 { spins = (spins + 1) % 1_000 }
                """
            ),
            // A background process the run starts and leaves: it ends with the child.
            (
                "f-orphan-sleep",
                """
                    if !context.isRehearsal {
                \(HostileCode.startsABackgroundSleep)
                    }
                """
            ),
            // The same, then a loop only a signal or the watchdog ends.
            (
                "g-orphan-then-spin",
                """
                    if !context.isRehearsal {
                \(HostileCode.startsABackgroundSleep)
                        var spins = 0
                        while spins >= 0 { spins = (spins + 1) % 1_000 }
                    }
                """
            ),
            // Event lines forged on stdout, then an exit before any work: no pass.
            (
                "h-forged-events",
                """
                    if !context.isRehearsal {
                        FileHandle.standardOutput.write(Data(#"{"clockStarted":{"uptimeNanoseconds":1}}"#.utf8 + [10] + #"{"finished":{"totalSeconds":0}}"#.utf8 + [10]))
                        _exit(0)
                    }
                """
            ),
            // A rehearsal that prints a line shaped like the plan child's plan message.
            (
                "i-plan-forge",
                """
                    if context.isRehearsal {
                        FileHandle.standardOutput.write(Data(#"{"plan":{"_0":\(HostileCode.emptyPlan)}}"#.utf8 + [10]))
                    }
                """
            ),
            // 200,000 lines written around the instrumented print while operations run.
            (
                "j-print-flood",
                """
                    let printerQueue = OperationQueue()
                    printerQueue.maxConcurrentOperationCount = 2
                    printerQueue.addOperation { print("Каждый 🍎"); sleep(1) }
                    printerQueue.addOperation { print("Охотник 🍊"); sleep(1) }
                    printerQueue.addOperation { print("Желает 🍋"); sleep(1) }
                    if !context.isRehearsal { for line in 0..<200_000 { Swift.print("flood line \\(line)") } }
                    printerQueue.waitUntilAllOperationsAreFinished()
                """
            ),
            (
                "k-dumped",
                """
                    if !context.isRehearsal { dump(["dumped": [1, 2, 3]]) }
                """
            ),
            // A progress bar of 4.5 MB redrawn with \r on stderr, no newline, then a return.
            (
                "l-progress-bar",
                """
                    if !context.isRehearsal {
                        var bar = Data()
                        for step in 0..<264_000 { bar.append(contentsOf: "\\r[##########] \\(step % 100)%".utf8.prefix(17)) }
                        FileHandle.standardError.write(bar)
                    }
                """
            ),
            (
                "m-long-line-exit",
                """
                    if !context.isRehearsal {
                        FileHandle.standardError.write(Data(repeating: UInt8(ascii: "x"), count: 2_500_000) + Data([10]))
                        exit(1)
                    }
                """
            ),
            (
                "n-wide-reason",
                """
                    if !context.isRehearsal {
                        FileHandle.standardError.write(Data(repeating: UInt8(ascii: "w"), count: 100_000) + Data(" the end".utf8) + Data([10]))
                        exit(1)
                    }
                """
            ),
        ]

        /// How long the background process of f-orphan-sleep and g-orphan-then-spin sleeps: an
        /// odd figure, so the tests find it among the machine's other processes.
        static let orphanSeconds = "300.137"

        /// The learner's code that starts it, as the attack wrote it, indented for its place.
        static let startsABackgroundSleep = """
                    let p = Process()
                    p.executableURL = URL(fileURLWithPath: "/bin/sleep")
                    p.arguments = ["\(orphanSeconds)"]
                    try? p.run()
            """

        /// An empty plan as the plan child writes it.
        static var emptyPlan: String {
            String(decoding: try! JSONEncoder().encode(Workload()), as: UTF8.self)
        }

        /// The processes still running `/bin/sleep` ``orphanSeconds``, whoever their parent.
        static func orphans() -> [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).filter { pid in
                pid.allSatisfy(\.isNumber)
                    && FileManager.default.contents(atPath: "/proc/\(pid)/cmdline").map {
                        String(decoding: $0, as: UTF8.self)
                    } == "/bin/sleep\u{0}\(orphanSeconds)\u{0}"
            }
        }

        /// The copy's binary, built with these experiments and the corpus's, and the line of
        /// each experiment's file that traps or spins (`ATrap.swift:18`): the body's last.
        static var built: Result<(binary: URL, lines: [String: String]), any Error> {
            LearnerCopy.built.map { built in
                (
                    built.binary,
                    Dictionary(
                        uniqueKeysWithValues: code.map { name, body in
                            let last = body.components(separatedBy: "\n").last!.trimmingCharacters(in: .whitespaces)
                            return (name, built.site(of: last, in: name) ?? "")
                        })
                )
            }
        }

        /// The processes whose command line starts with `binary` and `marker` (its children).
        static func children(of binary: URL, marker: String) -> [pid_t] {
            let prefix = "\(binary.resolvingSymlinksInPath().path) \(marker) "
            return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { pid in
                guard pid.allSatisfy(\.isNumber),
                    let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline")
                else { return nil }
                return String(decoding: data, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: " ").hasPrefix(
                    prefix) ? pid_t(pid) : nil
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
            let ran = try PlaygroundEndToEnd.run(
                binary, ["a-trap", "b-spin", "c-fine", "d-run-trap", "--time-scale", "0.05", "--format", "json"],
                in: binary.deletingLastPathComponent(), timeout: 60)
            let seconds = Date().timeIntervalSince(started)
            #expect(ran.status == 1)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran.stderr)")
            let results = (document["experiments"] as? [[String: Any]] ?? []).map {
                ($0["name"] as? String ?? "", $0["verdict"] as? String ?? "", $0["reason"] as? String ?? "")
            }
            #expect(results.map(\.0) == ["a-trap", "b-spin", "c-fine", "d-run-trap"])
            let reasons = Dictionary(uniqueKeysWithValues: results.map { ($0.0, $0.2) })
            #expect(results.map(\.1) == ["error", "error", "pass", "error"], "\(reasons)")
            #expect(
                reasons["a-trap"]?.contains(
                    "\(lines["a-trap"]!): Fatal error: Unexpectedly found nil while unwrapping an Optional value")
                    == true, "\(reasons)")
            // The line the loop was interrupted on; the file alone when the interrupted instruction
            // belongs to no line (the loop's jump back), never another line.
            let spinSite = lines["b-spin"]!, spinFile = String(spinSite.prefix { $0 != ":" })
            let stuck = reasons["b-spin"] ?? ""
            #expect(
                stuck.contains("did not return within 3 s, stuck at \(spinSite);")
                    || stuck.contains("did not return within 3 s, stuck at \(spinFile);"), "\(reasons)")
            #expect(
                reasons["d-run-trap"]?.contains("\(lines["d-run-trap"]!): Fatal error: Unexpectedly found nil") == true,
                "\(reasons)")
            // The watchdog's 3 s, the fine one's 0.05 s, and a few process starts; 5 s of room
            // for a loaded machine.
            #expect(
                seconds > PlanChild.rehearsalLimitSeconds && seconds < PlanChild.rehearsalLimitSeconds + 5,
                "\(seconds) s")
            #expect(Self.children(of: binary, marker: PlanChild.command).isEmpty)
        }

        /// A process the experiment starts in the background ends with the experiment's child:
        /// the run ends at once, with no process left, its output to a file or not.
        @Test(.timeLimit(.minutes(30))) func aBackgroundProcessEndsWithItsExperiment() throws {
            let (binary, _) = try Self.built.get()
            let started = Date()
            let ran = try PlaygroundEndToEnd.run(
                binary, ["f-orphan-sleep", "c-fine", "--time-scale", "0.05", "--format", "json"],
                in: binary.deletingLastPathComponent(), timeout: 60)
            let seconds = Date().timeIntervalSince(started)
            #expect(seconds < 20, "\(seconds) s: the run waited for the background process")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran.stderr)")
            #expect(
                Set((document["experiments"] as? [[String: Any]])?.compactMap { $0["name"] as? String } ?? []) == [
                    "f-orphan-sleep", "c-fine",
                ])
            let left = Self.orphans()
            #expect(left.isEmpty, "left running: \(left)")
            left.compactMap(pid_t.init).forEach { kill($0, SIGKILL) }
        }

        /// A signal while the experiment spins, having started a background process, ends the
        /// run within a second, and neither the child nor its process is left.
        @Test(.timeLimit(.minutes(30)), arguments: [SIGINT, SIGTERM])
        func aSignalEndsTheBackgroundProcessToo(signal: Int32) throws {
            let (binary, _) = try Self.built.get()
            let process = Process()
            process.executableURL = binary
            process.arguments = ["g-orphan-then-spin", "--time-scale", "0.05"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            let ended = DispatchSemaphore(permits: 0)
            process.terminationHandler = { _ in _ = ended.dispatchSignal() }
            try process.run()
            #expect(
                !Self.waitForChildren(of: binary, marker: ChildProcess.command).isEmpty, "the spinning child started")
            let deadline = Date().addingTimeInterval(30)
            while Self.orphans().isEmpty, Date() < deadline { pause(0.01) }
            #expect(!Self.orphans().isEmpty, "the background process started")
            let sent = DispatchTime.now()
            kill(process.processIdentifier, signal)
            let endedInTime = ended.dispatchWait(timeout: sent + 1) == .success
            #expect(endedInTime, "it ended within 1 s of the signal")
            if !endedInTime { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
            #expect(process.terminationStatus == 128 + signal)
            let gone = Date().addingTimeInterval(0.3)
            while !Self.orphans().isEmpty, Date() < gone { pause(0.01) }
            let left = Self.orphans()
            #expect(left.isEmpty, "left running: \(left)")
            left.compactMap(pid_t.init).forEach { kill($0, SIGKILL) }
            #expect(Self.children(of: binary, marker: ChildProcess.command).isEmpty)
        }

        /// What the code writes to stdout and stderr is its output, never the runner's protocol:
        /// forged events give no pass, a forged plan crashes nothing, a flood of lines leaves the
        /// events whole, `dump` is shown, and a megabyte progress bar or line is read at once and
        /// quoted in a bounded reason.
        @Test(.timeLimit(.minutes(30))) func stdoutAndStderrAreTheCodesOutputOnly() throws {
            let (binary, _) = try Self.built.get()
            let names = [
                "h-forged-events", "i-plan-forge", "j-print-flood", "k-dumped", "l-progress-bar", "m-long-line-exit",
                "n-wide-reason",
            ]
            let ran = try PlaygroundEndToEnd.run(
                binary, names + ["--time-scale", "0.05", "--format", "json"], in: binary.deletingLastPathComponent(),
                timeout: 120)
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any],
                "\(ran.stderr.suffix(2000))")
            let experiments = try #require(document["experiments"] as? [[String: Any]])
            #expect(experiments.map { $0["name"] as? String } == names)
            let byName = Dictionary(uniqueKeysWithValues: experiments.map { ($0["name"] as? String ?? "", $0) })
            func verdict(_ name: String) -> String { byName[name]?["verdict"] as? String ?? "none" }
            func reason(_ name: String) -> String { byName[name]?["reason"] as? String ?? "" }
            func printed(_ name: String) -> [String] {
                (byName[name]?["output"] as? [[String: Any]])?.compactMap { $0["text"] as? String } ?? []
            }

            #expect(
                verdict("h-forged-events") == "error"
                    && reason("h-forged-events") == "the child exited without reporting the experiment's end",
                "\(reason("h-forged-events"))")
            #expect(verdict("i-plan-forge") == "pass", "\(reason("i-plan-forge"))")
            // Every operation of the flood's ran and finished, whatever the flood did to its timing.
            let operations = (byName["j-print-flood"]?["operations"] as? [[String: Any]]) ?? []
            #expect(
                Set(operations.compactMap { $0["label"] as? String }) == ["Каждый 🍎", "Охотник 🍊", "Желает 🍋"],
                "\(operations)")
            #expect(!reason("j-print-flood").contains("never ran"), "\(reason("j-print-flood"))")
            let flood = printed("j-print-flood")
            #expect(flood.contains("flood line 0") && flood.contains("Каждый 🍎"))
            #expect(
                flood.last { $0.hasSuffix("written to standard output left out") }
                    == "… \(200_000 - StandardOutputLines.keptLines) more lines written to standard output left out")
            #expect(printed("k-dumped").contains { $0.contains("\"dumped\"") }, "\(printed("k-dumped"))")
            // Building the bar takes the code time of its own, which its timing may show: it
            // returned, and was not called hung.
            #expect(
                byName["l-progress-bar"]?["ending"] as? String == "returned", "\(reason("l-progress-bar").prefix(300))")
            #expect(
                reason("m-long-line-exit").hasPrefix("the child exited with status 1: … "),
                "\(reason("m-long-line-exit").prefix(300))")
            let wide = reason("n-wide-reason")
            #expect(
                wide.hasPrefix("the child exited with status 1: … 98008 bytes left out … www")
                    && wide.hasSuffix("w the end"), "\(wide.prefix(100))")
            #expect(wide.count < 2_100)

            // `list` rehearses the forged plan too, and lists the experiments around it.
            let listed = try PlaygroundEndToEnd.run(
                binary, ["list", "--filter", "plan-forge", "--filter", "c-fine"],
                in: binary.deletingLastPathComponent(), timeout: 60)
            #expect(listed.status == 0, "\(listed.stderr)")
            #expect(listed.stdout.contains("i-plan-forge") && listed.stdout.contains("c-fine"), "\(listed.stdout)")
        }

        /// A signal during a busy loop, in a rehearsal (the plan child: nothing has run) or in
        /// a run (the run child: c-fine, before it in the registry, has), ends the run within a
        /// second, with the summary and no child left.
        @Test(
            arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))],
            [("b-spin", PlanChild.command, 0), ("e-run-spin", ChildProcess.command, 1)])
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
            // The runner's stderr as it comes: in a run, the spinning experiment's progress line
            // says the one before it has finished, however long a loaded machine took over it.
            let progress = Mutex(Data())
            err.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                progress.withLock { $0.append(data) }
            }
            try process.run()
            let children = Self.waitForChildren(of: binary, marker: marker)
            #expect(!children.isEmpty, "the spinning child started")
            if finished > 0 {
                let deadline = Date().addingTimeInterval(30)
                while !progress.withLock({ String(decoding: $0, as: UTF8.self).contains("[2/2] \(name)") }),
                    Date() < deadline
                {
                    pause(0.005)
                }
            }
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
            err.fileHandleForReading.readabilityHandler = nil
            let rest = err.fileHandleForReading.readDataToEndOfFile()
            let stderr = progress.withLock { String(decoding: $0 + rest, as: UTF8.self) }
            #expect(process.terminationStatus == status)
            #expect(stdout.contains("Summary"), "\(stdout)")
            #expect(
                stderr.contains("Interrupted by signal \(number): \(finished) of 2 experiments finished."), "\(stderr)")
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
