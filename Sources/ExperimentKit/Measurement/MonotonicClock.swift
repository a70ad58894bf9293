import Dispatch

/// Seconds since a fixed start, read from the monotonic clock (never wall-clock `Date`, which can jump).
public struct MonotonicClock: Sendable {
    private let origin: DispatchTime

    /// A clock whose zero is now.
    public init() {
        origin = DispatchTime.now()
    }

    /// The clock's zero, as a reading of the system-wide monotonic clock (the same in every process).
    public var originUptimeNanoseconds: UInt64 {
        origin.uptimeNanoseconds
    }

    /// Seconds from `earlier` (not later than the clock's zero) to the clock's zero.
    func secondsToStart(from earlier: DispatchTime) -> Double {
        origin.seconds(since: earlier)
    }

    /// Seconds elapsed since the clock was created.
    public func now() -> Double {
        DispatchTime.now().seconds(since: origin)
    }
}

extension DispatchTime {
    /// Seconds from `earlier` to this instant (`earlier` must not be later).
    public func seconds(since earlier: DispatchTime) -> Double {
        Double(uptimeNanoseconds - earlier.uptimeNanoseconds) / 1e9
    }
}
