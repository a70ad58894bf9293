/// The earlier run's measured total for an experiment that `--compare` compared.
package struct EarlierTotal: Sendable, Equatable {
    package var seconds: Double
    /// Whether the two runs' conditions and settings let the totals be compared.
    package var comparable: Bool

    package init(seconds: Double, comparable: Bool) {
        self.seconds = seconds
        self.comparable = comparable
    }
}
