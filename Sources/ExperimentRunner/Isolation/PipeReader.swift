import ExperimentKit
import Foundation

/// Reads a run child's protocol channel (``ChildProcess/protocolDescriptor``) so the child never
/// blocks on a full pipe, and reads its lines as they come until its clock starts: the
/// ``ChildProcess/preparedLine``, and the
/// ``TimelineEvent/clockStarted(uptimeNanoseconds:poolSettleSeconds:)`` event, read as JSON like
/// every other event. The runner times the child's start by that line's arrival, so each line is
/// read the moment its chunk arrives; each byte is looked at once however the chunks split it.
/// After that line, the events carry their own moments and are needed only at the child's end:
/// they are gathered (``PipeDrain``), so the child's timed code wakes no thread here, in a pipe
/// widened to hold what a child writes meanwhile.
///
/// `@unchecked Sendable`: `collected` is written only by the reading thread, and read only after
/// waiting on the drain; `beforeClock` and `clockSeen` are written once by that thread before
/// `clockStarted` is signalled, and read only after waiting on it; `sawPrepared` likewise with
/// `prepared`.
final class PipeReader: @unchecked Sendable {
    private var collected = Data()
    private var drain: PipeDrain?
    /// Signalled once: when the child's clock-start line has arrived (or the output ended).
    let clockStarted = DispatchSemaphore(value: 0)
    /// When the clock-start line arrived; nil if it never did. Written before `clockStarted` is
    /// signalled, read after waiting on it.
    private(set) var clockSeen: DispatchTime?
    /// What the child wrote before its clock started: its calibration.
    private(set) var beforeClock = Data()
    /// Signalled once: when the child says ``ChildProcess/preparedLine`` (it waits for its go),
    /// or its output ends. `sawPrepared` says which; written before the signal, read after a wait.
    let prepared = DispatchSemaphore(value: 0)
    private(set) var sawPrepared = false
    private static let preparedLine = Data(ChildProcess.preparedLine.utf8).dropLast()

    /// The most a pipe is widened to without privileges (`/proc/sys/fs/pipe-max-size`'s default).
    static let pipeBytes: Int32 = 1 << 20
    /// `F_SETPIPE_SZ` of `<fcntl.h>`, which Swift does not import (a GNU extension).
    private static let setPipeSize: Int32 = 1031

    /// Reads `descriptor`, which it closes once read.
    init(_ descriptor: Int32) {
        // Where it cannot be widened, it keeps its 64 KiB: a child writing faster than that in
        // one pause waits for the next read.
        _ = fcntl(descriptor, Self.setPipeSize, Self.pipeBytes)
        let decoder = JSONDecoder()
        // Where the first line not yet read begins, and how far a newline was looked for; nil
        // once the clock's line was read.
        var unread: (line: Int, scanned: Int)? = (0, 0)
        drain = PipeDrain(
            descriptor,
            take: { [self] chunk, _ in
                collected.append(contentsOf: chunk)
                while let (from, scanned) = unread {
                    guard let newline = collected[scanned...].firstIndex(of: UInt8(ascii: "\n")) else {
                        unread = (from, collected.endIndex)
                        break
                    }
                    unread = read(collected[from..<newline], decoder: decoder) ? nil : (newline + 1, newline + 1)
                }
            },
            gathers: { unread == nil },
            finished: { [self] in
                if unread != nil {
                    beforeClock = collected
                    clockStarted.signal()
                }
                if !sawPrepared { prepared.signal() }
            })
    }

    /// Reads one line of the output before the clock started; true when it is the clock's start.
    private func read(_ line: Data, decoder: JSONDecoder) -> Bool {
        if !sawPrepared, line == Self.preparedLine {
            sawPrepared = true
            prepared.signal()
            return false
        }
        guard case .clockStarted? = try? decoder.decode(TimelineEvent.self, from: line) else { return false }
        clockSeen = .now()
        beforeClock = collected[..<line.startIndex]
        clockStarted.signal()
        return true
    }

    /// The child has exited: reads what is left, and ends.
    func stop() {
        drain?.stop()
    }

    /// Everything read, once the channel has ended or been stopped.
    func data() -> Data {
        drain?.wait()
        return collected
    }
}
