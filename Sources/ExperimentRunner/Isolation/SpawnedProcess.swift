import Dispatch
import Foundation
import Synchronization

/// A child process started in a process group of its own, with exactly the descriptors it is
/// given and nothing else inherited, which ends with everything it started: its lineage.
///
/// The lineage is what makes "the child ended" mean "everything it started ended": an
/// experiment's code may start processes of its own (`Process` running `/bin/sleep 300`), which
/// inherit the child's stdout and stderr and would hold those pipes open, and outlive the run,
/// after the child itself is gone. A process group alone would not hold them: Foundation's
/// `Process` starts each of its children in a group of its own. A session would, but on Linux a
/// new session is a scheduling group of its own (autogroup), which shares the CPUs with the
/// runner's as a whole: on a busy machine the next child, preparing in a session of its own, then
/// took half of a core from the running experiment's threads, and operations started late. So
/// each child gets a mark in its environment, `lineageVariable`, which what it starts inherits;
/// its lineage is its group and every process that carries the mark, ended
/// (``endLineage()``) when the child is seen to exit (before it is reaped, so its number cannot
/// have been reused), and on every other path (the watchdog, an interrupt, a child whose turn
/// never came). Foundation's `Process` cannot hand a child a descriptor beyond stderr, so this
/// calls `posix_spawn` itself.
///
/// `@unchecked Sendable`: `termination` is written once by the waiting thread before `exited` is
/// signalled, and read only after waiting on it (or on `ended`, signalled later).
package final class SpawnedProcess: @unchecked Sendable {
    /// How a process ended.
    package enum Termination: Equatable {
        case exited(status: Int32)
        case signalled(Int32)
    }

    /// The child's process id, which is also its group's.
    package let pid: pid_t
    /// The mark its lineage carries in `lineageVariable`.
    let lineage: String
    /// Signalled once: when the child has exited (``termination`` is known; its lineage may
    /// still be being ended). What the child did is over; its pipes may still be held open.
    package let exited = DispatchSemaphore(value: 0)
    /// Signalled once, after ``exited``: when its lineage has been ended and the child reaped.
    package let ended = DispatchSemaphore(value: 0)
    package private(set) var termination: Termination?

    private init(pid: pid_t, lineage: String) {
        self.pid = pid
        self.lineage = lineage
    }

    /// The environment variable each child, and whatever it starts, carries its lineage's mark in.
    static let lineageVariable = "RUN_EXPERIMENTS_LINEAGE"

    /// Children started so far by this process, numbering their marks.
    private static let started = Atomic<Int>(0)

    /// Why a process could not be started.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }

    /// Starts `executable` with `arguments` and `environment`, its descriptors those of
    /// `descriptors` (the child's number: the runner's descriptor it gets, which stays the
    /// runner's to close); every other descriptor is closed in the child, every signal has its
    /// default action and none is blocked (the runner ignores the ones it handles, and a test
    /// runner blocks some: neither is the child's business). Its lineage's mark is `mark`, or a
    /// new one: a caller that starts one child at a time may give each the same mark, which is
    /// free again once the child before has ended, its lineage with it.
    package static func start(
        _ executable: String, arguments: [String], environment: [String: String], descriptors: [Int32: Int32],
        mark: String? = nil
    ) throws(Failure) -> SpawnedProcess {
        // Each descriptor is first copied above the ones the child gets, so no dup2 of the file
        // actions overwrites one that a later dup2 still reads (a runner started with its stdin
        // closed has pipes at 0).
        let highest = (descriptors.keys.max() ?? 2) + 1
        var copies: [(target: Int32, copy: Int32)] = []
        defer { for (_, copy) in copies { close(copy) } }
        for (target, source) in descriptors.sorted(by: { $0.key < $1.key }) {
            let copy = fcntl(source, F_DUPFD_CLOEXEC, highest)
            guard copy >= 0 else {
                throw Failure(description: "could not pass descriptor \(source): \(String(cString: strerror(errno)))")
            }
            copies.append((target, copy))
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (target, copy) in copies {
            posix_spawn_file_actions_adddup2(&actions, copy, target)
        }
        for inherited in inheritedDescriptors(from: highest) {
            posix_spawn_file_actions_addclose(&actions, inherited)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        // Group 0: a group of its own, numbered as the child.
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(
            &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let lineage = mark ?? "\(getpid())-\(Self.started.add(1, ordering: .relaxed).newValue)"
        var environment = environment
        environment[Self.lineageVariable] = lineage
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw Failure(description: "could not start \(executable): \(String(cString: strerror(status)))")
        }
        let process = SpawnedProcess(pid: pid, lineage: lineage)
        Thread.detachNewThread { process.waitForTheEnd() }
        return process
    }

    /// Waits for the child to exit, says so, ends what is left of its lineage, then reaps it.
    /// Seen with `WNOWAIT` first, so the child stays a zombie meanwhile and its number, its
    /// group's, is not reused while the lineage is ended. The exit is told before the lineage
    /// is ended (a look through every process, milliseconds): the runner reads and judges the
    /// child meanwhile, and waits for ``ended`` only before it lets the next child go.
    private func waitForTheEnd() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) != 0, errno == EINTR {}
        let status = info._sifields._sigchld.si_status
        termination = info.si_code == Int32(CLD_EXITED) ? .exited(status: status & 0xff) : .signalled(status)
        exited.signal()
        endLineage()
        var reaped: Int32 = 0
        while waitpid(pid, &reaped, 0) < 0, errno == EINTR {}
        ended.signal()
    }

    /// This process's descriptors from `lowest` up that a child would inherit (not closed on
    /// exec): one opened by code that does not ask for that (a test's `Pipe`) would otherwise
    /// stay open in the child, and a reader waiting for its end would wait for the child's.
    private static func inheritedDescriptors(from lowest: Int32) -> [Int32] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return names.compactMap(Int32.init).filter { $0 >= lowest && fcntl($0, F_GETFD) == 0 }
    }

    /// Kills the child and every process of its lineage: what its code started goes with it.
    package func endLineage() {
        Self.endLineage(group: pid, mark: lineage)
    }

    /// Kills the group `group` at once, then each process the system lists that carries `mark`
    /// in `lineageVariable`, but this one, and returns when none is left. A killed process
    /// lives on until it is next scheduled (on a busy machine, milliseconds), and one may have
    /// started another meanwhile: the system is asked again every millisecond, for a second at
    /// most. Nearly always the first look finds none.
    static func endLineage(group: pid_t, mark: String) {
        kill(-group, SIGKILL)
        let entry = Array("\(lineageVariable)=\(mark)".utf8) + [0]
        for _ in 0..<1000 {
            let members = processes(carrying: entry).filter { $0 != getpid() }
            guard !members.isEmpty else { return }
            for member in members { kill(member, SIGKILL) }
            usleep(1000)
        }
    }

    /// The live processes whose environment holds `entry` (`NAME=VALUE` and its terminating
    /// zero), from `/proc/PID/environ`: the environment a process started with, which a zombie
    /// no longer has, and which only its owner may read. Read with the C library's calls into
    /// one buffer: the runner does this at each child's end, where Foundation's file reading
    /// would cost it tens of milliseconds.
    private static func processes(carrying entry: [UInt8]) -> [pid_t] {
        guard let folder = opendir("/proc") else { return [] }
        defer { closedir(folder) }
        var members: [pid_t] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while let directory = readdir(folder) {
            guard let pid = withUnsafeBytes(of: directory.pointee.d_name, { number(in: $0.prefix { $0 != 0 }) }) else {
                continue
            }
            let descriptor = openat(dirfd(folder), "\(pid)/environ", O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
            guard count > 0 else { continue }
            // An entry begins the environment or follows another's terminating zero.
            let environment = [0] + buffer[..<count]
            if environment.withUnsafeBufferPointer({ holds($0, [0] + entry) }) { members.append(pid) }
        }
        return members
    }

    /// Whether `bytes` hold `part` somewhere.
    private static func holds(_ bytes: UnsafeBufferPointer<UInt8>, _ part: [UInt8]) -> Bool {
        guard bytes.count >= part.count else { return false }
        for start in 0...(bytes.count - part.count) where bytes[start] == part[0] {
            if bytes[start..<(start + part.count)].elementsEqual(part) { return true }
        }
        return false
    }

    /// The decimal number `digits` spell; nil when they spell none.
    private static func number(in digits: some Collection<UInt8>) -> pid_t? {
        guard !digits.isEmpty else { return nil }
        var value: pid_t = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9"), value < pid_t.max / 10 else { return nil }
            value = value * 10 + pid_t(digit - UInt8(ascii: "0"))
        }
        return value
    }
}

/// A pipe whose two ends are closed on exec: only what is passed on purpose reaches a child.
/// (Children are started from the runner's one thread, so none starts between the pipe and the
/// flag.)
struct ClosingPipe {
    let reading: Int32
    let writing: Int32

    init() throws(SpawnedProcess.Failure) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            throw SpawnedProcess.Failure(description: "could not make a pipe: \(String(cString: strerror(errno)))")
        }
        (reading, writing) = (ends[0], ends[1])
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
    }
}
