import Foundation
import Testing
@testable import ExperimentKit
@testable import ExperimentRunner

/// A child's stdout read line by line as it comes: the clock's start is the line that decodes as
/// the clock-start event, whatever comes before it and however the pipe splits it.
@Suite struct ChildOutputTests {
    static func line(_ event: TimelineEvent) throws -> Data {
        try JSONEncoder().encode(event) + Data("\n".utf8)
    }

    static func waits(_ semaphore: DispatchSemaphore) -> Bool {
        semaphore.wait(timeout: .now() + 0.2) == .timedOut
    }

    @Test func theClockStartsAtTheLineThatIsItsEvent() throws {
        let pipe = Pipe()
        let reader = PipeReader(pipe.fileHandleForReading)
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
        let reader = PipeReader(pipe.fileHandleForReading)
        pipe.fileHandleForWriting.write(Data("noise\n".utf8))
        #expect(Self.waits(reader.prepared))
        pipe.fileHandleForWriting.write(Data(ChildProcess.preparedLine.utf8))
        #expect(reader.prepared.wait(timeout: .now() + 5) == .success && reader.sawPrepared)
        try pipe.fileHandleForWriting.close()
        // An output that ends without the clock's line starts no clock: all of it came before.
        #expect(reader.clockStarted.wait(timeout: .now() + 5) == .success && reader.clockSeen == nil)
        #expect(reader.beforeClock == Data("noise\nprepared\n".utf8))
    }
}
