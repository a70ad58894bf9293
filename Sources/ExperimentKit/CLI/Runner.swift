import Foundation

/// Runs selected experiments, each in its own child process, and judges them against the model.
public struct Runner: Sendable {
    /// The executable started as the child (this program itself).
    public var executable: URL
    public var timeScale: Double
    public var profile: PlatformProfile
    public var host: Host
    /// Where image experiments write their PNGs; nil writes none.
    public var imagesDirectory: URL?
    /// `--set` values; each experiment takes those it declares (validated beforehand).
    public var settings: [String: String]
    /// `--cpus N`: the children are pinned to N CPUs and the model predicts for N.
    public var cpus: Int?

    public init(
        executable: URL, timeScale: Double, profile: PlatformProfile.Kind, host: Host = .current,
        imagesDirectory: URL? = nil, settings: [String: String] = [:], cpus: Int? = nil
    ) {
        self.executable = executable
        self.timeScale = timeScale
        self.host = host
        self.profile = PlatformProfile(kind: profile, cpus: cpus ?? host.cpus)
        self.imagesDirectory = imagesDirectory
        self.settings = settings
        self.cpus = cpus
    }

    /// Whether experiments actually run: the chosen profile is this machine's, and it has the
    /// CPUs asked for. Otherwise only the model speaks.
    public var runsExperiments: Bool {
        profile.kind == PlatformProfile.nativeKind && profile.cpus <= host.cpus
    }

    /// The values `experiment` runs with: the article's, with the `--set` values it declares.
    public func parameters(_ experiment: Experiment) -> Parameters {
        (try? experiment.parameters(overriding: settings)) ?? experiment.defaultParameters
    }

    /// The model's prediction of `experiment` on the chosen profile.
    public func prediction(_ experiment: Experiment) -> Prediction {
        predict(experiment, on: profile)
    }

    /// The model's prediction on Apple platforms, where the articles measured.
    public func applePrediction(_ experiment: Experiment) -> Prediction {
        predict(experiment, on: PlatformProfile(kind: .apple, cpus: profile.cpus))
    }

    private func predict(_ experiment: Experiment, on profile: PlatformProfile) -> Prediction {
        let values = parameters(experiment)
        var prediction = Scheduler.predict(experiment.workload(values), profile: profile, timeScale: timeScale)
        prediction.parameters = values
        return prediction
    }

    /// The watchdog for one child, from the prediction's upper bound. For a declared hang: long
    /// enough past the end of what does finish to show the hang (half again, at least 1 s). For
    /// anything else: half again on top, plus ten seconds for starting a process on a busy machine.
    public func watchdogSeconds(for experiment: Experiment, prediction: Prediction) -> Double {
        let upper = Tolerance.standard.widen(prediction.totalRange).upperBound
        return experiment.expectedEnding == .hangs ? upper + max(1, upper * 0.5) : upper * 1.5 + 10
    }

    /// Runs (or predicts) one experiment and judges it.
    public func result(of experiment: Experiment) -> ExperimentResult {
        let prediction = prediction(experiment)
        let apple = applePrediction(experiment)
        guard runsExperiments else {
            return ExperimentResult(experiment: experiment, prediction: prediction, applePrediction: apple, measurement: nil, verdict: .predicted, reason: nil, checks: [])
        }
        let declared = Set(experiment.parameters.map(\.key))
        let childSettings = ChildProcess.ChildSettings(
            timeScale: timeScale, imagesDirectory: imagesDirectory?.path, cpus: cpus,
            parameters: settings.filter { declared.contains($0.key) }
        )
        let report = ChildProcess.launch(
            executable: executable, experiment: experiment.name, settings: childSettings,
            watchdogSeconds: watchdogSeconds(for: experiment, prediction: prediction)
        )
        return .judging(report, of: experiment, prediction: prediction, applePrediction: apple)
    }
}
