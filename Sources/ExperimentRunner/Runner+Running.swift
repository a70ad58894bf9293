import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation

/// One experiment run and judged: its child started (ahead of its turn, or at once), primed, watched and judged.
extension Runner {
    /// Runs (or predicts) one experiment and judges it, against `predicted` when the caller
    /// has them already.
    package func result(of experiment: Experiment, predicted: Predictions? = nil) -> ExperimentResult {
        let predicted = predicted ?? predictions(experiment)
        let experiment = Self.endingAsPlanned(experiment, predicted: predicted)
        let ran = running(experiment, predicted: predicted, prepared: nil)
        defer { ran.child?.waitUntilEnded() }
        return judged(ran, of: experiment, predicted: predicted)
    }

    /// `experiment`, expected to hang when it is a learner's whose plan has an operation that
    /// never finishes (an asynchronous operation that never announces its finish): a learner's
    /// run waits for the work its code started, so it never ends. The watchdog then stops it
    /// soon after the predicted moment, and the hang is held to the prediction, as a declared one
    /// is. A learner's code declares no ending; its plan is its declaration. (An operation that
    /// never starts, on a queue left suspended, is not waited for.)
    static func endingAsPlanned(_ experiment: Experiment, predicted: Predictions) -> Experiment {
        guard experiment.isLearners, experiment.expectedEnding == .returns, predicted.planFailure == nil,
            predicted.chosen.workload.unmodelled.isEmpty,
            predicted.chosen.nominal.spans.contains(where: { $0?.end.isFinite == false })
        else { return experiment }
        return experiment.ending(.hangs)
    }

    /// One experiment's child, ended and not yet judged (nil report: nothing runs here).
    struct Ran {
        var report: ChildProcess.Report?
        /// When the runner turned to the experiment.
        var turned: DispatchTime
        /// The child that ran, whose lineage may still be being ended (``ChildProcess/Child/waitUntilEnded()``).
        var child: ChildProcess.Child?
    }

    /// Runs one experiment: in `prepared`, its child started beforehand and waiting for its go,
    /// or in a child started now. `judgePrevious` judges the experiment before: before the go
    /// when `prepared` was primed (its clock then starts at once), otherwise once the child has
    /// been told to go, while it touches the pool and settles. `whenClockStarted` is called once
    /// its clock has started (the runner may start the next child), and `nearItsEnd` that many
    /// seconds after, unless it ended before (the runner may prime the next child,
    /// ``primingSeconds(during:before:judging:)``). The go waits until whatever `previous` (the
    /// child that ran before) started has been ended.
    func running(
        _ experiment: Experiment, predicted: Predictions, prepared: ChildProcess.Child?,
        previous: ChildProcess.Child? = nil, judgePrevious: () -> Void = {}, whenClockStarted: () -> Void = {},
        nearItsEnd: (seconds: Double, prime: () -> Void)? = nil
    ) -> Ran {
        var turned = DispatchTime.now()
        guard runsExperiments, predicted.planFailure == nil else {
            judgePrevious()
            return Ran(report: nil, turned: turned)
        }
        let prediction = predicted.chosen
        // A child started ahead that ended instead of waiting (it declined, or failed) is started
        // again, to run at once: its ending is then judged as any other.
        var child = prepared
        if let waiting = child, !waiting.waitUntilPrepared() {
            waiting.abandon()
            child = nil
        }
        if let primed = child, let primedAt = primed.primedAt {
            judgePrevious()
            turned = .now()
            // The experiment before ended later than expected: a clock started now could meet a
            // tick of the pool monitor within the run. A child started now settles as usual.
            if turned.seconds(since: primedAt) + Self.goLatencySeconds
                > latestSettleSeconds(for: experiment, prediction: prediction)
            {
                primed.abandon()
                child = nil
            }
        }
        let running = child ?? start(experiment, predicted: predicted, ahead: false)
        previous?.waitUntilEnded()
        running.go()
        judgePrevious()
        // CPU work left to measure here is watched for what the child calibrated it to cost.
        let report = running.finish(
            watchdogSeconds: watchdogSeconds(for: experiment, prediction: prediction),
            countingFromFirstLine: experiment.expectedEnding == .hangs,
            recounting: prediction.leavesOutCPUWork
                ? { watchdogSeconds(for: experiment, prediction: prediction.counting($0)) } : nil,
            whenClockStarted: whenClockStarted,
            nearItsEndSeconds: nearItsEnd?.seconds,
            nearItsEnd: nearItsEnd?.prime ?? {}
        )
        return Ran(report: report, turned: turned, child: running)
    }

    /// When to prime the child of `next` (``primesAhead(_:)``) while `current` runs, in seconds
    /// from the running child's clock start: a settle before the earliest end the prediction
    /// of `current` allows (a declared hang ends at its watchdog), or later, if an end at its
    /// latest, then `judging` seconds to judge it, would leave `next` a settle longer than it
    /// may have; nil when `next` is not primed ahead, or `current` has CPU work.
    func primingSeconds(
        during current: (experiment: Experiment, predicted: Predictions),
        before next: (experiment: Experiment, predicted: Predictions),
        judging: Double
    ) -> Double? {
        // Not beside CPU work: the touch starts the next child's threads while its filters are timed.
        guard primesAhead(next), !current.predicted.chosen.leavesOutCPUWork else { return nil }
        let prediction = current.predicted.chosen
        let watchdog = watchdogSeconds(for: current.experiment, prediction: prediction)
        let ends = current.experiment.expectedEnding == .hangs ? watchdog...watchdog : prediction.totalRange
        let room =
            latestSettleSeconds(for: next.experiment, prediction: next.predicted.chosen) - Self.primingSlackSeconds
            - judging
        return max(ends.lowerBound - PlatformProfile.settleSeconds, ends.upperBound - room)
    }

    /// The longest settle (from the pool's first touch to the clock's start) the child of
    /// `experiment` may have when primed ahead. Any settle up to the one with which no tick of
    /// the pool monitor can fall inside the run (its first tick then comes after the latest end
    /// its verdict allows, the watchdog for a declared hang, with ``tickGuardSeconds`` to
    /// spare): the prediction made for the usual settle holds for it. For a run that a tick may
    /// reach, ``phaseLatitudeSeconds`` more than the usual settle: its ticks come that much
    /// earlier, and it is judged by a prediction made again from the settle it measured
    /// (``Prediction/remade(for:)``).
    func latestSettleSeconds(for experiment: Experiment, prediction: Prediction) -> Double {
        let latestEnd =
            experiment.expectedEnding == .hangs
            ? watchdogSeconds(for: experiment, prediction: prediction)
            : Tolerance.standard.widen(prediction.totalRange).upperBound
        let tickFree = PlatformProfile.monitorInterval - latestEnd - Self.tickGuardSeconds
        return max(tickFree, PlatformProfile.settleSeconds + Self.phaseLatitudeSeconds)
    }

    /// Room left between a run's latest end and the pool monitor's next tick.
    static let tickGuardSeconds = 0.02
    /// How much longer than ``PlatformProfile/settleSeconds`` a child primed ahead may settle when
    /// a tick may fall inside its run: its ticks come at most this much earlier, well inside the
    /// ``Scheduler/tieWindow`` within which the model follows a tick and a completion both ways.
    static let phaseLatitudeSeconds = 0.02
    /// What a go takes to reach a child and start its clock, allowed for on a loaded machine.
    static let goLatencySeconds = 0.005
    /// How much later than its prediction's latest total the experiment before may end without
    /// the child primed ahead having to start again (its judging is allowed for apart).
    static let primingSlackSeconds = 0.01

    /// Whether the child of `next`, started ahead, may also be primed ahead: told to touch the
    /// pool a settle before the experiment running beside it is expected to end, so that its
    /// clock starts at its go. On Linux (the phase is the pool monitor's), and with no CPU work
    /// left to measure: the length of such a run is known only once it ran.
    func primesAhead(_ next: (experiment: Experiment, predicted: Predictions)) -> Bool {
        profile.kind == .linux && !next.predicted.chosen.leavesOutCPUWork
    }

    /// Judges what `ran` reported (or gives the prediction alone when nothing ran, or the error
    /// when the experiment had no plan); a plan with constructs the model leaves out is judged
    /// `unmodelled` (``ExperimentResult/unmodelledIfSo()``).
    ///
    /// The result's `wallSeconds` counts from the runner turning to the experiment (the child's
    /// start, or the go of one started beforehand) to its judged result: what the experiment
    /// cost the run, its preparation beside another experiment not included.
    func judged(_ ran: Ran, of experiment: Experiment, predicted: Predictions) -> ExperimentResult {
        let (prediction, apple) = (predicted.chosen, predicted.apple)
        if let failure = predicted.planFailure {
            return ExperimentResult(
                experiment: experiment, prediction: prediction, applePrediction: apple, measurement: nil,
                verdict: .error, reason: failure.reason, checks: [])
        }
        guard let report = ran.report else {
            return ExperimentResult(
                experiment: experiment, prediction: prediction, applePrediction: apple, measurement: nil,
                verdict: .predicted, reason: nil, checks: []
            ).unmodelledIfSo()
        }
        var result = ExperimentResult.judging(report, of: experiment, prediction: prediction, applePrediction: apple)
            .unmodelledIfSo()
        result.wallSeconds = DispatchTime.now().seconds(since: ran.turned)
        return result
    }

    /// Starts the child of `experiment`, sending it the plan `predicted` were made from; `ahead`
    /// of its turn, it prepares, then waits for its go.
    func start(_ experiment: Experiment, predicted: Predictions, ahead: Bool) -> ChildProcess.Child {
        let request = ChildProcess.Request(
            experiment: experiment.name, timeScale: conditions.timeScale, imagesDirectory: imagesDirectory?.path,
            cpus: cpus,
            parameters: parameters(experiment)
        )
        return ChildProcess.Child.start(
            executable: executable, request: request, plan: predicted.chosen.workload, ahead: ahead)
    }

    /// Whether the child of `next` may start, and prepare, while `running` runs (once the
    /// running child's clock has started). Not beside CPU work: an experiment's filters are
    /// timed where they run, and a neighbour's preparation would slow them. Not for an untimed
    /// experiment either: it is a benchmark, and its preparation runs its own work to size its
    /// watchdog (task-overhead's estimate runs Tasks), which takes the CPUs from the experiment
    /// running and touches the pool before the go. Nor for one without a plan: it has no child.
    /// Any other child's preparation (start, registry, taking its plan, drawing its pictures)
    /// leaves the pool alone and mostly waits.
    static func prepares(_ next: (Experiment, Predictions), beside running: Predictions) -> Bool {
        !running.chosen.leavesOutCPUWork && preparesAhead(next)
    }

    /// Whether the child of `next` may start, and prepare, before its turn: a timed experiment
    /// with a plan (``prepares(_:beside:)`` says why not the others).
    static func preparesAhead(_ next: (Experiment, Predictions)) -> Bool {
        next.0.timing == .predicted && next.1.planFailure == nil
    }
}
