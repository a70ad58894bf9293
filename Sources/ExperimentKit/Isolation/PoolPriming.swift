import Foundation

/// Fixes the phase of the Linux pool monitor before an experiment's clock starts.
///
/// The monitor ticks once a second from the process's first use of the pool. A child that
/// enqueued its work at that very moment would race the first tick (PLATFORM-NOTES: 1 run in
/// 20 took a whole second less). Touching the pool first and waiting `settleSeconds` puts the
/// ticks at `1 - settleSeconds`, `2 - settleSeconds`, … after the clock's start, every time.
public enum PoolPriming {
    /// Real seconds between the first touch of the pool and the experiment's start.
    public static let settleSeconds = 0.03

    /// How many threads this process has (Linux: `/proc/self/task`; elsewhere 0, where no pool
    /// monitor has a phase to keep). A child compares it before and after its preparation: the
    /// pool's first touch starts threads (the workers, and the manager that runs the monitor).
    static func threadCount() -> Int {
        #if os(Linux)
        return (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
        #else
        return 0
        #endif
    }

    /// Touches the global pool, waits for the touch to run, then settles.
    public static func prime() {
        let touched = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { touched.signal() }
        touched.wait()
        Thread.sleep(forTimeInterval: settleSeconds)
    }
}
