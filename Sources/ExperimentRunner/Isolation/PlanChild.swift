import ExperimentKit
import ExperimentModel
import Foundation

/// Reads experiments' plans in a child process of the runner's own executable, so that no
/// experiment's code runs in the runner: a rehearsal that traps or never returns stops only the
/// child, and the runner reports it as that experiment's error and goes on.
///
/// The child rehearses the experiments it is given in order and writes one JSON line before
/// each (`Line.starting(experiment:)`), so an end is pinned to one experiment, then its plan
/// (`Line.plan(_:)`). A rehearsal that does not return within ``rehearsalLimitSeconds`` is
/// stopped by the child's own watchdog, which first says the line it was stuck on
/// (`Line.stuck(site:)`); the runner's hard kill a little later is the backstop.
package enum PlanChild {
    /// First argument that makes `run-experiments` read plans.
    package static let command = "__plan"

    /// How long one rehearsal may take. A rehearsal builds objects and reads them without
    /// running any work: it takes milliseconds (an image experiment, which draws its pictures,
    /// tens of them). Three seconds is a hundred times the slowest on a loaded 2-core machine,
    /// and short enough that a learner's stuck experiment is reported without a long wait.
    package static let rehearsalLimitSeconds = 3.0

    /// How much longer than ``rehearsalLimitSeconds`` the child's watchdog waits for the stuck
    /// thread to report before it ends the child without the line: symbolicating the stack
    /// takes 0.2–0.5 s on a 2-core machine with one core busy, more while the binary's debug
    /// information is read for the first time.
    static let reportSeconds = 2.0

    /// How much longer than ``rehearsalLimitSeconds`` the runner waits before it kills a plan
    /// child itself: the child's watchdog ends it by ``reportSeconds``; one more second of room.
    static let backstopMarginSeconds = reportSeconds + 1

    /// The experiments to rehearse, in order; sent as the one argument after ``command`` (JSON).
    package struct Request: Sendable, Equatable, Codable {
        /// One experiment, with the values it is rehearsed with.
        package struct Entry: Sendable, Equatable, Codable {
            package var experiment: String
            package var parameters: Parameters
        }

        package var experiments: [Entry]
        /// Whether the plans keep their operations' call stacks: `list` in text or Markdown shows
        /// no line, and is sent none.
        package var keepsCallSites: Bool

        package init(experiments: [Entry], keepsCallSites: Bool = true) {
            self.experiments = experiments
            self.keepsCallSites = keepsCallSites
        }

        /// The child's argument after ``command``.
        package var argument: String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .sortedKeys
            // Names, strings and numbers always encode.
            return String(decoding: try! encoder.encode(self), as: UTF8.self)
        }

        /// The request in a child's argument; nil when it is not one.
        package init?(argument: String) {
            guard let request = try? JSONDecoder().decode(Self.self, from: Data(argument.utf8)) else { return nil }
            self = request
        }
    }

    /// One line the child writes on its protocol channel (``ChildProcess/protocolDescriptor``).
    enum Line: Codable, Equatable {
        /// The child is about to rehearse this experiment.
        case starting(experiment: String)
        /// The plan of the experiment last started.
        case plan(Workload)
        /// The rehearsal of the experiment last started did not return in time; it was stuck at
        /// `site` (`Probe.swift:12`), nil where no frame of an experiment's file was found.
        case stuck(site: String?)

        var json: [UInt8] {
            // A plan is Codable throughout: it always encodes.
            Array(try! JSONEncoder().encode(self)) + [UInt8(ascii: "\n")]
        }
    }

    // MARK: The child's side

    /// Rehearses each experiment with its values, writing the lines to `write`; a rehearsal that
    /// does not return is reported by the watchdog, which ends the process.
    package static func readPlans(
        _ experiments: [(Experiment, Parameters)], keepingCallSites: Bool = true,
        write: @escaping @Sendable ([UInt8]) -> Void
    ) {
        ChildProcess.exitWhenOrphaned()
        StuckRehearsal.install(write: write)
        let runnersFrames = CallSite.Stack.capture()
        for (experiment, parameters) in experiments {
            write(Line.starting(experiment: experiment.name).json)
            let returned = DispatchSemaphore(value: 0)
            let rehearsing = pthread_self()
            Thread.detachNewThread {
                if returned.wait(timeout: .now() + rehearsalLimitSeconds) == .timedOut {
                    StuckRehearsal.interrupt(rehearsing)
                }
            }
            let workload = experiment.workload(parameters)
            returned.signal()
            write(Line.plan(workload.sent(keepingCallSites: keepingCallSites, cutting: runnersFrames)).json)
        }
    }

    // MARK: The runner's side

    /// The plan children started and not yet reaped.
    private static let unreaped = DispatchGroup()

    /// Waits, a second at most, until every plan child started has been reaped: one that wrote
    /// its last plan ends by itself while the runner predicts and writes, so a command that
    /// waits for it as it ends leaves nothing behind, and its CPU time counts as its own.
    package static func waitForTheirEnds() {
        _ = unreaped.wait(timeout: .now() + 1)
    }

    /// Reads the plans of `entries` (in the registry, in `executable`) in a child, starting a
    /// fresh one for those after an experiment whose rehearsal ended its child; hands each
    /// result, with its entry's index, to `each` as soon as it is read.
    static func read(
        _ entries: [Request.Entry], keepingCallSites: Bool = true, executable: URL,
        each: (Int, Result<Workload, PlanFailure>) -> Void
    ) {
        var next = 0
        func give(_ result: Result<Workload, PlanFailure>) {
            guard next < entries.count else { return }
            each(next, result)
            next += 1
        }
        while next < entries.count {
            if let signal = Interruption.shared.signal {
                while next < entries.count {
                    give(.failure(PlanFailure("interrupted by signal \(signal) before its plan was read")))
                }
                break
            }
            let session = Session(
                executable: executable,
                request: Request(experiments: Array(entries[next...]), keepsCallSites: keepingCallSites))
            let ending = session.plans { give(.success($0)) }
            guard let failure = ending.failure else { break }
            // The child ended before it had read them all: the experiment it had started (or,
            // when it ended before starting one, every one left) has this failure.
            give(.failure(failure))
            while !ending.started, next < entries.count { give(.failure(failure)) }
        }
    }

    /// One plan child, from its start to its end: its protocol channel read here, its stderr
    /// kept for the reason of a failure, its stdout (a rehearsal's own output) thrown away.
    private struct Session {
        private var process: SpawnedProcess?
        /// The reading end of the child's protocol channel.
        private var channel: Int32 = -1
        private var errors: StandardErrorTail?
        private var failedToStart: String?
        /// How many plans the child was asked for.
        private let count: Int

        init(executable: URL, request: Request) {
            count = request.experiments.count
            do {
                let (stderr, protocolChannel) = (try ClosingPipe(), try ClosingPipe())
                let nothing = open("/dev/null", O_RDWR | O_CLOEXEC)
                defer { [stderr.writing, protocolChannel.writing, nothing].forEach { close($0) } }
                channel = protocolChannel.reading
                errors = StandardErrorTail(stderr.reading)
                process = try SpawnedProcess.start(
                    executable.path, arguments: [command, request.argument], environment: ChildProcess.environment,
                    descriptors: [
                        STDIN_FILENO: nothing, STDOUT_FILENO: nothing, STDERR_FILENO: stderr.writing,
                        ChildProcess.protocolDescriptor: protocolChannel.writing,
                    ]
                )
            } catch {
                failedToStart = "could not start the plan child: \(error)"
                return
            }
            // Forgotten by the interruption once reaped, whoever waits for it (or nobody: a
            // child that wrote every plan ends by itself, and the runner goes on meanwhile); its
            // stderr is read to what it holds then, whoever else holds the pipe.
            if let process {
                if !Interruption.shared.childStarted(process) {
                    process.endLineage()
                }
                let (ended, errors) = (process.ended, errors)
                unreaped.enter()
                Thread.detachNewThread {
                    ended.wait()
                    Interruption.shared.childEnded(process)
                    errors?.stop()
                    ended.signal()
                    unreaped.leave()
                }
            }
        }

        /// Hands each plan the child writes to `each` until its output ends; then, unless every
        /// plan came, why it ended (`failure`), and whether it had started an experiment whose
        /// plan never came (`started`) or ended before starting one.
        func plans(_ each: (Workload) -> Void) -> (started: Bool, failure: PlanFailure?) {
            defer { if channel >= 0 { close(channel) } }
            guard let process, let errors else {
                return (false, PlanFailure(failedToStart ?? "the plan child was not started"))
            }
            var lines = LineReader(channel)
            var started = false
            var stuck: String??
            var read = 0
            // Before its first line the child loads; after, each rehearsal has its limit.
            var deadline = DispatchTime.now() + ChildProcess.startAllowanceSeconds
            let decoder = JSONDecoder()
            // A plan counts only as the answer to the experiment the child said it started, and
            // only for as many experiments as it was asked for.
            while read < count, let line = lines.next(before: deadline) {
                switch try? decoder.decode(Line.self, from: Data(line)) {
                case .starting:
                    started = true
                    deadline = .now() + rehearsalLimitSeconds + backstopMarginSeconds
                case .plan(let workload) where started:
                    each(workload)
                    started = false
                    read += 1
                case .stuck(let site):
                    stuck = .some(site)
                case .plan, nil:
                    break
                }
            }
            let ended = process.ended
            if read == count {
                if lines.timedOut { process.endLineage() }
                return (false, nil)
            }
            // Its output ended, or its time did: a child that lives on without output (its
            // code closed it) is given the same time to end.
            let killed = lines.timedOut || ended.wait(timeout: deadline) == .timedOut
            if killed {
                process.endLineage()
                ended.wait()
            }
            ended.signal()
            errors.stop()
            return (started, failure(of: process, stuck: stuck, killed: killed, diagnostics: errors.read()))
        }

        /// Why the child ended before writing the plan of the experiment it had started.
        private func failure(
            of process: SpawnedProcess, stuck: String??, killed: Bool, diagnostics: (text: String, leftOut: Int)
        ) -> PlanFailure {
            let message =
                ChildProcess.Report.diagnosticLine(in: diagnostics.text, leftOutBefore: diagnostics.leftOut).map {
                    ": " + $0
                } ?? ""
            if let signal = Interruption.shared.signal {
                return PlanFailure("interrupted by signal \(signal) while its plan was read")
            }
            if killed || stuck != nil {
                let site = (stuck ?? nil).map { ", stuck at \($0)" } ?? ""
                return PlanFailure(
                    "its rehearsal did not return within \(Format.seconds(rehearsalLimitSeconds, digits: 0))\(site); stopped (the code must not wait or loop for ever before it returns)"
                )
            }
            switch process.termination {
            case .signalled(let signal)?:
                return PlanFailure("its rehearsal trapped (signal \(signal))\(message)")
            case .exited(let status)?:
                return PlanFailure("its plan could not be read: the plan child exited with status \(status)\(message)")
            case nil:
                return PlanFailure(
                    "its plan could not be read: the plan child ended its output and was stopped\(message)")
            }
        }
    }
}

/// Why an experiment has no plan: its rehearsal trapped, did not return, or its child failed.
/// The experiment's verdict is then `error`, with this reason.
package struct PlanFailure: Error, Sendable, Equatable {
    package var reason: String

    package init(_ reason: String) {
        self.reason = reason
    }
}

/// The plan child's watchdog: it interrupts the rehearsing thread with ``signal``, whose handler
/// makes that thread report the line of an experiment's file it was running, then end the child.
private enum StuckRehearsal {
    /// The signal the watchdog sends to the rehearsing thread; nothing else in a plan child uses it.
    static let signal = SIGUSR2
    /// Exit status of a plan child whose rehearsal was stopped.
    static let stoppedStatus: Int32 = 4

    /// Where the stuck line goes: set once, before the first rehearsal, and read only by the
    /// thread the signal interrupts, after that.
    nonisolated(unsafe) private static var write: (@Sendable ([UInt8]) -> Void)?

    /// Installs the handler, and lets the signal reach the calling thread (the rehearsing one):
    /// a blocked signal mask is inherited across exec, and a parent that blocks it (a test
    /// runner does) would leave the report pending for ever.
    static func install(write: @escaping @Sendable ([UInt8]) -> Void) {
        self.write = write
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = { _, _, context in StuckRehearsal.interrupted(context) }
        action.sa_flags = SA_SIGINFO
        sigaction(signal, &action, nil)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, signal)
        pthread_sigmask(SIG_UNBLOCK, &unblocked, nil)
    }

    /// Sends the signal to the stuck thread; ends the child itself if the thread never reports
    /// (one stuck where the report cannot run, holding the allocator's lock).
    static func interrupt(_ thread: pthread_t) {
        pthread_kill(thread, signal)
        Thread.sleep(forTimeInterval: PlanChild.reportSeconds)
        write?(PlanChild.Line.stuck(site: nil).json)
        _exit(stoppedStatus)
    }

    /// In the signal handler, on the stuck thread. The interrupted instruction is not in the
    /// frames a backtrace taken here walks (they go from the handler to the interrupted
    /// function's caller), so on x86-64 the handler makes the thread, once the handler returns,
    /// call ``report()`` as if from that instruction: the interrupted address is pushed as a
    /// return address below the stack's red zone and the instruction pointer set to ``report()``.
    /// Elsewhere the report is made here, from the caller's frames.
    private static func interrupted(_ context: UnsafeMutableRawPointer?) {
        #if arch(x86_64)
        if let context {
            let user = context.assumingMemoryBound(to: ucontext_t.self)
            withUnsafeMutablePointer(to: &user.pointee.uc_mcontext.gregs) { tuple in
                tuple.withMemoryRebound(
                    to: Int.self, capacity: MemoryLayout.size(ofValue: tuple.pointee) / MemoryLayout<Int>.size
                ) { registers in
                    // REG_RIP and REG_RSP of <sys/ucontext.h>, which Swift does not import.
                    let (stack, instruction) = (15, 16)
                    // 128 bytes of red zone, then a call's alignment: 8 off a 16-byte boundary.
                    // The address pushed is one past the interrupted one: a return address is
                    // looked up one byte back, which is then the interrupted instruction itself.
                    let top = ((registers[stack] - 128) & ~15) - 8
                    UnsafeMutablePointer<Int>(bitPattern: top)!.pointee = registers[instruction] + 1
                    registers[stack] = top
                    let report: @convention(c) () -> Void = { StuckRehearsal.report() }
                    registers[instruction] = unsafeBitCast(report, to: Int.self)
                }
            }
            return
        }
        #endif
        report()
    }

    /// Writes the stuck line with the first frame in an experiment's file, and ends the child.
    private static func report() -> Never {
        write?(PlanChild.Line.stuck(site: CallSite.inExperiment()).json)
        _exit(stoppedStatus)
    }
}
