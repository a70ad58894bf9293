/// A result's key and the type of its value, declared once: an experiment records with it and
/// the tool (or a check) reads back with it, so neither spells the key nor unpacks JSON by hand.
public struct OutcomeKey<Value: OutcomeValue>: Sendable, Hashable {
    /// The field's name, as the report and `--format json` show it.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }
}

extension OutcomeKey where Value == [String] {
    /// The PNG files an image experiment wrote (paths): the report links them, and places them
    /// in its folder.
    public static var images: Self { Self("images") }
}

/// A type an outcome's value has, stored as JSON.
public protocol OutcomeValue: Sendable {
    init?(json: JSONValue)
    var json: JSONValue { get }
}

extension [String]: OutcomeValue {
    public init?(json: JSONValue) {
        guard let strings = json.stringArray else { return nil }
        self = strings
    }

    public var json: JSONValue { .strings(self) }
}

extension Double: OutcomeValue {
    public init?(json: JSONValue) {
        guard let number = json.numberValue else { return nil }
        self = number
    }

    public var json: JSONValue { .number(self) }
}

extension Bool: OutcomeValue {
    public init?(json: JSONValue) {
        guard case .bool(let value) = json else { return nil }
        self = value
    }

    public var json: JSONValue { .bool(self) }
}

extension Outcome {
    /// The value recorded under `key`, nil when none was or it has another type.
    public subscript<Value>(_ key: OutcomeKey<Value>) -> Value? {
        self[key.name].flatMap(Value.init(json:))
    }

    /// Adds or replaces the field `key`.
    public mutating func set<Value>(_ key: OutcomeKey<Value>, _ value: Value) {
        set(key.name, value.json)
    }
}

extension Outcome.Field {
    /// The field `key`, to build an outcome from.
    public init<Value>(_ key: OutcomeKey<Value>, _ value: Value) {
        self.init(key.name, value.json)
    }
}

extension RunContext {
    /// Records a result under its typed key as soon as it is known (see ``record(_:_:)``).
    public func record<Value>(_ key: OutcomeKey<Value>, _ value: Value) {
        record(key.name, value.json)
    }
}
