import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation

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
    /// (``PlanSource/child(_:keepingCallSites:)``), so no experiment's code runs in the runner; tests, in process.
    package var plans: PlanSource

    package init(
        executable: URL, timeScale: Double, profile: PlatformProfile.Kind, host: HostMachine = .current,
        imagesDirectory: URL? = nil, settings: ParameterSettings = .none, cpus: Int? = nil,
        plans: PlanSource = .inProcess
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
            predicted.append(
                Predictions(
                    chosen: chosen, apple: profile == apple ? chosen : predict(workload, values, on: apple),
                    planFailure: failure))
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
}
