/// A JSON value with object keys kept in the order they were written, so output is stable.
public indirect enum JSONValue: Sendable, Codable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([Outcome.Field])
}

extension JSONValue {
    /// Builds an array of strings.
    public static func strings(_ values: [String]) -> JSONValue {
        .array(values.map { .string($0) })
    }

    /// The string, when this is one.
    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    /// The number, when this is one.
    public var numberValue: Double? {
        if case .number(let value) = self { return value }
        return nil
    }

    /// The strings of an array of strings.
    public var stringArray: [String]? {
        guard case .array(let items) = self else { return nil }
        let strings = items.compactMap(\.stringValue)
        return strings.count == items.count ? strings : nil
    }
}
