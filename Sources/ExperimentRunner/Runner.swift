import Foundation
import ExperimentModel
import ExperimentKit
import ExperimentResults

/// Runs selected experiments, each in its own child process, and judges them against the model.
package struct Runner: Sendable {
    /// The executable started as the child (this program itself).
    package var executable: URL
    /// The machine, the time scale and the profile's kind: what every format's host line states.
    package var conditions: RunConditions
    /// The profile the model predicts for, with its CPUs.
    package var profile: PlatformProfile
    /// Where image experiments write their PNGs; nil writes none.
    package var imagesDirectory: URL?
    /// The `--set` values, parsed: what each experiment runs with.
    package var settings: ParameterSettings
    /// `--cpus N`: the children are pinned to N CPUs and the model predicts for N.
    package var cpus: Int?
    /// Where the experiments' plans are read: the command reads them in a child
    /// (``PlanSource/child(_:)``), so no experiment's code runs in the runner; tests, in process.
    package var plans: PlanSource

    package init(
        executable: URL, timeScale: Double, profile: PlatformProfile.Kind, host: HostMachine = .current,
        imagesDirectory: URL? = nil, settings: ParameterSettings = .none, cpus: Int? = nil, plans: PlanSource = .inProcess
    ) {
        self.executable = executable
        self.conditions = RunConditions(host: host, timeScale: timeScale, profile: profile)
        self.profile = PlatformProfile(kind: profile, cpus: cpus ?? host.cpus)
        self.imagesDirectory = imagesDirectory
        self.settings = settings
        self.cpus = cpus
        self.plans = plans
    }

    /// Whether experiments actually run: the chosen profile is this machine's, and it has the
    /// CPUs asked for. Otherwise only the model speaks.
    package var runsExperiments: Bool {
        RunConditions.whyNothingRuns(profile: profile, hostCPUs: conditions.host.cpus) == nil
    }

    /// The values `experiment` runs with: the article's, with the `--set` values it declares;
    /// what its plan child and its run child are sent.
    package func parameters(_ experiment: Experiment) -> Parameters {
        settings.parameters(of: experiment)
    }

    /// Reads the plans of `experiments` with ``plans`` in one go (one child for them all),
    /// handing each result with its experiment's index to `each` as soon as it is read.
    package func readPlans(of experiments: [Experiment], each: (Int, Result<Workload, PlanFailure>) -> Void) {
        plans.readEach(experiments.map { ($0, parameters($0)) }) { index, plan in
            // Whatever a source hands over, only a result of one of these reaches `each`, whose
            // callers index the experiments with it.
            guard experiments.indices.contains(index) else { return }
            each(index, plan)
        }
    }

    /// The model's prediction of `plan`, the plan of `experiment`, on the chosen profile.
    package func prediction(of plan: Workload, for experiment: Experiment) -> Prediction {
        predict(plan, parameters(experiment), on: profile)
    }

    /// The model's prediction of `experiment` on the chosen profile (its plan read alone).
    package func prediction(_ experiment: Experiment) -> Prediction {
        predictions(experiment).chosen
    }

    /// The model's predictions of `experiment` (its plan read alone): ``predictions(_:)-([Experiment])``.
    package func predictions(_ experiment: Experiment) -> Predictions {
        predictions([experiment])[0]
    }

    /// The model's predictions of each of `experiments`, on the chosen profile and on Apple
    /// platforms (where the articles measured), from one reading of its plan; the plans are
    /// read in one go. A run computes these once per experiment and hands them to
    /// ``result(of:predicted:)``.
    package func predictions(_ experiments: [Experiment]) -> [Predictions] {
        var predicted: [Predictions] = []
        readPlans(of: experiments) { index, plan in
            let experiment = experiments[index]
            let values = parameters(experiment)
            // With no plan there is nothing to predict: the empty plan's predictions stand in
            // for the result's, whose verdict is the error.
            var (workload, failure) = (Workload(), PlanFailure?.none)
            switch plan {
            case .success(let read): workload = read
            case .failure(let why): failure = why
            }
            let chosen = predict(workload, values, on: profile)
            let apple = PlatformProfile(kind: .apple, cpus: profile.cpus)
            predicted.append(Predictions(chosen: chosen, apple: profile == apple ? chosen : predict(workload, values, on: apple), planFailure: failure))
        }
        return predicted
    }

    private func predict(_ workload: Workload, _ values: Parameters, on profile: PlatformProfile) -> Prediction {
        var prediction = Scheduler.predict(workload, profile: profile, timeScale: conditions.timeScale)
        prediction.parameters = values
        return prediction
    }

    /// An experiment's two predictions.
    package struct Predictions: Sendable {
        /// On the chosen profile.
        package var chosen: Prediction
        /// On Apple platforms.
        package var apple: Prediction
        /// Why the experiment has no plan (its rehearsal trapped, or did not return); nil when
        /// it has one. It then does not run, and its verdict is `error`.
        package var planFailure: PlanFailure?
    }

    /// The watchdog for one child, from the prediction's upper bound. For a declared hang,
    /// counted from the child's first line (the experiment about to start, so process start
    /// costs nothing here): the predicted moment, half again on top (it follows the time
    /// scale), plus `hangMarginSeconds` for a late wake-up on a loaded machine. For anything
    /// else, counted from the launch: half again on top, plus ten seconds for starting a
    /// process on a busy machine.
    package func watchdogSeconds(for experiment: Experiment, prediction: Prediction) -> Double {
        let upper = Tolerance.standard.widen(prediction.totalRange).upperBound
        return experiment.expectedEnding == .hangs ? upper * 1.5 + Self.hangMarginSeconds : upper * 1.5 + 10
    }

    /// The fixed part of a declared hang's margin (the half again on top of the predicted
    /// moment is the part that follows the time scale): ten times the few milliseconds a timed
    /// wake-up is late on a loaded 2-core machine (the host line's timer jitter). Enough that
    /// what ends before the hang has ended when the watchdog stops it, even on a loaded machine;
    /// small, as `all` waits it out at every declared hang (<doc:Reliability> gives the measurements).
    static let hangMarginSeconds = 0.05

    /// Runs (or predicts) one experiment and judges it, against `predicted` when the caller
    /// has them already.
    package func result(of experiment: Experiment, predicted: Predictions? = nil) -> ExperimentResult {
        let predicted = predicted ?? predictions(experiment)
        return judged(running(experiment, predicted: predicted, prepared: nil), of: experiment, predicted: predicted)
    }

    /// One experiment's child, ended and not yet judged (nil report: nothing runs here).
    struct Ran {
        var report: ChildProcess.Report?
        /// When the runner turned to the experiment.
        var turned: DispatchTime
    }

    /// Runs one experiment: in `prepared`, its child started beforehand and waiting for its go,
    /// or in a child started now. `judgePrevious` judges the experiment before: before the go
    /// when `prepared` was primed (its clock then starts at once), otherwise once the child has
    /// been told to go, while it touches the pool and settles. `whenClockStarted` is called once
    /// its clock has started (the runner may start the next child), and `nearItsEnd` that many
    /// seconds after, unless it ended before (the runner may prime the next child,
    /// ``primingSeconds(during:before:judging:)``).
    func running(
        _ experiment: Experiment, predicted: Predictions, prepared: ChildProcess.Child?,
        judgePrevious: () -> Void = {}, whenClockStarted: () -> Void = {}, nearItsEnd: (seconds: Double, prime: () -> Void)? = nil
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
            if turned.seconds(since: primedAt) + Self.goLatencySeconds > latestSettleSeconds(for: experiment, prediction: prediction) {
                primed.abandon()
                child = nil
            }
        }
        let running = child ?? start(experiment, predicted: predicted, ahead: false)
        running.go()
        judgePrevious()
        // CPU work left to measure here is watched for what the child calibrated it to cost.
        let report = running.finish(
            watchdogSeconds: watchdogSeconds(for: experiment, prediction: prediction),
            countingFromFirstLine: experiment.expectedEnding == .hangs,
            recounting: prediction.leavesOutCPUWork ? { watchdogSeconds(for: experiment, prediction: prediction.counting($0)) } : nil,
            whenClockStarted: whenClockStarted,
            nearItsEndSeconds: nearItsEnd?.seconds,
            nearItsEnd: nearItsEnd?.prime ?? {}
        )
        return Ran(report: report, turned: turned)
    }

    /// When to prime the child of `next` (``primesAhead(_:)``) while `current` runs, in seconds
    /// from the running child's clock start: a settle before the earliest end the prediction
    /// of `current` allows (a declared hang ends at its watchdog), or later, if an end at its
    /// latest, then `judging` seconds to judge it, would leave `next` a settle longer than it
    /// may have; nil when `next` is not primed ahead, or `current` has CPU work.
    func primingSeconds(
        during current: (experiment: Experiment, predicted: Predictions), before next: (experiment: Experiment, predicted: Predictions),
        judging: Double
    ) -> Double? {
        // Not beside CPU work: the touch starts the next child's threads while its filters are timed.
        guard primesAhead(next), !current.predicted.chosen.leavesOutCPUWork else { return nil }
        let prediction = current.predicted.chosen
        let watchdog = watchdogSeconds(for: current.experiment, prediction: prediction)
        let ends = current.experiment.expectedEnding == .hangs ? watchdog...watchdog : prediction.totalRange
        let room = latestSettleSeconds(for: next.experiment, prediction: next.predicted.chosen) - Self.primingSlackSeconds - judging
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
        let latestEnd = experiment.expectedEnding == .hangs
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
            return ExperimentResult(experiment: experiment, prediction: prediction, applePrediction: apple, measurement: nil, verdict: .error, reason: failure.reason, checks: [])
        }
        guard let report = ran.report else {
            return ExperimentResult(experiment: experiment, prediction: prediction, applePrediction: apple, measurement: nil, verdict: .predicted, reason: nil, checks: []).unmodelledIfSo()
        }
        var result = ExperimentResult.judging(report, of: experiment, prediction: prediction, applePrediction: apple).unmodelledIfSo()
        result.wallSeconds = DispatchTime.now().seconds(since: ran.turned)
        return result
    }

    /// Starts the child of `experiment`, sending it the plan `predicted` were made from; `ahead`
    /// of its turn, it prepares, then waits for its go.
    private func start(_ experiment: Experiment, predicted: Predictions, ahead: Bool) -> ChildProcess.Child {
        let request = ChildProcess.Request(
            experiment: experiment.name, timeScale: conditions.timeScale, imagesDirectory: imagesDirectory?.path, cpus: cpus,
            parameters: parameters(experiment)
        )
        return ChildProcess.Child.start(executable: executable, request: request, plan: predicted.chosen.workload, ahead: ahead)
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
        !running.chosen.leavesOutCPUWork && next.0.timing == .predicted && next.1.planFailure == nil
    }

    /// Runs `experiments` in order, each `repeats` times in its own child, telling progress (what
    /// runs, the time it is expected to take, the time left for the run) to `progress`.
    /// `finished` sees each experiment's result, its repeats combined, once complete (to place
    /// its files and print it) and may change it. When `stops` says so after a child, the run
    /// ends there: the experiments with every repeat finished are returned, then, if the
    /// repetition of the next was cut short, a result of its runs that finished
    /// (`ExperimentResult.isCutShort`).
    ///
    /// While a child runs, the next one (the next repeat, or the next experiment) is started to
    /// prepare and wait for its go (`prepares(_:beside:)`), so its start costs the run nothing.
    /// Where its run leaves room before the pool monitor's first tick (`primesAhead(_:)`), it
    /// is also told to touch the pool a settle before the running one is expected to end, so
    /// it settles meanwhile; the ended one is then judged before the go. One whose turn never
    /// comes (an interrupt, the run's end) is killed and reaped. Otherwise a child that ended is
    /// judged once the next has been told to go, while that one touches the pool and settles (a
    /// millisecond or two of the 30 ms), unless either has CPU work: the next one's timed work,
    /// or the judging's own, could then run beside each other.
    package func run(
        _ experiments: [Experiment], repeats: Int, stops: () -> Bool, progress: (String) -> Void,
        finished: (inout ExperimentResult, _ position: Int) -> Void
    ) -> [ExperimentResult] {
        // Every plan is read before any clock starts: a rehearsal that traps or hangs costs its
        // plan child, never a run's timing. An interrupt meanwhile ends the run before any runs.
        let predicted = predictions(experiments)
        if Interruption.shared.signal != nil { return [] }
        let pipeline = Pipeline(runner: self, experiments: experiments, predicted: predicted, repeats: repeats)
        defer { pipeline.prepared?.abandon() }
        for turn in pipeline.turns.indices {
            if runsExperiments { progress(pipeline.progressLine(turn)) }
            pipeline.run(turn, finished: finished)
            if stops() {
                pipeline.stop(after: turn, finished: finished)
                return pipeline.results
            }
        }
        pipeline.judgeUnjudged(finished: finished)
        return pipeline.results
    }

    /// The children of one run, one turn after another: the child prepared ahead, the child
    /// ended and not yet judged, the runs of the experiment under way, and the results.
    /// (A class: the child prepared ahead is set by the running child's callbacks.)
    private final class Pipeline {
        let runner: Runner
        let experiments: [Experiment]
        let predicted: [Predictions]
        let repeats: Int
        let runsPerExperiment: Int
        /// Each child's turn: which experiment, and which of its runs.
        let turns: [(index: Int, run: Int)]
        var prepared: ChildProcess.Child?
        private(set) var results: [ExperimentResult] = []
        private var runs: [ExperimentResult] = []
        /// The last turn's child, ended, to judge; how long judging the last one without CPU work
        /// took (only such an experiment runs beside a child started ahead, ``Runner/prepares(_:beside:)``).
        private var unjudged: (turn: Int, ran: Ran)?
        private var judging = 0.0

        init(runner: Runner, experiments: [Experiment], predicted: [Predictions], repeats: Int) {
            self.runner = runner
            self.experiments = experiments
            self.predicted = predicted
            self.repeats = repeats
            runsPerExperiment = runner.runsExperiments ? repeats : 1
            turns = experiments.indices.flatMap { [runsPerExperiment] index in (1...runsPerExperiment).map { (index: index, run: $0) } }
        }

        /// `[3/54] serial-queue · expected 16.0 s · about 80 s left for the run`.
        func progressLine(_ turn: Int) -> String {
            let (index, run) = turns[turn]
            let expected = predicted.map(\.chosen.total)
            // The figure shown leaves out CPU work that is measured only when it runs: say so, as `list` does.
            let cpuWork = predicted[index].chosen.leavesOutCPUWork ? " + CPU work" : ""
            let left = expected[index...].reduce(0, +) * Double(repeats) - expected[index] * Double(run - 1)
            let repetition = repeats > 1 ? " (run \(run)/\(repeats))" : ""
            // A plan that leaves out what the code does (what the rehearsal named, or what only
            // the learner's file text shows) predicts nothing to show: no figure.
            let leavesOut = !predicted[index].chosen.workload.unmodelled.isEmpty || !experiments[index].unseenConstructs.isEmpty
            let expectation = predicted[index].planFailure != nil ? "no plan, not run"
                : leavesOut ? "unmodelled, no prediction" : "expected \(Format.seconds(expected[index], digits: 1))\(cpuWork)"
            return "[\(index + 1)/\(experiments.count)] \(experiments[index].name)\(repetition) · \(expectation) · about \(Format.seconds(left, digits: 0)) left for the run"
        }

        /// Runs the turn's child (the one prepared ahead, if any), starting the next one ahead
        /// once its clock has started and priming it near its end where that fits.
        func run(_ turn: Int, finished: (inout ExperimentResult, Int) -> Void) {
            let index = turns[turn].index
            // Judging an experiment with CPU work predicts it again with what that work cost, which
            // takes CPU time of its own: done before the next child goes, not beside it.
            if predicted[index].chosen.leavesOutCPUWork || unjudged.map({ predicted[turns[$0.turn].index].chosen.leavesOutCPUWork }) == true {
                judgeUnjudged(finished: finished)
            }
            let next = turn + 1 < turns.count ? turns[turn + 1].index : nil
            let child = prepared
            prepared = nil
            let current = (experiments[index], predicted[index])
            let priming = next.flatMap { runner.primingSeconds(during: current, before: (experiments[$0], predicted[$0]), judging: judging) }
            let ran = runner.running(
                experiments[index], predicted: predicted[index], prepared: child, judgePrevious: { self.judgeUnjudged(finished: finished) },
                whenClockStarted: {
                    if self.runner.runsExperiments, let next, Runner.prepares((self.experiments[next], self.predicted[next]), beside: self.predicted[index]) {
                        self.prepared = self.runner.start(self.experiments[next], predicted: self.predicted[next], ahead: true)
                    }
                },
                nearItsEnd: priming.map { ($0, { self.prepared?.prime() }) }
            )
            unjudged = (turn, ran)
        }

        /// The run stops after `turn`: its child counts if it ended before the stop came, and the
        /// runs of the experiment cut short that finished are its result.
        func stop(after turn: Int, finished: (inout ExperimentResult, Int) -> Void) {
            if case .interrupted = unjudged?.ran.report?.ending { unjudged = nil }
            judgeUnjudged(finished: finished)
            if !runs.isEmpty { finishRuns(of: turns[turn].index, finished: finished) }
        }

        /// Judges the child that ended last, and finishes its experiment after its last run.
        func judgeUnjudged(finished: (inout ExperimentResult, Int) -> Void) {
            guard let (turn, ran) = unjudged else { return }
            unjudged = nil
            let (index, run) = turns[turn]
            let started = DispatchTime.now()
            defer {
                if !predicted[index].chosen.leavesOutCPUWork {
                    judging = DispatchTime.now().seconds(since: started)
                }
            }
            runs.append(runner.judged(ran, of: experiments[index], predicted: predicted[index]))
            if run == runsPerExperiment { finishRuns(of: index, finished: finished) }
        }

        /// The experiment's runs combined into its result, handed to `finished`, and kept.
        private func finishRuns(of index: Int, finished: (inout ExperimentResult, Int) -> Void) {
            var result = ExperimentResult.repeated(runs, of: runsPerExperiment)
            runs = []
            finished(&result, index + 1)
            results.append(result)
        }
    }
}
