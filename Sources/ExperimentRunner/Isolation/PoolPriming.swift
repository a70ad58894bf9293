import ExperimentKit
import ExperimentModel
import Foundation

/// Fixes the phase of the Linux pool monitor before an experiment's clock starts.
///
/// The monitor ticks once a second from the process's first use of the pool. A child that
/// enqueued its work at that very moment would race the first tick, and some runs would take a
/// whole second less (the model's article "Foundation and Dispatch on Linux"). Touching the pool first and waiting
/// `PlatformProfile.settleSeconds` puts the ticks at `1 - settleSeconds`, `2 - settleSeconds`, … after the
/// clock's start, every time.
///
/// A child may also be touched earlier than that, while the experiment before it ends (the
/// runner's `Runner.latestSettleSeconds(for:prediction:)`): it then waits less, or not at
/// all, and its clock starts later in the monitor's second. It reports the settle it measured
/// (`MeasuredRun.poolSettleSeconds`), and the model places the ticks from that.
package enum PoolPriming {
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

    /// Touches the global pool and returns once the touch has run: the monitor's first tick
    /// comes about then (libdispatch starts its timer when the first worker registers).
    package static func touch() -> DispatchTime {
        let touched = DispatchSemaphore(value: 0)
        DispatchQueue.global().async { touched.signal() }
        touched.wait()
        return .now()
    }

    /// Waits until `PlatformProfile.settleSeconds` after `touched` (at once if that has passed).
    package static func settle(since touched: DispatchTime) {
        let settled = touched + PlatformProfile.settleSeconds
        let now = DispatchTime.now()
        if now < settled {
            Thread.sleep(forTimeInterval: settled.seconds(since: now))
        }
    }
}
