import Foundation

/// Runs selected experiments, each in its own child process, and judges them against the model.
public struct Runner: Sendable {
    /// The executable started as the child (this program itself).
    public var executable: URL
    public var timeScale: Double
    public var profile: PlatformProfile
    public var host: Host

    public init(executable: URL, timeScale: Double, profile: PlatformProfile.Kind, host: Host = .current) {
        self.executable = executable
        self.timeScale = timeScale
        self.host = host
        self.profile = PlatformProfile(kind: profile, cpus: host.cpus)
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

    /// The watchdog for one child: the prediction's upper bound with half again on top, plus
    /// ten seconds for starting a process on a busy machine.
    public func watchdogSeconds(for prediction: Prediction) -> Double {
        Tolerance.standard.widen(prediction.totalRange).upperBound * 1.5 + 10
    }

    /// Runs (or predicts) one experiment and judges it.
    public func result(of experiment: Experiment) -> ExperimentResult {
        let prediction = prediction(experiment)
        let apple = applePrediction(experiment)
        guard runsExperiments else {
            return ExperimentResult(experiment: experiment, prediction: prediction, applePrediction: apple, measurement: nil, verdict: .predicted, reason: nil, checks: [])
        }
        switch ChildProcess.launch(executable: executable, experiment: experiment.name, timeScale: timeScale, watchdogSeconds: watchdogSeconds(for: prediction)) {
        case .measured(let measurement):
            return .judged(experiment, measurement: measurement, prediction: prediction, applePrediction: apple)
        case .failed(let reason, _):
            return ExperimentResult(experiment: experiment, prediction: prediction, applePrediction: apple, measurement: nil, verdict: .error, reason: reason, checks: [])
        }
    }
}
