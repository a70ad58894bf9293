import ExperimentModel

/// The two platforms the tests predict for, on the two CPUs the platform figures of ExperimentModel.docc were
/// measured with. A suite that adopts this reads them as `Self.linux` and `Self.apple`.
public protocol TwoCPUProfiles {}

extension TwoCPUProfiles {
    public static var linux: PlatformProfile { PlatformProfile(kind: .linux, cpus: 2) }
    public static var apple: PlatformProfile { PlatformProfile(kind: .apple, cpus: 2) }
}
