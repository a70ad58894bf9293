/// How a range of accepted values reads, the same for an option and an experiment's parameter.
public enum Accepted {
    /// `a number from 0.05 to 10`.
    public static func number(_ range: ClosedRange<Double>, unit: String = "a number") -> String {
        "\(unit) from \(range.lowerBound.decimalText) to \(range.upperBound.decimalText)"
    }

    /// `a whole number from 1 to 100`.
    public static func whole(_ range: ClosedRange<Int>) -> String {
        "a whole number from \(range.lowerBound) to \(range.upperBound)"
    }
}
