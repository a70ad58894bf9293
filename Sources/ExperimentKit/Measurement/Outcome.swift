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

/// Outcome values as a person reads them: `[3, 7]`, `Каждый 🍎, Охотник 🍊`.
public enum OutcomeText {
    public static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: return "—"
        case .bool(let flag): return flag ? "yes" : "no"
        case .number(let number): return number.decimalText
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
