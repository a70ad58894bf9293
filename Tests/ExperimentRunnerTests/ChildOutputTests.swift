import Foundation
import TestSupport
import Testing

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
        output.write(
            Data("not an event\n".utf8) + (try Self.line(cost))
                + Data(#"say {"clockStarted":{"uptimeNanoseconds":1}}"#.utf8) + Data("\n".utf8))
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

    /// Every kind of event, with the texts and numbers JSON has to take care over.
    static let events: [TimelineEvent] = {
        let stack = CallSite.Stack(image: "/tmp/run-experiments", addresses: [0x1234, UInt64.max, 0])
        let awkward = [
            "", "Каждый 🍎", "say \"hi\" \\ back", "two\nlines\r\ttabbed", "bell \u{7} and \u{1F}", "\u{2028}separated",
            "-------💧☂️",
        ]
        let value = JSONValue.object([
            Outcome.Field("sums", .array([.number(3), .number(7.5), .number(-1e-7), .number(1e300)])),
            Outcome.Field("order", .strings(awkward)),
            Outcome.Field("flags", .array([.bool(true), .bool(false), .null])),
            Outcome.Field("empty", .object([])),
        ])
        return [
            .clockStarted(uptimeNanoseconds: UInt64.max),
            .clockStarted(uptimeNanoseconds: 123_456_789, poolSettleSeconds: 0.030086),
            .enqueued(seconds: 0.001191),
            .finished(totalSeconds: 4.006751),
            .cpuCost(CPUCost(label: "filter", seconds: 0.01, source: .measured)),
            .cpuCost(CPUCost(label: "sepia \"fast\"", seconds: 2.5e-05, source: .calibrated)),
            .modelOutOfDate("'a' slept 2 s, the plan says 1 s"),
            .outcome(Outcome.Field("result", value)),
            .outcome(Outcome.Field("nothing", .null)),
            .ended(
                OperationSpan(
                    label: "with a line", start: 0, end: 1, thread: 1, line: SourceLine(path: "Probe.swift", line: 3))),
        ]
            + awkward.enumerated().flatMap { offset, text -> [TimelineEvent] in
                let at = Double(offset) * 0.1 + 0.000_001
                return [
                    .began(label: text, at: at, thread: offset),
                    .ended(
                        OperationSpan(
                            label: text, start: at, end: at * 3, thread: offset, cancelled: offset % 2 == 0,
                            finished: offset % 3 != 0)),
                    .printed(
                        PrintedLine(at: at, text: text, thread: offset, calledFrom: offset % 2 == 0 ? stack : nil)),
                    .slept(
                        MeasuredSleep(
                            at: at, seconds: 0.5 + at, thread: offset, calledFrom: offset % 2 == 1 ? stack : nil)),
                ]
            }
    }()

    @Test func eachEventGoesAsOneLineTheRunnerReadsBack() throws {
        let encoder = JSONEncoder()
        for event in Self.events {
            let line = try #require(event.jsonLine(encoder: encoder))
            #expect(!line.contains(UInt8(ascii: "\n")))
            #expect(try JSONDecoder().decode(TimelineEvent.self, from: Data(line)) == event)
            // The same JSON as the encoder writes, whichever of the two wrote it.
            let written = try JSONSerialization.jsonObject(with: Data(line)) as? NSDictionary
            let encoded = try JSONSerialization.jsonObject(with: encoder.encode(event)) as? NSDictionary
            #expect(written != nil && written == encoded, "\(String(decoding: line, as: UTF8.self))")
        }
        // A number JSON cannot hold is no line (the encoder refuses it too).
        #expect(TimelineEvent.began(label: "a", at: .infinity, thread: 0).jsonLine(encoder: encoder) == nil)
        #expect(TimelineEvent.outcome(Outcome.Field("n", .number(.nan))).jsonLine(encoder: encoder) == nil)
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
                let count = data[offset..<min(offset + chunk, data.count)].withUnsafeBytes {
                    write(writing, $0.baseAddress, $0.count)
                }
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
        let bar =
            Array(repeating: Array("\r[#####     ] 50%".utf8), count: 4_500_000 / 17).joined()
            + Array("\nProbe.swift:3: Fatal error: the end\n".utf8)
        let started = DispatchTime.now()
        let tail = StandardErrorTail(Self.written(Array(bar)).reading)
        let (text, leftOut) = tail.read()
        let seconds = DispatchTime.now().seconds(since: started)
        // Linear: a few tens of milliseconds on a loaded 2-core machine; quadratic took minutes.
        #expect(seconds < 3, "\(seconds) s")
        #expect(
            text.hasSuffix("Probe.swift:3: Fatal error: the end\n") && text.utf8.count == StandardErrorTail.keptBytes)
        #expect(leftOut + text.utf8.count == bar.count)
        // The trap's line is the reason, whatever came before it.
        #expect(
            ChildProcess.Report.diagnosticLine(in: text, leftOutBefore: leftOut)
                == "Probe.swift:3: Fatal error: the end")
    }

    /// A reason quotes at most the last 2,000 bytes of a line, and says how many it left out,
    /// counting those of the line that came before what stderr's tail kept.
    @Test func aHundredKilobyteLineIsNotAHundredKilobyteReason() throws {
        let line = String(repeating: "x", count: 100_000) + "the end"
        let kept = String(line.suffix(StandardErrorTail.keptBytes))
        let reason = try #require(
            ChildProcess.Report.diagnosticLine(in: kept + "\n", leftOutBefore: line.utf8.count - kept.utf8.count))
        #expect(
            reason == "… 98007 bytes left out … " + line.suffix(ChildProcess.Report.diagnosticBytes),
            "\(reason.prefix(60))")
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
