import Foundation
import Testing
import TestSupport
@testable import ExperimentKit
@testable import ExperimentRunner

/// A child's protocol channel read line by line as it comes: the clock's start is the line that
/// decodes as the clock-start event, whatever comes before it and however the pipe splits it. Its
/// stdout and stderr, its code's own output, read in bounded memory and linear time.
@Suite(.serialized, .oneAtATime) struct ChildOutputTests {
    static func line(_ event: TimelineEvent) throws -> Data {
        try JSONEncoder().encode(event) + Data("\n".utf8)
    }

    static func waits(_ semaphore: DispatchSemaphore) -> Bool {
        semaphore.wait(timeout: .now() + 0.2) == .timedOut
    }

    @Test func theClockStartsAtTheLineThatIsItsEvent() throws {
        let pipe = Pipe()
        let reader = PipeReader(dup(pipe.fileHandleForReading.fileDescriptor))
        let output = pipe.fileHandleForWriting
        let cost = TimelineEvent.cpuCost(CPUCost(label: "filter", seconds: 0.01, source: .calibrated))
        // Junk, an event, and a line that holds the event's key without being the event.
        output.write(Data("not an event\n".utf8) + (try Self.line(cost)) + Data(#"say {"clockStarted":{"uptimeNanoseconds":1}}"#.utf8) + Data("\n".utf8))
        #expect(Self.waits(reader.clockStarted))
        // The event's line, split across two writes: it counts once it is whole.
        let clock = try Self.line(.clockStarted(uptimeNanoseconds: 42, poolSettleSeconds: 0.03))
        output.write(clock.prefix(10))
        #expect(Self.waits(reader.clockStarted))
        output.write(clock.dropFirst(10) + (try Self.line(.finished(totalSeconds: 1))))
        #expect(reader.clockStarted.wait(timeout: .now() + 5) == .success)
        #expect(reader.clockSeen != nil)
        #expect(ChildProcess.events(in: reader.beforeClock) == [cost])
        try output.close()
        #expect(ChildProcess.events(in: reader.data()).count == 3)
        #expect(reader.prepared.wait(timeout: .now() + 5) == .success && !reader.sawPrepared)
    }

    @Test func aChildStartedAheadSaysItHasPrepared() throws {
        let pipe = Pipe()
        let reader = PipeReader(dup(pipe.fileHandleForReading.fileDescriptor))
        pipe.fileHandleForWriting.write(Data("noise\n".utf8))
        #expect(Self.waits(reader.prepared))
        pipe.fileHandleForWriting.write(Data(ChildProcess.preparedLine.utf8))
        #expect(reader.prepared.wait(timeout: .now() + 5) == .success && reader.sawPrepared)
        try pipe.fileHandleForWriting.close()
        // An output that ends without the clock's line starts no clock: all of it came before.
        #expect(reader.clockStarted.wait(timeout: .now() + 5) == .success && reader.clockSeen == nil)
        #expect(reader.beforeClock == Data("noise\nprepared\n".utf8))
    }

    /// Writes `data` to a new pipe from a thread of its own, and returns the reading end: the
    /// writer blocks while the pipe is full, as a child does, unless the reader keeps up.
    static func written(_ data: [UInt8], chunk: Int = 4096, closing: Bool = true) -> (reading: Int32, writing: Int32) {
        var ends: [Int32] = [0, 0]
        pipe(&ends)
        let writing = ends[1]
        Thread.detachNewThread {
            var offset = 0
            while offset < data.count {
                let count = data[offset..<min(offset + chunk, data.count)].withUnsafeBytes { write(writing, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                offset += count
            }
            if closing { close(writing) }
        }
        return (ends[0], writing)
    }

    /// A progress bar of 4.5 MB redrawn with `\r` and no newline, then a last line: read to its
    /// end in well under the watchdog's seconds, and only its tail kept.
    @Test func aProgressBarOfMegabytesIsReadInLinearTime() {
        let bar = Array(repeating: Array("\r[#####     ] 50%".utf8), count: 4_500_000 / 17).joined() + Array("\nProbe.swift:3: Fatal error: the end\n".utf8)
        let started = DispatchTime.now()
        let tail = StandardErrorTail(Self.written(Array(bar)).reading)
        let (text, leftOut) = tail.read()
        let seconds = DispatchTime.now().seconds(since: started)
        // Linear: a few tens of milliseconds on a loaded 2-core machine; quadratic took minutes.
        #expect(seconds < 3, "\(seconds) s")
        #expect(text.hasSuffix("Probe.swift:3: Fatal error: the end\n") && text.utf8.count == StandardErrorTail.keptBytes)
        #expect(leftOut + text.utf8.count == bar.count)
        // The trap's line is the reason, whatever came before it.
        #expect(ChildProcess.Report.diagnosticLine(in: text, leftOutBefore: leftOut) == "Probe.swift:3: Fatal error: the end")
    }

    /// A reason quotes at most the last 2,000 bytes of a line, and says how many it left out,
    /// counting those of the line that came before what stderr's tail kept.
    @Test func aHundredKilobyteLineIsNotAHundredKilobyteReason() throws {
        let line = String(repeating: "x", count: 100_000) + "the end"
        let kept = String(line.suffix(StandardErrorTail.keptBytes))
        let reason = try #require(ChildProcess.Report.diagnosticLine(in: kept + "\n", leftOutBefore: line.utf8.count - kept.utf8.count))
        #expect(reason == "… 98007 bytes left out … " + line.suffix(ChildProcess.Report.diagnosticBytes), "\(reason.prefix(60))")
        // Only the first line kept continues what was left out.
        #expect(ChildProcess.Report.diagnosticLine(in: "\nshort\n", leftOutBefore: 500) == "short")
        // A cut falls between characters, never inside one.
        let wide = try #require(ChildProcess.Report.diagnosticLine(in: String(repeating: "é", count: 1_500)))
        #expect(wide == "… 1000 bytes left out … " + String(repeating: "é", count: 1_000))
    }

    /// Lines written to stdout are kept with their arrival, up to a bound: the rest are counted
    /// in one last line, and a line of megabytes is cut.
    @Test func stdoutIsKeptToABound() {
        let lines = (1...600).map { "line \($0)\n" }.joined() + String(repeating: "y", count: 3_000_000)
        let output = StandardOutputLines(Self.written(Array(lines.utf8)).reading)
        let printed = output.printed { _ in 0.5 }
        #expect(printed.count == StandardOutputLines.keptLines + 1)
        #expect(printed.first?.text == "line 1" && printed.first?.thread == PrintedLine.standardOutputThread)
        #expect(printed[StandardOutputLines.keptLines - 1].text == "line \(StandardOutputLines.keptLines)")
        #expect(printed.last?.text == "… 101 more lines written to standard output left out")
        #expect(printed.allSatisfy { $0.text.utf8.count < 2 * StandardOutputLines.keptLineBytes })
    }

    /// A pipe still held open by a writer (a process the child started) ends its reading once
    /// the runner stops it: what was written is read, and nothing waits for an end.
    @Test func aStoppedPipeEndsThoughAWriterHoldsIt() {
        let (reading, writing) = Self.written(Array("before the stop\n".utf8), closing: false)
        defer { close(writing) }
        let output = StandardOutputLines(reading)
        pause(0.1)
        let started = DispatchTime.now()
        output.stop()
        let printed = output.printed { _ in 0 }
        #expect(DispatchTime.now().seconds(since: started) < 1)
        #expect(printed.map(\.text) == ["before the stop"])
    }
}
