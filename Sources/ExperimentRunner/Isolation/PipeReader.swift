import Foundation
import ExperimentModel
import ExperimentKit

/// Drains a pipe on its own thread so a child never blocks on a full pipe, and reads the lines of
/// a child's stdout as they come until its clock starts: the ``ChildProcess/preparedLine``, and the
/// ``TimelineEvent/clockStarted(uptimeNanoseconds:poolSettleSeconds:)`` event, read as JSON like
/// every other event. The runner times the child's start by that line's arrival, so each line is
/// read the moment its chunk arrives. (A child's stderr holds neither line: its reader drains it.)
///
/// `@unchecked Sendable`: `collected` is written only by the reading thread, and read only after
/// waiting on `done`; `beforeClock` and `clockSeen` are written once by that thread before
/// `clockStarted` is signalled, and read only after waiting on it; `sawPrepared` likewise with
/// `prepared`.
final class PipeReader: @unchecked Sendable {
    private var collected = Data()
    private let done = DispatchSemaphore(value: 0)
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

    init(_ handle: FileHandle) {
        Thread.detachNewThread { [self] in
            let decoder = JSONDecoder()
            // Where the first line not yet read begins; nil once the clock's line was read.
            var unread: Int? = 0
            while case let chunk = handle.availableData, !chunk.isEmpty {
                collected.append(chunk)
                while let from = unread, let newline = collected[from...].firstIndex(of: UInt8(ascii: "\n")) {
                    unread = read(collected[from..<newline], decoder: decoder) ? nil : newline + 1
                }
            }
            if unread != nil {
                beforeClock = collected
                clockStarted.signal()
            }
            if !sawPrepared { prepared.signal() }
            done.signal()
        }
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

    func data() -> Data {
        done.wait()
        done.signal()
        return collected
    }

    func text() -> String {
        String(decoding: data(), as: UTF8.self)
    }
}
