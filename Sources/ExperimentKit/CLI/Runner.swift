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

    public init(executable: URL, timeScale: Double, profile: PlatformProfile.Kind, host: Host = .current, imagesDirectory: URL? = nil) {
        self.executable = executable
        self.timeScale = timeScale
        self.host = host
        self.profile = PlatformProfile(kind: profile, cpus: host.cpus)
        self.imagesDirectory = imagesDirectory
    }

    /// Whether the chosen profile is this machine's, so experiments actually run.
    public var runsExperiments: Bool {
        profile.kind == PlatformProfile.nativeKind
    }

    /// The model's prediction of `experiment` on the chosen profile.
    public func prediction(_ experiment: Experiment) -> Prediction {
        Scheduler.predict(experiment.workload(), profile: profile, timeScale: timeScale)
    }

    /// The model's prediction on Apple platforms, where the articles measured.
    public func applePrediction(_ experiment: Experiment) -> Prediction {
        Scheduler.predict(experiment.workload(), profile: PlatformProfile(kind: .apple, cpus: host.cpus), timeScale: timeScale)
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
        let report = ChildProcess.launch(
            executable: executable, experiment: experiment.name, timeScale: timeScale, imagesDirectory: imagesDirectory,
            watchdogSeconds: watchdogSeconds(for: experiment, prediction: prediction)
        )
        return .judging(report, of: experiment, prediction: prediction, applePrediction: apple)
    }
}
