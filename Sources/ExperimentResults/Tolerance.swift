import ExperimentKit

/// How far a measurement may stray from the model's range and still pass.
///
/// Sleeps never end early, so a real run sits at or just above the model's times; the margin
/// absorbs thread wake-up and scheduling delays on a busy 2-core machine (a few ms per
/// operation), which grow with the number of operations in a row (the relative part) and have
/// a floor of their own (the absolute part).
package struct Tolerance: Sendable, Equatable {
    /// Fraction of the bound added on each side.
    package var relative: Double
    /// Seconds added on each side.
    package var absolute: Double

    /// The tolerance of every timing check: ±(5 % + 0.05 s).
    package static let standard = Tolerance(relative: 0.05, absolute: 0.05)

    package init(relative: Double, absolute: Double) {
        self.relative = relative
        self.absolute = absolute
    }

    /// The range widened on both sides, never below zero.
    package func widen(_ range: ClosedRange<Double>) -> ClosedRange<Double> {
        let lower = max(0, range.lowerBound * (1 - relative) - absolute)
        return lower...(range.upperBound * (1 + relative) + absolute)
    }

    /// How the tolerance reads in output, e.g. `±(5 % + 0.05 s)`.
    package var description: String {
        "±(\(Int((relative * 100).rounded())) % + \(Format.seconds(absolute, digits: 2)))"
    }
}
