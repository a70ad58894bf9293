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

    /// Seconds elapsed since the clock was created.
    public func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - origin.uptimeNanoseconds) / 1e9
    }
}
