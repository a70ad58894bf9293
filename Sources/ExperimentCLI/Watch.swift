import ExperimentKit
import ExperimentModel
import ExperimentReports
import ExperimentRunner
import Foundation
import ReportFiles
import Synchronization

/// `watch NAME…`: a live playground. Runs the experiments, then, on every save of a Swift file
/// under `Experiments/`, rebuilds the package the way `swift run` does and runs them again with
/// the new executable, writing the report folder each round so that an open page follows.
///
/// Each round is two children, the build and the run, each started as the runner starts an
/// experiment (``SpawnedProcess``: a group and a lineage of its own), one at a time, so an
/// interrupt ends whichever is running with everything it started. This process only waits:
/// the rebuilt executable is the one each round starts, never this one.
final class Watch: Sendable {
    /// The package the running executable was built from: its sources are what is watched and rebuilt.
    let root: URL
    /// The executable a build writes and each round runs.
    let executable: URL
    /// The arguments of a round's run.
    let roundArguments: [String]
    /// Whether stdout is a terminal, where each round replaces the last on screen.
    let onTerminal: Bool
    /// Names this watch in each round's number, so that a page open from an earlier watch
    /// never takes a round of this one for its own.
    let session = "\(getpid())-\(Int(Date().timeIntervalSince1970))"

    /// The environment variable a round's run finds its round in (see ``RunPlan/round``).
    static let roundVariable = "RUN_EXPERIMENTS_WATCH_ROUND"
    /// How long the files must stay unchanged before a round starts: an editor's several writes
    /// for one save (a backup, the file, its rename) come within a few milliseconds.
    static let quietMilliseconds: Int32 = 150
    /// The compiler's errors shown of a failed build.
    static let shownErrors = 5
    /// The lineage mark of every build of this watch, the same each round: SwiftPM keys its
    /// cache of the evaluated manifest on the whole environment, where a mark new for each build
    /// would have every round compile, link and run `Package.swift` again. Builds run one at a
    /// time, each ended with its lineage before the next starts, so the mark is never shared.
    private let buildMark = "\(getpid())-build"

    private struct State {
        var interrupted = false
        var running: (process: SpawnedProcess, isBuild: Bool)?
    }

    private let state = Mutex(State())

    init(root: URL, executable: URL, options: RunOptions, onTerminal: Bool) {
        self.root = root
        self.executable = executable
        self.onTerminal = onTerminal
        roundArguments = Self.arguments(of: options)
    }

    /// The run a round makes: the selection and options of `watch`, with the report folder.
    static func arguments(of options: RunOptions) -> [String] {
        var arguments = options.all ? ["all"] : options.names
        arguments += options.filters.flatMap { ["--filter", $0] }
        arguments += ["--time-scale", options.timeScale.decimalText]
        arguments += options.settings.sorted { $0.key < $1.key }.flatMap { ["--set", "\($0.key)=\($0.value)"] }
        arguments += options.cpus.map { ["--cpus", String($0)] } ?? []
        arguments += options.showsLines ? ["--lines"] : []
        arguments += ["--report-dir", options.reportDirectory ?? RunExperimentsCommand.defaultReportDirectory]
        return arguments
    }

    /// The package folder `executable` was built in: the folder holding the `.build` it lies in,
    /// when that folder has a Package.swift.
    static func packageRoot(of executable: URL) -> URL? {
        var folder = executable.deletingLastPathComponent()
        while folder.path != "/" {
            if folder.lastPathComponent == ".build" {
                let root = folder.deletingLastPathComponent()
                return FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path)
                    ? root : nil
            }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// Watches until a signal ends it, and returns 128 + that signal.
    func run() -> Int32 {
        let ended = installSignalHandlers()
        guard let changes = FileChanges(under: root.appendingPathComponent("Experiments")) else {
            StandardStreams.writeError(
                "Error: Cannot watch \(root.path)/Experiments for changes: \(AtomicFile.systemReason()).\n")
            return RunExperimentsCommand.writeFailedStatus
        }
        var number = 1
        var changed: [String] = []
        var lastGood: Int?
        while true {
            if round(number: number, changed: changed, lastGood: lastGood) { lastGood = number }
            if number == 1 {
                // SwiftPM evaluates the manifest again in the first build it makes with this
                // watch's environment (``buildMark``): made now, while the first round is read,
                // that build leaves the first save's round no longer than the others. Its errors,
                // if any, are the next save's round's to show.
                _ = build()
            }
            guard !isInterrupted else { break }
            say("Watching \(root.lastPathComponent)/Experiments/ for saves (Ctrl-C ends).")
            changed = changes.next(quietFor: Self.quietMilliseconds)
            number += 1
        }
        return ended.wait()
    }

    private var isInterrupted: Bool { state.withLock { $0.interrupted } }

    /// One round: the build, then, when it succeeds, the run. Whether it ran.
    private func round(number: Int, changed: [String], lastGood: Int?) -> Bool {
        let cause = changed.isEmpty ? "" : ": \(changed.joined(separator: ", ")) saved"
        if number > 1 {
            guard let build = build() else { return false }
            guard build.succeeded else {
                say(separator("round \(number)\(cause): the build failed"))
                say(build.errors)
                say(
                    lastGood.map {
                        "The last good result, round \($0), stays \(onTerminal ? "above" : "in the report folder"); the next good save runs again."
                    }
                        ?? "Nothing has run yet; the next good save runs.")
                return false
            }
        }
        if onTerminal {
            // Home, then clear: the new round replaces the last on screen.
            StandardStreams.write("\u{1B}[H\u{1B}[2J\u{1B}[3J")
        }
        say(separator("round \(number)\(cause)"))
        var environment = ProcessInfo.processInfo.environment
        environment[Self.roundVariable] = "\(session).\(number)"
        return start(executable.path, roundArguments, environment: environment, isBuild: false, output: nil) != nil
    }

    /// A build's outcome: whether it succeeded, and the compiler's first errors when not.
    struct Build {
        var succeeded: Bool
        var errors: String
    }

    /// Rebuilds the executable as `swift run` does; nil when interrupted.
    private func build() -> Build? {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("run-experiments-watch-\(session).log")
        let descriptor = open(log.path, O_CREAT | O_TRUNC | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            return Build(
                succeeded: false, errors: "Cannot write the build's log \(log.path): \(AtomicFile.systemReason()).")
        }
        defer {
            close(descriptor)
            unlink(log.path)
        }
        let arguments = ["swift", "build", "--package-path", root.path, "--product", "run-experiments"]
        guard
            let status = start(
                "/usr/bin/env", arguments, environment: ProcessInfo.processInfo.environment, isBuild: true,
                output: descriptor, mark: buildMark)
        else { return nil }
        guard status != .exited(status: 0) else {
            // A save the compiler sees nothing new in (the same text written again) links no new
            // executable, which then stays older than the file, and its run would take the file's
            // lines for edited since the build; the build has just found it current.
            utimensat(AT_FDCWD, executable.path, nil, 0)
            return Build(succeeded: true, errors: "")
        }
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        return Build(succeeded: false, errors: Self.firstErrors(of: output, root: root))
    }

    /// The compiler's first errors, each once, with their files relative to the package; the
    /// output's end when it names no error (a manifest that does not load, a missing toolchain).
    static func firstErrors(of output: String, root: URL) -> String {
        var seen = Set<String>()
        let errors = output.split(separator: "\n").map(String.init)
            .filter { $0.contains(": error: ") && seen.insert($0).inserted }
            .prefix(shownErrors)
            .map { $0.replacingOccurrences(of: root.path + "/", with: "") }
        return errors.isEmpty
            ? output.split(separator: "\n").suffix(20).joined(separator: "\n") : errors.joined(separator: "\n")
    }

    /// Starts a child, waits for it and returns how it ended; nil when interrupted, before or
    /// while it ran. `output` receives its stdout and stderr; nil leaves it this process's.
    /// `mark` is its lineage's (``SpawnedProcess/start(_:arguments:environment:descriptors:mark:)``).
    private func start(
        _ path: String, _ arguments: [String], environment: [String: String], isBuild: Bool, output: Int32?,
        mark: String? = nil
    ) -> SpawnedProcess.Termination? {
        let descriptors: [Int32: Int32] =
            output.map { [0: STDIN_FILENO, 1: $0, 2: $0] } ?? [0: STDIN_FILENO, 1: STDOUT_FILENO, 2: STDERR_FILENO]
        let started = state.withLock { state -> Result<SpawnedProcess, SpawnedProcess.Failure>? in
            // Started under the lock: an interrupt either finds it running or stops it starting.
            guard !state.interrupted else { return nil }
            do throws(SpawnedProcess.Failure) {
                let process = try SpawnedProcess.start(
                    path, arguments: arguments, environment: environment, descriptors: descriptors, mark: mark)
                state.running = (process, isBuild)
                return .success(process)
            } catch {
                return .failure(error)
            }
        }
        switch started {
        case nil:
            return nil
        case .failure(let failure)?:
            say("Error: \(failure.description)")
            return .exited(status: 127)
        case .success(let process)?:
            process.ended.wait()
            return state.withLock { state in
                state.running = nil
                return state.interrupted ? nil : process.termination
            }
        }
    }

    /// Routes SIGINT, SIGTERM and SIGHUP to ending the watch: the running child ends with its
    /// lineage (a run is first asked to stop, as Ctrl-C asks a run, so it ends its experiments'
    /// children) and the returned box then holds 128 + the signal.
    private func installSignalHandlers() -> SignalBox {
        let box = SignalBox()
        let queue = DispatchQueue(label: "run-experiments.watch.signals")
        for number in [SIGINT, SIGTERM, SIGHUP] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [self] in
                let running = state.withLock { state in
                    state.interrupted = true
                    return state.running
                }
                if let (process, isBuild) = running {
                    if !isBuild {
                        kill(process.pid, SIGINT)
                        _ = process.ended.wait(timeout: .now() + 2)
                    }
                    process.endLineage()
                }
                box.signal(number)
                // The main thread may be waiting for changes, which no interrupt wakes.
                exit(128 + number)
            }
            source.resume()
            box.sources.append(source)
        }
        return box
    }

    /// A line of its own, or a round's first line: its number and what started it, set apart
    /// when rounds follow one another.
    private func separator(_ text: String) -> String {
        onTerminal
            ? "run-experiments watch · \(text)"
            : "──── \(text) " + String(repeating: "─", count: max(4, 72 - text.count))
    }

    private func say(_ text: String) {
        StandardStreams.write(text + "\n")
    }
}

/// The signal that ended a watch, and the signal sources kept alive meanwhile.
///
/// `@unchecked Sendable`: `sources` is written only by `installSignalHandlers` before any
/// source fires and never read again; `number` is behind the semaphore.
final class SignalBox: @unchecked Sendable {
    var sources: [DispatchSourceSignal] = []
    private var number: Int32 = 0
    private let received = DispatchSemaphore(value: 0)

    func signal(_ number: Int32) {
        self.number = number
        received.signal()
    }

    func wait() -> Int32 {
        received.wait()
        return 128 + number
    }
}

/// The saves of Swift files under a folder, seen with inotify: each folder of the tree is
/// watched for files written, moved in or out, and removed.
final class FileChanges {
    private let descriptor: Int32
    private let folder: URL
    /// What inotify reports: a file written and closed, moved in (an editor's save by rename),
    /// created, removed or moved out.
    private static let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE | IN_DELETE | IN_MOVED_FROM)

    init?(under folder: URL) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        self.folder = folder
        guard descriptor >= 0, watchTheTree() else { return nil }
    }

    deinit { close(descriptor) }

    /// Adds a watch to every folder of the tree (again: a folder made since is watched from now on).
    private func watchTheTree() -> Bool {
        guard inotify_add_watch(descriptor, folder.path, Self.events) >= 0 else { return false }
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isDirectoryKey])
        while let url = files?.nextObject() as? URL {
            if (try? url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true {
                _ = inotify_add_watch(descriptor, url.path, Self.events)
            }
        }
        return true
    }

    /// Waits for a save, then until none has come for `quiet` milliseconds, and returns the
    /// names of the Swift files saved. Saves made since the last call (during a round) count:
    /// they are waiting in the queue, and make one round.
    func next(quietFor quiet: Int32) -> [String] {
        var names: [String] = []
        while names.isEmpty {
            names = read(waiting: -1)
        }
        while true {
            let more = read(waiting: quiet)
            if more.isEmpty, !waiting(quiet) { break }
            names += more.filter { !names.contains($0) }
        }
        _ = watchTheTree()
        return names
    }

    /// Whether an event is waiting, after up to `milliseconds`.
    private func waiting(_ milliseconds: Int32) -> Bool {
        var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&request, 1, milliseconds) > 0
    }

    /// The Swift files named by the events that come within `milliseconds` (-1: waits for one).
    /// An editor's backups and swap files (`.MyQueue.swift.swp`, `MyQueue.swift~`, `4913`) are not saves.
    private func read(waiting milliseconds: Int32) -> [String] {
        guard waiting(milliseconds) else { return [] }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
        guard count > 0 else { return [] }
        var names: [String] = []
        var offset = 0
        // struct inotify_event: wd, mask, cookie, len (4 bytes each), then len bytes of name.
        while offset + 16 <= count {
            let length = buffer[(offset + 12)..<(offset + 16)].reversed().reduce(0) { $0 << 8 | Int($1) }
            let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
            let name = String(decoding: nameBytes, as: UTF8.self)
            if name.hasSuffix(".swift"), !name.hasPrefix("."), !names.contains(name) { names.append(name) }
            offset += 16 + length
        }
        return names
    }
}
