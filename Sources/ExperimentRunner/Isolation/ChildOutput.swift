import ExperimentKit
import Foundation
import Synchronization

/// What a run child's code wrote to its stdout around the instrumented `print` (`Swift.print`,
/// `dump`, a `FileHandle`'s write): the learner's own output, never read as anything else. Each
/// line is kept with the moment it arrived, the first ``keptLines`` of them, each cut to
/// ``keptLineBytes``; the rest are counted, so any amount of output costs the runner a bounded
/// memory and one look at each byte.
///
/// `@unchecked Sendable`: `lines`, `partial` and the counts are written only by the reading
/// thread, and read only after waiting on the drain.
final class StandardOutputLines: @unchecked Sendable {
    /// One line as it arrived.
    struct Line {
        var text: String
        var arrived: DispatchTime
    }

    static let keptLines = 500
    static let keptLineBytes = 2_000

    private var lines: [Line] = []
    /// The line being written, its first ``keptLineBytes`` bytes, and how many more it has.
    private var partial: [UInt8] = []
    private var partialLeftOut = 0
    private var linesLeftOut = 0
    private var lastLeftOut: DispatchTime?
    private var drain: PipeDrain?

    /// Reads `descriptor`, which it closes once read.
    init(_ descriptor: Int32) {
        drain = PipeDrain(
            descriptor,
            take: { [self] chunk, arrived in
                var start = chunk.startIndex
                while let newline = chunk[start...].firstIndex(of: UInt8(ascii: "\n")) {
                    add(chunk[start..<newline])
                    endLine(at: arrived)
                    start = newline + 1
                }
                add(chunk[start...])
            },
            finished: { [self] in
                if !partial.isEmpty || partialLeftOut > 0 { endLine(at: .now()) }
            })
    }

    private func add(_ bytes: ArraySlice<UInt8>) {
        let room = max(0, Self.keptLineBytes - partial.count)
        partial += bytes.prefix(room)
        partialLeftOut += max(0, bytes.count - room)
    }

    private func endLine(at arrived: DispatchTime) {
        if lines.count < Self.keptLines {
            let cut = partialLeftOut > 0 ? " … \(Format.count(partialLeftOut, "more byte")) left out" : ""
            lines.append(Line(text: String(decoding: partial, as: UTF8.self) + cut, arrived: arrived))
        } else {
            linesLeftOut += 1
            lastLeftOut = arrived
        }
        partial = []
        partialLeftOut = 0
    }

    /// The child has exited: reads what is left, and ends.
    func stop() {
        drain?.stop()
    }

    /// The lines as printed lines, each at the run's seconds at its arrival (`experimentSeconds`;
    /// none where the run's clock is not known), on ``PrintedLine/standardOutputThread``; a last
    /// one says how many were left out.
    func printed(experimentSeconds: (DispatchTime) -> Double?) -> [PrintedLine] {
        drain?.wait()
        let thread = PrintedLine.standardOutputThread
        var printed = lines.compactMap { line in
            experimentSeconds(line.arrived).map { PrintedLine(at: $0, text: line.text, thread: thread) }
        }
        if linesLeftOut > 0, let last = lastLeftOut.flatMap(experimentSeconds) {
            printed.append(
                PrintedLine(
                    at: last, text: "… \(Format.count(linesLeftOut, "more line")) written to standard output left out",
                    thread: thread))
        }
        return printed
    }
}

/// What a child wrote to its stderr: its last ``keptBytes``, where a trap's message is. Read in linear time however it is written (a progress bar of
/// megabytes redrawn with `\r` and no newline), so the child never blocks on a full pipe.
///
/// `@unchecked Sendable`: `tail` and `leftOut` are written only by the reading thread, and read
/// only after waiting on the drain.
final class StandardErrorTail: @unchecked Sendable {
    static let keptBytes = 65536

    private var tail: [UInt8] = []
    private var leftOut = 0
    private var drain: PipeDrain?

    /// Reads `descriptor`, which it closes once read.
    init(_ descriptor: Int32) {
        drain = PipeDrain(
            descriptor,
            take: { [self] chunk, _ in
                tail += chunk
                // Trimmed once it is twice the size kept: each byte is moved at most once.
                if tail.count > 2 * Self.keptBytes {
                    let excess = tail.count - Self.keptBytes
                    tail.removeFirst(excess)
                    leftOut += excess
                }
            })
    }

    /// The child has exited: reads what is left, and ends.
    func stop() {
        drain?.stop()
    }

    /// The text kept, once read to its end (or stopped), and how many bytes came before it.
    func read() -> (text: String, leftOut: Int) {
        drain?.wait()
        let excess = max(0, tail.count - Self.keptBytes)
        return (String(decoding: tail.dropFirst(excess), as: UTF8.self), leftOut + excess)
    }
}
