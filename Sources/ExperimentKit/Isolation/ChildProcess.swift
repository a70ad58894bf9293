import Foundation

/// The hidden command a runner gives its own executable to run one experiment in isolation.
public enum ChildProcess {
    /// First argument that makes `run-experiments` act as a child.
    public static let command = "__child"

    /// Child side: primes the pool, runs the experiment once, writes its measurement as JSON on stdout.
    public static func runAsChild(_ experiment: Experiment, timeScale: Double) throws -> Data {
        PoolPriming.prime()
        let clock = MonotonicClock()
        let timeline = Timeline(clock: clock)
        let context = RunContext(timeScale: timeScale, timeline: timeline)
        let outcome = try experiment.run(context, experiment.workload())
        let measurement = timeline.measurement(totalSeconds: clock.now(), outcome: outcome)
        return try JSONEncoder().encode(measurement)
    }

    /// How a child ended, seen from the parent.
    public enum Ending: Sendable {
        case measured(Measurement)
        /// It trapped, exited non-zero, hung past the watchdog, or wrote something unreadable.
        case failed(reason: String, diagnostics: String)
    }

    /// Parent side: runs `experiment` in a fresh process of `executable` and waits at most `watchdogSeconds`.
    public static func launch(executable: URL, experiment: String, timeScale: Double, watchdogSeconds: Double) -> Ending {
        let process = Process()
        process.executableURL = executable
        process.arguments = [command, experiment, "--time-scale", String(timeScale)]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        do {
            try process.run()
        } catch {
            return .failed(reason: "could not start the child process: \(error)", diagnostics: "")
        }
        let output = PipeReader(stdout.fileHandleForReading)
        let errors = PipeReader(stderr.fileHandleForReading)

        if ended.wait(timeout: .now() + watchdogSeconds) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            ended.wait()
            return .failed(
                reason: "hung: no result after \(Format.seconds(watchdogSeconds, digits: 1)) (watchdog), child stopped",
                diagnostics: errors.text()
            )
        }
        let diagnostics = errors.text()
        if process.terminationReason == .uncaughtSignal {
            return .failed(reason: "trapped: the child was killed by signal \(process.terminationStatus)\(firstLine(diagnostics))", diagnostics: diagnostics)
        }
        if process.terminationStatus != 0 {
            return .failed(reason: "the child exited with status \(process.terminationStatus)\(firstLine(diagnostics))", diagnostics: diagnostics)
        }
        do {
            return .measured(try JSONDecoder().decode(Measurement.self, from: output.data()))
        } catch {
            return .failed(reason: "the child's output was not a measurement", diagnostics: diagnostics)
        }
    }

    private static func firstLine(_ text: String) -> String {
        guard let line = text.split(separator: "\n").first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return "" }
        return ": " + line.trimmingCharacters(in: .whitespaces)
    }
}

/// Drains a pipe on its own thread so a child never blocks on a full pipe.
///
/// `@unchecked Sendable`: `collected` is written once by the reading thread before `done` is
/// signalled, and read only after waiting on `done`.
private final class PipeReader: @unchecked Sendable {
    private var collected = Data()
    private let done = DispatchSemaphore(value: 0)

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            collected = handle.readDataToEndOfFile()
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
