import ExperimentKit
import ExperimentModel

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

    /// Why nothing runs with `profile` on a machine of `hostCPUs` CPUs, as the summary says it:
    /// `profile apple is not this machine's`, `8 CPUs asked, this machine has 2`; nil when it runs.
    package static func whyNothingRuns(profile: PlatformProfile, hostCPUs: Int) -> String? {
        if profile.kind != PlatformProfile.nativeKind {
            return "profile \(profile.kind.rawValue) is not this machine's"
        }
        return profile.cpus > hostCPUs
            ? "\(Format.count(profile.cpus, "CPU")) asked, this machine has \(hostCPUs)" : nil
    }
}
