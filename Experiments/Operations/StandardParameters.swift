import ExperimentKit

/// The knobs the experiments share, so the same key means the same thing everywhere.
enum StandardParameters {
    static func count(_ value: Int, _ range: ClosedRange<Int> = 1...20, of what: String = "operations") -> ParameterSpec {
        ParameterSpec(key: "count", summary: "how many \(what)", defaultValue: String(value), kind: .count(range))
    }

    static func sleep(_ value: Double, of what: String = "each operation sleeps") -> ParameterSpec {
        ParameterSpec(key: "sleep", summary: "article seconds \(what)", defaultValue: Format.number(value), kind: .seconds(0.1...10))
    }

    static func width(_ value: Int?) -> ParameterSpec {
        ParameterSpec(key: "width", summary: "the queue's maxConcurrentOperationCount", defaultValue: value.map(String.init) ?? "default", kind: .width)
    }

    static func qos(_ value: ServiceClass, of what: String) -> ParameterSpec {
        ParameterSpec(key: "qos", summary: "the qualityOfService of \(what)", defaultValue: value.rawValue, kind: .serviceClass)
    }

    /// `article` is the article's instant when the default stands in for it.
    static func cancelAt(_ value: Double, article: Double? = nil, why: String) -> ParameterSpec {
        ParameterSpec(
            key: "cancel-at", summary: "when cancel() comes, in article seconds (\(why))",
            defaultValue: Format.number(value), articleValue: article.map(Format.number), kind: .seconds(0.1...20)
        )
    }

    static func pairs(_ value: Int, _ range: ClosedRange<Int>) -> ParameterSpec {
        ParameterSpec(key: "pairs", summary: "how many pairs are summed", defaultValue: String(value), kind: .count(range))
    }

    static func latency(_ image: String, _ value: Double) -> ParameterSpec {
        ParameterSpec(
            key: "latency.\(image.lowercased().replacingOccurrences(of: " ", with: "-"))",
            summary: "the simulated download of \(image), in article seconds", defaultValue: Format.number(value), kind: .seconds(0.1...20)
        )
    }
}
