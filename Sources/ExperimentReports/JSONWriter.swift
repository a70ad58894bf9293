import ExperimentKit
import Foundation

/// Writes a `JSONValue` as indented JSON text, keys in the order given.
package enum JSONWriter {
    package static func write(_ value: JSONValue) -> String {
        var output = ""
        write(value, indent: 0, into: &output)
        return output + "\n"
    }

    private static func write(_ value: JSONValue, indent: Int, into output: inout String) {
        let pad = String(repeating: "  ", count: indent + 1), closing = String(repeating: "  ", count: indent)
        switch value {
        case .null: output += "null"
        case .bool(let flag): output += flag ? "true" : "false"
        case .number(let number): output += format(number)
        case .string(let text): output += JSONString.quoted(text)
        case .array(let items):
            if items.isEmpty { output += "[]"; return }
            output += "[\n"
            for (offset, item) in items.enumerated() {
                output += pad
                write(item, indent: indent + 1, into: &output)
                output += offset == items.count - 1 ? "\n" : ",\n"
            }
            output += closing + "]"
        case .object(let fields):
            if fields.isEmpty { output += "{}"; return }
            output += "{\n"
            for (offset, field) in fields.enumerated() {
                output += pad + JSONString.quoted(field.key) + ": "
                write(field.value, indent: indent + 1, into: &output)
                output += offset == fields.count - 1 ? "\n" : ",\n"
            }
            output += closing + "}"
        }
    }

    /// Integers without a fraction; other numbers to the microsecond; non-finite numbers as null (JSON has none).
    static func format(_ number: Double) -> String {
        number.isFinite ? number.decimalText : "null"
    }
}

extension JSONValue {
    /// An object from ordered key/value pairs.
    package static func object(_ pairs: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(pairs.map { Outcome.Field($0.key, $0.value) })
    }

    /// A number, or null when absent.
    package static func number(_ value: Double?) -> JSONValue {
        value.map { .number($0) } ?? .null
    }
}
