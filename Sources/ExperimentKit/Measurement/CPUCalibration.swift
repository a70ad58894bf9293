import ExperimentModel
import Synchronization

/// Whether this process measures what an experiment's real CPU work (an image filter, a
/// benchmark) costs before planning it.
///
/// Only a child calibrates: it is about to run the work, it calibrates before its clock
/// starts, and it times the work again where it runs; the runner predicts once more from those
/// figures when it judges (`ExperimentResult.judging(_:of:prediction:applePrediction:)`). A
/// figure calibrated in the runner itself would be thrown away, and drawing and filtering
/// pictures there would make `list` take seconds. So outside a child — `list`, `describe`, the
/// runner's prediction before a run, a test that rehearses in-process — an operation declares
/// its CPU work as still to measure (`ModelledWork.cpuSeconds` nil), and the prediction
/// leaves it out and says so (`Prediction.leavesOutCPUWork`).
///
/// A process-wide switch rather than a parameter: the operations that declare CPU work are the
/// articles' own classes, read by a rehearsal that hands them nothing but their context.
///
/// A child does not calibrate before its clock what it is about to time anyway: work whose cost
/// the run measures where it runs (an image filter) is registered with ``afterTheRun(_:_:)``,
/// and calibrated after the run only if the run did not do it (a cancelled filter), so the
/// model still has a figure for it. Only a figure the runner needs before the run (a
/// benchmark's length, which sizes its watchdog) is calibrated before the clock.
public enum CPUCalibration {
    private static let state = Mutex<(timeScale: Double?, count: Int)>((nil, 0))
    private static let deferred = Mutex<[(label: String, measure: @Sendable () -> Double)]>([])

    /// Called once by a child, before it reads its plan: this process runs the experiment at
    /// `timeScale`, so it calibrates.
    public static func enable(timeScale: Double) {
        state.withLock { $0.timeScale = timeScale }
    }

    /// Whether this process calibrates CPU work (it is a child about to run it).
    public static var isEnabled: Bool {
        state.withLock { $0.timeScale != nil }
    }

    /// The time scale of the run this process calibrates for; nil when it runs none.
    public static var timeScale: Double? {
        state.withLock { $0.timeScale }
    }

    /// Calls `measure`, one calibration (or a request for a figure already calibrated), and
    /// counts it. Callers plan with its figure only when ``isEnabled``.
    public static func counting<Figure>(_ measure: () -> Figure) -> Figure {
        state.withLock { $0.count += 1 }
        return measure()
    }

    /// Registers the CPU work of the planned operation `label`, to be calibrated by `measure`
    /// after the run if the run does not time it (once per label).
    public static func afterTheRun(_ label: String, _ measure: @escaping @Sendable () -> Double) {
        deferred.withLock { work in
            if !work.contains(where: { $0.label == label }) { work.append((label, measure)) }
        }
    }

    /// Calibrates the registered work the run did not time (`timed` holds the labels it did).
    package static func afterTheRun(skipping timed: Set<String>) -> [CPUCost] {
        deferred.withLock { $0 }.filter { !timed.contains($0.label) }.map {
            CPUCost(label: $0.label, seconds: counting($0.measure), source: .calibrated)
        }
    }

    /// How many calibrations this process has asked for (tests check that predicting asks none).
    public static var count: Int {
        state.withLock { $0.count }
    }
}

extension CPUCost {
    /// What the plan's CPU work was calibrated to cost in this process, before the clock: the
    /// figure for work the run then never does (a cancelled filter).
    public static func calibrated(_ workload: Workload) -> [CPUCost] {
        workload.operations.compactMap { planned in
            guard let seconds = planned.cpuSeconds, seconds > 0 else { return nil }
            return CPUCost(label: planned.label, seconds: seconds, source: .calibrated)
        }
    }
}
