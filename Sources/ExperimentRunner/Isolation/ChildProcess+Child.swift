import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation

/// The parent's side of a child: starting it, telling it to go, watching it to its end.
extension ChildProcess {
    /// The environment every child starts with: this one, with Swift's crash backtracer off. It
    /// symbolicates for about half a second before a trapping child dies; the runner reads only
    /// the trap's message from stderr, and that half second would count as the trap's moment.
    static var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { _, off in off }
    }

    /// How long a child may take to start (load, read its plan, prime the pool) before it says
    /// its first line, when its watchdog counts from then: generous, as a process start on a
    /// loaded 2-core machine can take seconds.
    static let startAllowanceSeconds = 10.0

    /// One child process, from its start to its report. Started, it prepares (loads, reads its
    /// plan, draws its pictures) and waits; ``go()`` lets it prime the pool and run; `finish(watchdogSeconds:…)`
    /// watches it to its end; `abandon()` kills and reaps one whose turn never came. So the
    /// runner can start the next experiment's child while one runs, and its preparation costs
    /// the run nothing.
    ///
    /// Used from the runner's one thread; not Sendable.
    package final class Child {
        private var process: SpawnedProcess?
        /// Why the process could not be started; nil once it runs.
        private var failure: Report?
        /// The writing end of the child's stdin, until the go closes it.
        private var input: Int32 = -1
        private var events: PipeReader?
        private var output: StandardOutputLines?
        private var errors: StandardErrorTail?
        /// When the child was told to go: the watchdog counts from then.
        private var turned = DispatchTime.now()
        private var reaped = false

        private init() {}

        /// Whether the child prepares and then waits for ``go()`` (it was started ahead of its turn).
        private var waits = false
        /// The child's exit has been seen (`exited` was signalled and taken).
        private var sawEnd = false

        /// Starts a child for `request`, sending it `plan`. With `ahead`, it prepares and waits
        /// for ``go()`` (see `waitUntilPrepared()`); otherwise it runs at once, and ``go()`` only
        /// starts the watchdog.
        package static func start(executable: URL, request: Request, plan: Workload, ahead: Bool) -> Child {
            let child = Child()
            child.waits = ahead
            child.launch(executable: executable, request: request)
            if child.failure == nil {
                // Plans are Codable throughout: one always encodes. On stdin, not in the argument:
                // a learner's plan of thousands of operations would pass the kernel's limit of
                // 128 KiB for one argument; a pipe takes any length.
                let line = Array(try! JSONEncoder().encode(plan)) + [UInt8(ascii: "\n")]
                writeIgnoringBrokenPipe(child.input, line)
            }
            return child
        }

        /// For a child started ahead: waits until it has prepared; false when it ended instead
        /// (it declined, its preparation having perhaps touched the pool, or it failed): the
        /// runner then starts the experiment again, to run at once.
        func waitUntilPrepared() -> Bool {
            guard failure == nil, let events else { return false }
            events.prepared.wait()
            events.prepared.signal()
            return events.sawPrepared
        }

        /// Starts the process: its stdin the runner's lines, its stdout and stderr its code's own
        /// output, and ``ChildProcess/protocolDescriptor`` the channel its events come on.
        private func launch(executable: URL, request: Request) {
            var request = request
            request.waitsForGo = waits
            let arguments = [ChildProcess.command, request.argument]
            var program = (executable, arguments)
            if let cpus = request.cpus {
                guard let pinned = CPUAffinity.pinned(executable, arguments: arguments, to: cpus) else {
                    failure = Report(
                        ending: .exited(status: -1), measurement: nil,
                        diagnostics: "could not pin the child to \(Format.count(cpus, "CPU"))")
                    return
                }
                program = pinned
            }
            do {
                let (stdin, stdout, stderr, channel) = (
                    try ClosingPipe(), try ClosingPipe(), try ClosingPipe(), try ClosingPipe()
                )
                defer { [stdin.reading, stdout.writing, stderr.writing, channel.writing].forEach { close($0) } }
                input = stdin.writing
                events = PipeReader(channel.reading)
                output = StandardOutputLines(stdout.reading)
                errors = StandardErrorTail(stderr.reading)
                process = try SpawnedProcess.start(
                    program.0.path, arguments: program.1, environment: ChildProcess.environment,
                    descriptors: [
                        STDIN_FILENO: stdin.reading, STDOUT_FILENO: stdout.writing, STDERR_FILENO: stderr.writing,
                        ChildProcess.protocolDescriptor: channel.writing,
                    ]
                )
            } catch {
                closeInput()
                failure = Report(
                    ending: .exited(status: -1), measurement: nil,
                    diagnostics: "could not start the child process: \(error)")
                return
            }
            if let process, !Interruption.shared.childStarted(process) {
                process.endLineage()
            }
        }

        /// The child's process id (its start failed: 0).
        var processIdentifier: pid_t {
            process?.pid ?? 0
        }

        /// When the child was told to touch the pool (``prime()``); nil until then.
        private(set) var primedAt: DispatchTime?

        /// Lets a child started ahead touch the pool now, while the experiment before it ends, so
        /// that at its ``go()`` it has settled and starts its clock at once. Ignored by a child
        /// that runs at once.
        func prime() {
            guard waits, failure == nil, primedAt == nil else { return }
            primedAt = .now()
            Self.writeIgnoringBrokenPipe(input, Array(ChildProcess.primeLine.utf8))
        }

        /// Lets the child run (touching the pool first, if not primed); the watchdog counts from now.
        package func go() {
            turned = .now()
            guard failure == nil else { return }
            if waits { Self.writeIgnoringBrokenPipe(input, Array(ChildProcess.goLine.utf8)) }
            closeInput()
        }

        private func closeInput() {
            if input >= 0 { close(input) }
            input = -1
        }

        /// Kills a child whose turn never came (an interrupt, an error, the run's end) and reaps it.
        func abandon() {
            guard let process, !reaped else { return }
            process.endLineage()
            closeInput()
            reap(process)
            waitUntilEnded()
        }

        /// Waits until whatever the child started has been ended too (its lineage: a look
        /// through every process, which runs on from the child's exit while its report is read
        /// and judged): before another child goes, and before the runner returns.
        func waitUntilEnded() {
            guard let process else { return }
            process.ended.wait()
            process.ended.signal()
        }

        /// Waits for the exit of a child known to end (killed, or seen exiting: `hasEnded`), then
        /// reads what its pipes hold and stops reading them: a process it started that escaped
        /// its lineage may hold them open for ever. Its lineage may still be being ended
        /// (``waitUntilEnded()``).
        private func reap(_ process: SpawnedProcess, hasEnded: Bool = false) {
            if !hasEnded, !sawEnd { process.exited.wait() }
            sawEnd = true
            reaped = true
            Interruption.shared.childEnded(process)
            events?.stop()
            output?.stop()
            errors?.stop()
        }

        /// Waits for the child told to ``go()`` at most `watchdogSeconds`: from the go, or, with
        /// `countingFromFirstLine`, from the child's clock start (the experiment about to start), so
        /// a declared hang is stopped at its own moment whatever the process start cost. With
        /// `recounting`, the watchdog is the one it gives for the CPU costs the child calibrated
        /// (sent before its clock started), counted from the clock start: a plan whose CPU work the
        /// runner left to measure is watched for what that work costs in the child.
        /// `whenClockStarted` is called once the child's clock has started (or it ended before):
        /// the moment the runner may start the next child. `nearItsEnd` is called
        /// `nearItsEndSeconds` after the clock's start (the line's arrival), unless the child has
        /// ended or been stopped by then: the moment the runner may prime the next child.
        package func finish(
            watchdogSeconds: Double, countingFromFirstLine: Bool = false, recounting: (([CPUCost]) -> Double)? = nil,
            whenClockStarted: () -> Void = {}, nearItsEndSeconds: Double? = nil, nearItsEnd: () -> Void = {}
        ) -> Report {
            guard let process, let events, let output, let errors else {
                whenClockStarted()
                return failure
                    ?? Report(
                        ending: .exited(status: -1), measurement: nil, diagnostics: "the child process was not started")
            }
            let ended = process.exited
            var watchdogSeconds = watchdogSeconds
            var deadline = turned + watchdogSeconds
            let countsFromClock = countingFromFirstLine || recounting != nil
            // A child slower to start than the allowance is timed from then on.
            let clockLineCame =
                events.clockStarted.wait(
                    timeout: countsFromClock
                        ? turned + startAllowanceSeconds : min(deadline, turned + startAllowanceSeconds)) == .success
            // When the line came, not now: the runner may have judged the experiment before meanwhile.
            let clockSeen = clockLineCame ? events.clockSeen : nil
            if countsFromClock {
                let clockStart = clockSeen ?? .now()
                if let recounting {
                    watchdogSeconds = recounting(
                        ChildProcess.events(in: events.beforeClock).compactMap {
                            if case .cpuCost(let cost) = $0 { cost } else { nil }
                        })
                }
                deadline = clockStart + watchdogSeconds
            }
            whenClockStarted()
            var endedEarly = false
            if let nearItsEndSeconds, let clockSeen, clockSeen + nearItsEndSeconds < deadline {
                endedEarly = ended.wait(timeout: clockSeen + nearItsEndSeconds) == .success
                if !endedEarly { nearItsEnd() }
            }
            var stoppedAt: DispatchTime?
            let timedOut = !endedEarly && ended.wait(timeout: deadline) == .timedOut
            if timedOut {
                stoppedAt = .now()
                process.endLineage()
            }
            reap(process, hasEnded: !timedOut)
            return Self.report(
                of: process, events: events, output: output, errors: errors, stoppedAt: stoppedAt,
                watchdogSeconds: watchdogSeconds)
        }

        /// What a reaped child comes to: how it ended (an interrupt of the run first, then the
        /// watchdog's stop, a signal, a failing status, or whether its experiment returned), what
        /// it recorded up to its end or stop, with what its code wrote to stdout among the printed
        /// lines, and the tail of its stderr.
        private static func report(
            of process: SpawnedProcess, events: PipeReader, output: StandardOutputLines, errors: StandardErrorTail,
            stoppedAt: DispatchTime?, watchdogSeconds: Double
        ) -> Report {
            var assembler = MeasuredRunAssembler()
            for event in ChildProcess.events(in: events.data()) {
                assembler.add(event)
            }
            let ending: ChildEnding
            if let signal = Interruption.shared.signal {
                ending = .interrupted(signal: signal)
            } else if stoppedAt != nil {
                ending = .hung(afterSeconds: watchdogSeconds)
            } else if case .signalled(let signal)? = process.termination {
                ending = .trapped(signal: signal)
            } else if case .exited(let status)? = process.termination, status != 0 {
                ending = .exited(status: status)
            } else {
                ending = assembler.isFinished ? .returned : .unreadable
            }
            let stopped = assembler.experimentSeconds(at: stoppedAt ?? .now())
            var measurement = assembler.measurement(stoppedAt: stopped)
            // What its code wrote to stdout is its output too, shown among the printed lines.
            let written = output.printed(experimentSeconds: assembler.experimentSeconds(at:))
            if let printed = measurement?.output {
                measurement?.output = (printed + written).sorted { $0.at < $1.at }
            }
            let stderr = errors.read()
            return Report(
                ending: ending, measurement: measurement, diagnostics: stderr.text, diagnosticsLeftOut: stderr.leftOut)
        }

        /// Writes `bytes` to a pipe whose reader may have died (a child that trapped while it
        /// prepared) without the process dying of SIGPIPE: the signal is blocked on this thread
        /// for the write, and one it raised is taken off before it is unblocked.
        private static func writeIgnoringBrokenPipe(_ descriptor: Int32, _ bytes: [UInt8]) {
            var pipeSignal = sigset_t(), previous = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previous)
            let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EPIPE {
                var now = timespec()
                _ = sigtimedwait(&pipeSignal, nil, &now)
            }
            pthread_sigmask(SIG_SETMASK, &previous, nil)
        }
    }
}
