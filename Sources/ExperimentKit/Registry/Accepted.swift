import ExperimentModel

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

extension ParameterSpec {
    /// The accepted values, as a usage error or `describe` states them.
    public var accepted: String {
        switch kind {
        case .seconds(let range): return Accepted.number(range, unit: "article seconds")
        case .count(let range): return Accepted.whole(range)
        case .width: return "\(QueueWidth.limits.lowerBound) to \(QueueWidth.limits.upperBound), or default"
        case .serviceClass: return ServiceClass.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }
}
