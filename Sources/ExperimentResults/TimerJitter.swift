import ExperimentKit
import Foundation

/// How late this machine wakes a sleeping thread, measured at the start of a run, so a reader of
/// a failed run can tell a busy machine from a wrong expectation.
package struct TimerJitter: Sendable, Equatable {
    /// Median lateness of a 1 ms sleep, in seconds.
    package var median: Double
    /// The worst lateness seen, in seconds.
    package var maximum: Double

    /// Sleeps 1 ms twenty times and measures how late each wake-up was.
    package static func measure(samples: Int = 20) -> TimerJitter {
        let clock = MonotonicClock()
        let lateness = (0..<samples).map { _ in
            let start = clock.now()
            Thread.sleep(forTimeInterval: 0.001)
            return max(0, clock.now() - start - 0.001)
        }.sorted()
        return TimerJitter(median: lateness[lateness.count / 2], maximum: lateness.last ?? 0)
    }

    /// `timer jitter 62 µs median, 180 µs max (20 × 1 ms sleeps)`.
    package var description: String {
        "timer jitter \(Format.shortDuration(median)) median, \(Format.shortDuration(maximum)) max (20 × 1 ms sleeps)"
    }
}
