import ExperimentModel
import ExperimentKit

/// What a run measures and predicts under, as every format's host line states it: the machine,
/// the time scale, and the platform profile the model predicts for.
package struct RunConditions: Sendable, Equatable {
    package var host: HostMachine
    /// Real seconds per article second.
    package var timeScale: Double
    package var profile: PlatformProfile.Kind

    package init(host: HostMachine, timeScale: Double, profile: PlatformProfile.Kind) {
        self.host = host
        self.timeScale = timeScale
        self.profile = profile
    }
}
