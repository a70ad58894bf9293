import ExperimentKit
import ExperimentModel

extension Prediction {
    /// The prediction made again for what the run measured: its CPU work's costs
    /// (``counting(_:)``) and, on Linux, the pool monitor's phase it ran at: the first tick
    /// placed from the settle it measured (``MeasuredRun/poolSettleSeconds``), when that moves
    /// it by more than ``phaseToleranceSeconds``. Unchanged when neither applies.
    package func remade(for run: MeasuredRun) -> Prediction {
        guard profile.kind == .linux, let settle = run.poolSettleSeconds else { return counting(run.cpuCosts) }
        let firstTick = PlatformProfile.firstTick(afterSettling: settle)
        return remade(
            costs: run.cpuCosts,
            firstTickSeconds: abs(firstTick - profile.firstTickSeconds) > Self.phaseToleranceSeconds
                ? firstTick : profile.firstTickSeconds)
    }

    /// How far the measured first tick may lie from the predicted one without predicting again:
    /// a sleep's usual overshoot, far inside ``Scheduler/tieWindow`` (where the model follows a
    /// tick and a completion in both orders).
    package static let phaseToleranceSeconds = 0.001
}
