import Synchronization

/// Whether this process measures what an experiment's real CPU work (an image filter, a
/// benchmark) costs before planning it.
///
/// Only a child calibrates: it is about to run the work, it calibrates before its clock
/// starts, and it times the work again where it runs; the runner predicts once more from those
/// figures when it judges (``ExperimentResult/judging(_:of:prediction:applePrediction:)``). A
/// figure calibrated in the runner itself would be thrown away, and drawing and filtering
/// pictures there made `list` take seconds. So outside a child — `list`, `describe`, the
/// runner's prediction before a run, a test that rehearses in-process — an operation declares
/// its CPU work as still to measure (``ModelledWork/cpuSeconds`` nil), and the prediction
/// leaves it out and says so (``Prediction/leavesOutCPUWork``).
///
/// A process-wide switch rather than a parameter: the operations that declare CPU work are the
/// articles' own classes, read by a rehearsal that hands them nothing but their context.
public enum CPUCalibration {
    private static let state = Mutex<(timeScale: Double?, count: Int)>((nil, 0))

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

    /// Calls `measure`, one calibration, and counts it. Callers plan with its figure only
    /// when ``isEnabled``.
    public static func counting<Figure>(_ measure: () -> Figure) -> Figure {
        state.withLock { $0.count += 1 }
        return measure()
    }

    /// How many calibrations this process has made (tests check that predicting makes none).
    public static var count: Int {
        state.withLock { $0.count }
    }
}

extension CPUCost {
    /// What the plan's CPU work was calibrated to cost in this process, before the clock: the
    /// figure for work the run then never does (a cancelled filter).
    public static func calibrated(_ workload: Workload) -> [CPUCost] {
        workload.operations.filter { $0.cpuSeconds > 0 }.map { CPUCost(label: $0.label, seconds: $0.cpuSeconds, source: .calibrated) }
    }
}
