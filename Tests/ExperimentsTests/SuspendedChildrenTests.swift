import ExperimentKit
import Testing

@testable import Experiments

extension TimedRuns.ModernRuns {
    /// A child awaiting `Task.sleep` holds no thread: each word's row, as the run's JSON gives
    /// it, is suspended for the whole sleep, which lasts at least the 2 s asked for, times the
    /// scale, and no longer than the row.
    @Test func eachSleepingChildHoldsNoThreadWhileItSleeps() async throws {
        let run = try await TimedRuns.measured(concurrentPrinterQueueAsync)
        for word in PrinterQueue.words {
            let span = try #require(run.span(word), "\(word) has a row")
            let suspended = (span.suspensions ?? []).map { $0.upperBound - $0.lowerBound }.reduce(0, +)
            #expect(
                suspended >= PrinterQueue.sleepSeconds * Self.scale && suspended <= span.end - span.start,
                "\(word): suspended \(suspended) s of \(span.start)...\(span.end)")
            #expect(span.holdsThread)
        }
    }
}
