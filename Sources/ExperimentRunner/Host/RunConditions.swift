import ExperimentModel

/// What a run measures and predicts under, as every format's host line states it: the machine,
/// the time scale, and the platform profile the model predicts for.
public struct RunConditions: Sendable, Equatable {
    public var host: HostMachine
    /// Real seconds per article second.
    public var timeScale: Double
    public var profile: PlatformProfile.Kind

    public init(host: HostMachine, timeScale: Double, profile: PlatformProfile.Kind) {
        self.host = host
        self.timeScale = timeScale
        self.profile = profile
    }
}

extension Runner {
    /// The conditions this runner runs and predicts under.
    public var conditions: RunConditions {
        RunConditions(host: host, timeScale: timeScale, profile: profile.kind)
    }
}
