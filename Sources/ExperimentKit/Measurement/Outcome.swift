import ExperimentModel

/// A JSON value with object keys kept in the order they were written, so output is stable.
public indirect enum JSONValue: Sendable, Codable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([Outcome.Field])
}

/// An experiment's specific results, as ordered key/value fields (rendered as a JSON object).
public struct Outcome: Sendable, Codable, Equatable {
    /// One named result.
    public struct Field: Sendable, Codable, Equatable {
        public var key: String
        public var value: JSONValue

        public init(_ key: String, _ value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    /// The value stored under `key`.
    public subscript(key: String) -> JSONValue? {
        fields.first { $0.key == key }?.value
    }

    /// Adds or replaces a field, keeping the first position.
    public mutating func set(_ key: String, _ value: JSONValue) {
        if let index = fields.firstIndex(where: { $0.key == key }) {
            fields[index].value = value
        } else {
            fields.append(Field(key, value))
        }
    }
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

/// Outcome values as a person reads them: `[3, 7]`, `Каждый 🍎, Охотник 🍊`.
public enum OutcomeText {
    public static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "—"
        case .bool(let flag): return flag ? "yes" : "no"
        case .number(let number): return Format.number(number)
        case .string(let text): return text
        case .array(let items):
            if items.allSatisfy({ if case .number = $0 { return true } else { return false } }) {
                return "[" + items.map(describe).joined(separator: ", ") + "]"
            }
            return items.map(describe).joined(separator: ", ")
        case .object(let fields):
            return fields.map { "\($0.key) \(describe($0.value))" }.joined(separator: "; ")
        }
    }
}
