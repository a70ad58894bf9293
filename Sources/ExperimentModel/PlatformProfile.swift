/// How a platform's thread pool serves an OperationQueue: the model's only input besides the workload.
public struct PlatformProfile: Sendable, Equatable {
    /// The two platforms the model knows.
    public enum Kind: String, Sendable, CaseIterable, Codable {
        /// swift-corelibs-libdispatch: one worker per CPU, one more per monitor tick while all block.
        case linux
        /// Apple's Dispatch: a worker for every ready item as soon as others block.
        case apple
    }

    public var kind: Kind
    /// CPUs the process may run on; the Linux pool's initial width.
    public var cpus: Int
    /// Real seconds from the experiment's clock start to the pool monitor's first tick.
    /// The child process touches the pool, waits ``settleSeconds``, then starts its
    /// clock, so the first tick comes one monitor interval after the touch. A run that measured
    /// another settle is predicted again with its own (``firstTick(afterSettling:)``).
    public var firstTickSeconds: Double

    /// The Linux monitor's period, in real seconds (it ignores the experiments' time scale).
    public static let monitorInterval = 1.0
    /// How long an idle Linux worker waits for work before it exits, in real seconds.
    static let idleWorkerLifetime = 5.0
    /// Real seconds a run waits, at least, between its first touch of the pool and its clock's
    /// start, which fixes the monitor's phase (the runner's `PoolPriming` waits them).
    public static let settleSeconds = 0.03
    /// The most workers the model lets one pool have.
    public static let maximumWorkers = 64

    public init(
        kind: Kind, cpus: Int,
        firstTickSeconds: Double = PlatformProfile.firstTick(afterSettling: PlatformProfile.settleSeconds)
    ) {
        self.kind = kind
        self.cpus = cpus
        self.firstTickSeconds = firstTickSeconds
    }

    /// When the monitor's first tick comes after the clock's start, for a clock started
    /// `settleSeconds` after the pool's first touch: the ticks keep the touch's phase, once a
    /// monitor interval (a touch 1.03 s before the clock puts the first tick at 0.97 s).
    public static func firstTick(afterSettling settleSeconds: Double) -> Double {
        monitorInterval - settleSeconds.truncatingRemainder(dividingBy: monitorInterval)
    }

    /// The profile of the platform this binary was built for.
    public static var nativeKind: Kind {
        #if canImport(Darwin)
        return .apple
        #else
        return .linux
        #endif
    }
}
