import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation

/// Runs one experiment in a fresh process of the runner's own executable, so no experiment can
/// change the next (a thread pool grown by one stays wide for 5 s), and so a hang or a trap
/// stops only that child.
package enum ChildProcess {
    /// First argument that makes `run-experiments` act as a child.
    package static let command = "__child"

    /// Child side: takes the plan the runner predicted from on its stdin (one JSON line before
    /// anything else), so the run is compared with the very plan that was predicted, calibrates
    /// its CPU work before anything is timed (only a child does: `CPUCalibration`), primes the
    /// pool, runs the experiment, and streams its timeline events to `write` (the protocol
    /// channel, ``protocolDescriptor``) as JSON lines while it runs. The experiments' code calibrates as it is rehearsed (it draws its pictures,
    /// registers its filters, times a benchmark), so a plan that leaves CPU work to measure is
    /// rehearsed here again for that alone; the run keeps the plan predicted. Costs calibrated before the clock go out first, in one write: the runner sizes its
    /// watchdog from them. After the run, the CPU work the run did not time is calibrated, so the
    /// runner predicts again from what all of it cost here, not from a calibration of its own.
    package static func runAsChild(
        _ experiment: Experiment, request: Request, write: @escaping @Sendable ([UInt8]) -> Void
    ) throws {
        exitWhenOrphaned()
        let threads = PoolPriming.threadCount()
        CPUCalibration.enable(timeScale: request.timeScale)
        let imagesDirectory = request.imagesDirectory.map { URL(fileURLWithPath: $0) }
        var input = LineReader(STDIN_FILENO)
        guard let line = input.next(), let workload = try? JSONDecoder().decode(Workload.self, from: Data(line)) else {
            throw NoPlan()
        }
        let calibrating =
            workload.operations.contains(where: \.cpuWorkToMeasure) ? experiment.workload(request.parameters) : workload
        CallSite.prepare()
        Timeline.prepare()
        let encoder = JSONEncoder()
        let sendCosts = { (costs: [CPUCost]) in
            let lines = costs.compactMap {
                TimelineEvent.cpuCost($0).jsonLine(encoder: encoder).map { $0 + [UInt8(ascii: "\n")] }
            }
            if !lines.isEmpty { write(Array(lines.joined())) }
        }
        sendCosts(CPUCost.calibrated(calibrating))
        // Everything above is preparation, which may run while the experiment before this one
        // runs: the pool's first touch must come when the runner says (its prime, or its go). A
        // preparation that started a thread may have touched it, so such a child declines to wait.
        let touched: DispatchTime
        if request.waitsForGo {
            guard PoolPriming.threadCount() == threads else { _exit(declinedStatus) }
            write(Array(preparedLine.utf8))
            touched = touchingThePoolWhenTold(&input)
        } else {
            touched = PoolPriming.touch()
        }
        PoolPriming.settle(since: touched)
        let timeline = Timeline(clock: MonotonicClock(), poolTouched: touched) { event in
            guard var line = event.jsonLine(encoder: encoder) else { return }
            line.append(UInt8(ascii: "\n"))
            write(line)
        }
        let context = RunContext(
            timeScale: request.timeScale, timeline: timeline, imagesDirectory: imagesDirectory,
            parameters: request.parameters)
        let outcome = try experiment.run(context, workload)
        timeline.finish(outcome: outcome)
        let timed = Set(timeline.measurement()?.cpuCosts.map(\.label) ?? [])
        sendCosts(CPUCalibration.afterTheRun(skipping: timed))
    }

    /// The runner sent no plan on the child's stdin, or one it cannot read.
    struct NoPlan: Error, CustomStringConvertible {
        var description: String { "no plan on its standard input" }
    }

    /// The line the runner writes on a child's stdin when the child's turn comes.
    static let goLine = "go\n"
    /// The line the runner may write before ``goLine``, a settle before the experiment running
    /// beside is expected to end: the child touches the pool then, so at its go it has settled.
    static let primeLine = "prime\n"
    /// The line a child started to wait writes on its protocol channel once it has prepared, the pool untouched.
    static let preparedLine = "prepared\n"
    /// The status of a child started to wait whose preparation may have touched the pool: it
    /// exits instead, and the runner starts it again at its turn, without waiting.
    static let declinedStatus: Int32 = 3

    /// Blocks until the runner's ``goLine``, touching the pool at its ``primeLine`` if one comes
    /// first, or else at the go; returns when the pool was touched. A runner that closes stdin
    /// without a go (or writes anything else) has given up this child, which then exits.
    private static func touchingThePoolWhenTold(_ input: inout LineReader) -> DispatchTime {
        func nextLine() -> String? {
            input.next().map { String(decoding: $0, as: UTF8.self) + "\n" }
        }
        var line = nextLine()
        var touched: DispatchTime?
        if line == primeLine {
            touched = PoolPriming.touch()
            line = nextLine()
        }
        guard line == goLine else { _exit(0) }
        return touched ?? PoolPriming.touch()
    }

    /// No child outlives its runner: if the runner goes away (killed, crashed), the child is
    /// re-parented, and this watcher notices within a tenth of a second and ends the child's
    /// lineage (whatever its code started; a child started by hand, with no lineage's mark,
    /// exits alone).
    static func exitWhenOrphaned() {
        let parent = getppid()
        Thread.detachNewThread {
            while getppid() == parent {
                Thread.sleep(forTimeInterval: 0.1)
            }
            if let mark = ProcessInfo.processInfo.environment[SpawnedProcess.lineageVariable] {
                SpawnedProcess.endLineage(group: getpid(), mark: mark)
            }
            _exit(125)
        }
    }

    /// The descriptor a child writes the runner's protocol on (its events, its plans, the lines
    /// that say it prepared and that its clock started): a pipe of its own, so its code's stdout
    /// and stderr are only its output, never read as events.
    package static let protocolDescriptor: Int32 = 3

    /// Child side, before any experiment's code runs: the protocol channel, kept from the
    /// processes the experiment's code starts (closed on exec), with stdout flushed at each line
    /// so the runner sees a line written there when it is written; nil when the child was not
    /// given one (it was not started by a runner).
    package static func takeProtocolChannel() -> Int32? {
        var status = stat()
        guard fstat(protocolDescriptor, &status) == 0, status.st_mode & S_IFMT == S_IFIFO,
            fcntl(protocolDescriptor, F_SETFD, FD_CLOEXEC) == 0
        else { return nil }
        lineBufferStandardOutput()
        return protocolDescriptor
    }

    /// Makes the C library's stdout, which `Swift.print` and `dump` write through, flush at each
    /// line instead of each 4 KiB, as on a terminal. Its `FILE` is found by name: Swift 6 does
    /// not let code read the C global `stdout` (shared mutable state), and nothing else writes it
    /// this early in the child.
    private static func lineBufferStandardOutput() {
        guard let symbol = dlsym(nil, "stdout"), let file = symbol.load(as: UnsafeMutablePointer<FILE>?.self) else {
            return
        }
        setvbuf(file, nil, _IOLBF, 0)
    }

    /// What the parent asks of a child: one Codable value, sent as the one argument after
    /// ``command`` (JSON), so nothing is rebuilt into options and parsed back. Built by the
    /// runner (and tests) with the memberwise initialiser.
    package struct Request: Sendable, Equatable, Codable {
        /// The experiment's name.
        package var experiment: String
        package var timeScale: Double
        package var imagesDirectory: String?
        /// Pin the child to this many CPUs (it is started through `taskset`).
        package var cpus: Int?
        /// The values of the experiment's knobs, parsed and validated by the runner's command
        /// line: every knob the experiment declares has its value here.
        package var parameters: Parameters
        /// The child prepares, then waits for the runner's go on its stdin before it touches the
        /// pool (``Child``): set by the runner, so it can start a child while another runs.
        package var waitsForGo = false

        /// The child's argument after ``command``.
        package var argument: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            // A struct of strings, numbers and parameters (strings and numbers) always encodes.
            return String(decoding: try! encoder.encode(self), as: UTF8.self)
        }

    }

    /// What the parent learned from a child: how it ended, what it measured up to then, what it said on stderr.
    package struct Report: Sendable {
        package var ending: ChildEnding
        /// Complete when it returned; up to the moment it was stopped otherwise; nil if nothing was recorded.
        package var measurement: MeasuredRun?
        /// What it wrote to stderr: its last `StandardErrorTail.keptBytes`.
        package var diagnostics: String
        /// How many bytes it wrote to stderr before `diagnostics`.
        package var diagnosticsLeftOut = 0

        /// The line of stderr that says what went wrong: the runtime's message of a trap
        /// (`Experiments/Probe.swift:24: Fatal error: …`), else the first non-empty line; its
        /// last `diagnosticBytes` when it is longer, saying how many bytes it left out.
        package var diagnosticLine: String? {
            Self.diagnosticLine(in: diagnostics, leftOutBefore: diagnosticsLeftOut)
        }

        /// The most of a line of stderr a reason quotes: a reason is one line to read, and a
        /// child may write a line of megabytes (a progress bar redrawn with `\r`).
        static let diagnosticBytes = 2_000

        /// ``diagnosticLine`` of a child's stderr `diagnostics`, after `leftOutBefore` bytes
        /// that were not kept: an experiment may have written lines of its own before it trapped.
        static func diagnosticLine(in diagnostics: String, leftOutBefore: Int = 0) -> String? {
            let lines = diagnostics.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                .map { (first: $0.offset == 0, text: $0.element.trimmingCharacters(in: .whitespaces)) }
                .filter { !$0.text.isEmpty }
            guard let line = lines.first(where: { $0.text.contains(": Fatal error") }) ?? lines.first else {
                return nil
            }
            let bytes = Array(line.text.utf8)
            // The cut moves forward to the start of a character.
            var cut = max(0, bytes.count - diagnosticBytes)
            while cut < bytes.count, bytes[cut] & 0xC0 == 0x80 { cut += 1 }
            let leftOut = cut + (line.first ? leftOutBefore : 0)
            return leftOut > 0
                ? "… \(Format.count(leftOut, "byte")) left out … " + String(decoding: bytes[cut...], as: UTF8.self)
                : line.text
        }
    }
}

extension ChildProcess {
    /// The timeline events in a child's output, one JSON line each (one decoder for them all).
    static func events(in output: Data) -> [TimelineEvent] {
        let decoder = JSONDecoder()
        return output.split(separator: UInt8(ascii: "\n")).compactMap {
            try? decoder.decode(TimelineEvent.self, from: $0)
        }
    }
}

// In an extension, so that the request keeps its memberwise initialiser.
extension ChildProcess.Request {
    /// The request in a child's argument; nil when it is not one.
    package init?(argument: String) {
        guard let request = try? JSONDecoder().decode(Self.self, from: Data(argument.utf8)), request.timeScale > 0
        else { return nil }
        self = request
    }
}
