/// SplitMix64: a tiny fixed-seed generator, so that what is drawn "at random" is the same on every
/// run and platform, and a failure can be replayed from its seed: the source pictures' texture,
/// the tests' random command lines and parameter draws.
///
/// (The standard library's `random(in:using:)` algorithms are not promised to stay the same
/// across releases; code that must draw identical values forever uses ``next()`` directly.)
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
