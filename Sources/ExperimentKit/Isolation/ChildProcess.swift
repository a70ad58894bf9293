import Foundation

/// Runs one experiment in a fresh process of the runner's own executable, so no experiment can
/// change the next (a thread pool grown by one stays wide for 5 s), and so a hang or a trap
/// stops only that child.
public enum ChildProcess {
    /// First argument that makes `run-experiments` act as a child.
    public static let command = "__child"

    /// Child side: reads the experiment's plan from its code (or its declaration) before
    /// anything is timed (only a child calibrates CPU work: ``CPUCalibration``), primes the pool,
    /// runs the experiment, and streams its timeline events to `write` as JSON lines while it
    /// runs. Costs calibrated before the clock go out first, in one write: the runner sizes its
    /// watchdog from them. After the run, the CPU work the run did not time is calibrated, so the
    /// runner predicts again from what all of it cost here, not from a calibration of its own.
    public static func runAsChild(_ experiment: Experiment, request: Request, write: @escaping @Sendable (Data) -> Void) throws {
        exitWhenOrphaned()
        CPUCalibration.enable(timeScale: request.timeScale)
        let imagesDirectory = request.imagesDirectory.map { URL(fileURLWithPath: $0) }
        let parameters = try experiment.parameters(overriding: request.parameters)
        let workload = experiment.workload(parameters)
        let encoder = JSONEncoder()
        let sendCosts = { (costs: [CPUCost]) in
            let lines = costs.compactMap { try? encoder.encode(TimelineEvent.cpuCost($0)) + [UInt8(ascii: "\n")] }
            if !lines.isEmpty { write(Data(lines.joined())) }
        }
        sendCosts(CPUCost.calibrated(workload))
        PoolPriming.prime()
        let timeline = Timeline(clock: MonotonicClock()) { event in
            guard var line = try? encoder.encode(event) else { return }
            line.append(UInt8(ascii: "\n"))
            write(line)
        }
        let context = RunContext(timeScale: request.timeScale, timeline: timeline, imagesDirectory: imagesDirectory, parameters: parameters)
        let outcome = try experiment.run(context, workload)
        timeline.finish(outcome: outcome)
        let timed = Set(timeline.measurement()?.cpuCosts.map(\.label) ?? [])
        sendCosts(CPUCalibration.afterTheRun(skipping: timed))
    }

    /// No child outlives its runner: if the runner goes away (killed, crashed), the child is
    /// re-parented, and this watcher notices within a tenth of a second and exits.
    private static func exitWhenOrphaned() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent {
                Thread.sleep(forTimeInterval: 0.1)
            }
            _exit(125)
        }
    }

    /// What the parent asks of a child: one Codable value, sent as the one argument after
    /// ``command`` (JSON), so nothing is rebuilt into options and parsed back.
    public struct Request: Sendable, Equatable, Codable {
        /// The experiment's name.
        public var experiment: String
        public var timeScale: Double
        public var imagesDirectory: String?
        /// Pin the child to this many CPUs (it is started through `taskset`).
        public var cpus: Int?
        /// `--set` values for the experiment's parameters (only those it declares).
        public var parameters: [String: String]

        public init(experiment: String, timeScale: Double, imagesDirectory: String? = nil, cpus: Int? = nil, parameters: [String: String] = [:]) {
            self.experiment = experiment
            self.timeScale = timeScale
            self.imagesDirectory = imagesDirectory
            self.cpus = cpus
            self.parameters = parameters
        }

        /// The child's argument after ``command``.
        public var argument: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            // A struct of strings, numbers and a dictionary of strings always encodes.
            return String(decoding: try! encoder.encode(self), as: UTF8.self)
        }

        /// The request in a child's argument; nil when it is not one.
        public init?(argument: String) {
            guard let request = try? JSONDecoder().decode(Request.self, from: Data(argument.utf8)), request.timeScale > 0 else { return nil }
            self = request
        }
    }

    /// How a child ended, seen from the parent.
    public enum Ending: Sendable, Equatable {
        /// The experiment returned and the child exited normally.
        case returned
        /// The watchdog stopped it after this many seconds.
        case hung(afterSeconds: Double)
        /// It was killed by this signal (a trap).
        case trapped(signal: Int32)
        /// It exited with this non-zero status.
        case exited(status: Int32)
        /// It exited normally but its output did not say the experiment returned.
        case unreadable
        /// The run was interrupted (SIGINT, SIGTERM) and the child stopped.
        case interrupted(signal: Int32)
    }

    /// What the parent learned from a child: how it ended, what it measured up to then, what it said on stderr.
    public struct Report: Sendable {
        public var ending: Ending
        /// Complete when it returned; up to the moment it was stopped otherwise; nil if nothing was recorded.
        public var measurement: MeasuredRun?
        public var diagnostics: String

        /// The first non-empty line of stderr.
        public var firstDiagnosticLine: String? {
            diagnostics.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.first { !$0.isEmpty }
        }
    }

    /// How long a child may take to start (load, read its plan, prime the pool) before it says
    /// its first line, when its watchdog counts from then: generous, as a process start on a
    /// loaded 2-core machine can take seconds.
    public static let startAllowanceSeconds = 10.0

    /// Parent side: runs the requested experiment in a fresh process of `executable` and waits
    /// at most `watchdogSeconds`: from the launch, or, with `countingFromFirstLine`, from the
    /// child's clock start (the experiment about to start), so a declared hang is stopped at its
    /// own moment whatever the process start cost. With `recounting`, the watchdog is the one it
    /// gives for the CPU costs the child calibrated (sent before its clock started), counted
    /// from the clock start: a plan whose CPU work the runner left to measure is watched for
    /// what that work costs in the child.
    public static func launch(
        executable: URL, request: Request, watchdogSeconds: Double, countingFromFirstLine: Bool = false,
        recounting: (([CPUCost]) -> Double)? = nil
    ) -> Report {
        let process = Process()
        let arguments = [command, request.argument]
        if let cpus = request.cpus {
            guard let (taskset, pinned) = CPUAffinity.pinned(executable, arguments: arguments, to: cpus) else {
                return Report(ending: .exited(status: -1), measurement: nil, diagnostics: "could not pin the child to \(cpus) CPUs")
            }
            process.executableURL = taskset
            process.arguments = pinned
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        // Swift's crash backtracer symbolicates for about half a second before a trapping child
        // dies; the runner reads only the trap's message from stderr, and that half second was
        // counted as the trap's moment (two declared traps added a second to a run at scale 0.1).
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, off in off }
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            return Report(ending: .exited(status: -1), measurement: nil, diagnostics: "could not start the child process: \(error)")
        }
        let output = PipeReader(stdout.fileHandleForReading)
        let errors = PipeReader(stderr.fileHandleForReading)
        if !Interruption.shared.childStarted(process.processIdentifier) {
            kill(process.processIdentifier, SIGKILL)
        }
        defer { Interruption.shared.childEnded() }

        var stoppedAt: DispatchTime?
        var watchdogSeconds = watchdogSeconds
        if countingFromFirstLine || recounting != nil {
            // A child slower to start than the allowance is timed from then on.
            _ = output.clockStarted.wait(timeout: .now() + startAllowanceSeconds)
            if let recounting {
                watchdogSeconds = recounting(Self.events(in: output.beforeClock).compactMap {
                    if case .cpuCost(let cost) = $0 { cost } else { nil }
                })
            }
        }
        if ended.wait(timeout: .now() + watchdogSeconds) == .timedOut {
            stoppedAt = .now()
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
        }
        var assembler = MeasuredRunAssembler()
        for event in events(in: output.data()) {
            assembler.add(event)
        }
        let ending: Ending
        if let signal = Interruption.shared.signal {
            ending = .interrupted(signal: signal)
        } else if stoppedAt != nil {
            ending = .hung(afterSeconds: watchdogSeconds)
        } else if process.terminationReason == .uncaughtSignal {
            ending = .trapped(signal: process.terminationStatus)
        } else if process.terminationStatus != 0 {
            ending = .exited(status: process.terminationStatus)
        } else {
            ending = assembler.isFinished ? .returned : .unreadable
        }
        let stopped = assembler.experimentSeconds(at: stoppedAt ?? .now())
        return Report(ending: ending, measurement: assembler.measurement(stoppedAt: stopped), diagnostics: errors.text())
    }
}

extension ChildProcess {
    /// The timeline events in a child's output, one JSON line each (one decoder for them all).
    static func events(in output: Data) -> [TimelineEvent] {
        let decoder = JSONDecoder()
        return output.split(separator: UInt8(ascii: "\n")).compactMap { try? decoder.decode(TimelineEvent.self, from: $0) }
    }
}

/// Drains a pipe on its own thread so a child never blocks on a full pipe.
///
/// `@unchecked Sendable`: `collected` is written only by the reading thread, and read only after
/// waiting on `done`; `beforeClock` is written once by that thread before `clockStarted` is
/// signalled, and read only after waiting on it.
private final class PipeReader: @unchecked Sendable {
    private var collected = Data()
    private let done = DispatchSemaphore(value: 0)
    /// Signalled once: when the child's clock-start line has arrived (or the output ended).
    let clockStarted = DispatchSemaphore(value: 0)
    /// What the child wrote before its clock started: its calibration.
    private(set) var beforeClock = Data()

    private static let clockStartKey = Data(#"{"clockStarted""#.utf8)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            var sawClock = false
            while case let chunk = handle.availableData, !chunk.isEmpty {
                // The key may straddle two chunks: look again from just before this one.
                let from = max(collected.startIndex, collected.endIndex - Self.clockStartKey.count)
                collected.append(chunk)
                if !sawClock, let found = collected[from...].firstRange(of: Self.clockStartKey) {
                    sawClock = true
                    beforeClock = Data(collected[..<found.lowerBound])
                    clockStarted.signal()
                }
            }
            if !sawClock {
                beforeClock = collected
                clockStarted.signal()
            }
            done.signal()
        }
    }

    func data() -> Data {
        done.wait()
        done.signal()
        return collected
    }

    func text() -> String {
        String(decoding: data(), as: UTF8.self)
    }
}
