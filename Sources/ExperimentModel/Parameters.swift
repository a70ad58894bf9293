import Foundation

/// A knob an experiment offers, with its default and where that default comes from (`--set key=value`).
///
/// Erased, so `describe`, validation and the report treat every knob alike; an experiment
/// declares one with a typed constructor and reads it back with its ``ParameterKey``. The keys
/// the experiments share are declared once, in the Experiments module's `StandardParameters`.
public struct ParameterSpec: Sendable, Equatable {
    /// What values the knob takes.
    public enum Kind: Sendable, Equatable {
        /// Article seconds in a range.
        case seconds(ClosedRange<Double>)
        /// A whole number in a range.
        case count(ClosedRange<Int>)
        /// A queue's width: 1 to ``PlatformProfile/maximumWorkers``, or `default` for the queue's own.
        case width
        /// A quality-of-service class name.
        case serviceClass
    }

    /// Where a knob's default comes from.
    public enum Origin: Sendable, Equatable {
        /// The article states it, in its words or in the code of its playground.
        case article
        /// The project chose it, for the reason `why` gives in a few words. `article` is the
        /// article's own value when it states one that the default moves away from.
        case chosen(why: String, article: Parameters.Value?)

        /// Chosen here for `why`, in place of the article's value `article`, if it states one.
        public static func chosen<Value: ParameterValue>(_ why: String, insteadOf article: Value?) -> Origin {
            .chosen(why: why, article: article?.parameter)
        }
    }

    public var key: String
    public var summary: String
    /// The value the experiment runs with unless told otherwise.
    public var defaultValue: Parameters.Value
    /// Whether the article states the default or the project chose it, and why.
    public var origin: Origin
    public var kind: Kind

    /// Untyped, so kept inside this module: an experiment declares a knob with a typed
    /// constructor (``seconds(_:summary:default:origin:range:)`` and its siblings), whose
    /// default cannot be a value the knob refuses.
    init(key: String, summary: String, defaultValue: Parameters.Value, origin: Origin = .article, kind: Kind) {
        self.key = key
        self.summary = summary
        self.defaultValue = defaultValue
        self.origin = origin
        self.kind = kind
    }

    /// The article's own value; nil when the article states none.
    /// Setting it with `--set` is running the article's setting.
    public var articleValue: Parameters.Value? {
        switch origin {
        case .article: return defaultValue
        case .chosen(_, let article): return article
        }
    }

    /// Whether `value` keeps the run on the article's setting, so that its figure applies: the
    /// article's own value, or the default chosen in its place.
    public func isArticle(_ value: Parameters.Value) -> Bool {
        value == articleValue || value == defaultValue
    }

    /// Where `value`, used for this knob, comes from.
    public func origin(of value: Parameters.Value) -> Parameters.ValueOrigin {
        if value == articleValue { return .article }
        if value == defaultValue, case .chosen(let why, _) = origin { return .chosen(why: why) }
        return .set
    }

    /// The value `text` spells, as this knob takes it; nil when the knob does not accept it.
    public func value(parsing text: String) -> Parameters.Value? {
        switch kind {
        case .seconds(let range): return Double(parameterText: text).flatMap { range.contains($0) ? .seconds($0) : nil }
        case .count(let range): return Int(parameterText: text).flatMap { range.contains($0) ? .count($0) : nil }
        case .width: return QueueWidth(parameterText: text).map(Parameters.Value.width)
        case .serviceClass: return ServiceClass(parameterText: text).map(Parameters.Value.serviceClass)
        }
    }

    /// Article seconds in `range`.
    public static func seconds(
        _ key: ParameterKey<Double>, summary: String, default value: Double, origin: Origin = .article,
        range: ClosedRange<Double>
    ) -> ParameterSpec {
        let spec = ParameterSpec(
            key: key.name, summary: summary, defaultValue: .seconds(value), origin: origin, kind: .seconds(range))
        let article = spec.articleValue?.base as? Double
        precondition(
            range.contains(value) && article.map(range.contains) != false,
            "\(key.name): the default lies outside \(range)")
        return spec
    }

    /// A whole number in `range`.
    public static func count(
        _ key: ParameterKey<Int>, summary: String, default value: Int, origin: Origin = .article,
        range: ClosedRange<Int>
    ) -> ParameterSpec {
        precondition(range.contains(value), "\(key.name): the default lies outside \(range)")
        return ParameterSpec(
            key: key.name, summary: summary, defaultValue: .count(value), origin: origin, kind: .count(range))
    }

    /// A queue's `maxConcurrentOperationCount`.
    public static func width(
        _ key: ParameterKey<QueueWidth>, summary: String, default value: QueueWidth, origin: Origin = .article
    ) -> ParameterSpec {
        ParameterSpec(key: key.name, summary: summary, defaultValue: .width(value), origin: origin, kind: .width)
    }

    /// A quality-of-service class.
    public static func serviceClass(
        _ key: ParameterKey<ServiceClass>, summary: String, default value: ServiceClass, origin: Origin = .article
    ) -> ParameterSpec {
        ParameterSpec(
            key: key.name, summary: summary, defaultValue: .serviceClass(value), origin: origin, kind: .serviceClass)
    }
}

/// The values an experiment runs with: its defaults, overridden by `--set`. Typed, and Codable,
/// so the runner's children receive them as parsed, never as text to parse again.
public struct Parameters: Sendable, Equatable, Codable {
    /// A knob's value, of the type its kind of knob takes.
    public enum Value: Sendable, Hashable, Codable {
        case seconds(Double)
        case count(Int)
        case width(QueueWidth)
        case serviceClass(ServiceClass)

        /// The typed value itself, for a read by a ``ParameterKey``.
        public var base: any ParameterValue {
            switch self {
            case .seconds(let seconds): return seconds
            case .count(let count): return count
            case .width(let width): return width
            case .serviceClass(let serviceClass): return serviceClass
            }
        }

        /// The canonical spelling: what `describe` and the report show.
        public var parameterText: String { base.parameterText }

        /// Written as one key naming the kind and the value itself, `{"width": 3}`.
        private enum Kind: String, CodingKey {
            case seconds, count, width, serviceClass
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Kind.self)
            guard container.allKeys.count == 1, let kind = container.allKeys.first else {
                throw DecodingError.dataCorrupted(
                    .init(
                        codingPath: decoder.codingPath, debugDescription: "not one kind of value: \(container.allKeys)")
                )
            }
            switch kind {
            case .seconds: self = .seconds(try container.decode(Double.self, forKey: kind))
            case .count: self = .count(try container.decode(Int.self, forKey: kind))
            case .width: self = .width(try container.decode(QueueWidth.self, forKey: kind))
            case .serviceClass: self = .serviceClass(try container.decode(ServiceClass.self, forKey: kind))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Kind.self)
            switch self {
            case .seconds(let seconds): try container.encode(seconds, forKey: .seconds)
            case .count(let count): try container.encode(count, forKey: .count)
            case .width(let width): try container.encode(width, forKey: .width)
            case .serviceClass(let serviceClass): try container.encode(serviceClass, forKey: .serviceClass)
            }
        }
    }

    /// Where a value a run uses comes from.
    public enum ValueOrigin: Sendable, Equatable, Codable {
        /// The article states it.
        case article
        /// The default the project chose, for the reason given.
        case chosen(why: String)
        /// Set on the command line to a value neither the article nor the default has.
        case set
    }

    /// One knob's key and value.
    public struct Entry: Sendable, Equatable, Codable {
        public var key: String
        public var value: Value
    }

    /// Key and value, in the order the experiment declares its parameters.
    public private(set) var values: [Entry]
    /// Where each value comes from, in the same order.
    public private(set) var origins: [ValueOrigin]
    /// Whether every value is the article's own (or the default chosen in its place), so the
    /// article's figure applies to the run.
    public private(set) var isArticleSetting: Bool

    /// The defaults of `specs`.
    public init(_ specs: [ParameterSpec]) {
        self.init(specs, overrides: [:])
    }

    /// The defaults of `specs`, with `overrides` applied where a key matches; each override is
    /// of its knob's kind (``ParameterSpec/value(parsing:)`` made it).
    package init(_ specs: [ParameterSpec], overrides: [String: Value]) {
        values = specs.map { Entry(key: $0.key, value: overrides[$0.key] ?? $0.defaultValue) }
        origins = zip(specs, values).map { spec, used in spec.origin(of: used.value) }
        isArticleSetting = specs.allSatisfy { spec in overrides[spec.key].map(spec.isArticle) ?? true }
    }

    /// The value of a knob the experiment declares, read by its typed key.
    public subscript<Value>(_ key: ParameterKey<Value>) -> Value {
        guard let entry = values.first(where: { $0.key == key.name }) else {
            preconditionFailure("the experiment reads '\(key.name)', which it does not declare")
        }
        guard let value = entry.value.base as? Value else {
            preconditionFailure("'\(key.name)' holds \(entry.value.parameterText), not a \(Value.self)")
        }
        return value
    }
}

/// A knob's key and the type of its value: how an experiment declares and reads a knob without
/// spelling its key twice (`context.parameters[.pairs]`). The same key means the same thing in
/// every experiment that declares it.
public struct ParameterKey<Value: ParameterValue>: Sendable, Hashable {
    /// As typed after `--set`.
    public let name: String

    public init(_ name: String) {
        self.name = name
    }
}

/// A type a knob's value has, read from and written as the command line spells it.
public protocol ParameterValue: Sendable {
    /// The value written as `text`, in any spelling the command line accepts; nil if none.
    init?(parameterText text: String)
    /// The canonical spelling: what `describe` and the report show.
    var parameterText: String { get }
    /// The value as a knob of its type holds it.
    var parameter: Parameters.Value { get }
}

extension Double: ParameterValue {
    public init?(parameterText text: String) {
        guard let value = Double(text), value.isFinite else { return nil }
        self = value
    }

    public var parameterText: String { decimalText }

    public var parameter: Parameters.Value { .seconds(self) }
}

extension Int: ParameterValue {
    public init?(parameterText text: String) {
        self.init(text)
    }

    public var parameterText: String { String(self) }

    public var parameter: Parameters.Value { .count(self) }
}

extension ServiceClass: ParameterValue {
    public init?(parameterText text: String) {
        self.init(rawValue: text)
    }

    public var parameterText: String { rawValue }

    public var parameter: Parameters.Value { .serviceClass(self) }
}

/// A queue's `maxConcurrentOperationCount` as a knob: a number of operations at once, or the
/// queue's own default.
public enum QueueWidth: ParameterValue, Hashable, Codable {
    case `default`
    case limited(Int)

    /// The widths a knob accepts: no more than the model's largest profile runs at once.
    public static let limits = 1...PlatformProfile.maximumWorkers

    public init?(parameterText text: String) {
        if text == "default" {
            self = .default
        } else if let count = Int(text), Self.limits.contains(count) {
            self = .limited(count)
        } else {
            return nil
        }
    }

    public var parameterText: String {
        switch self {
        case .default: return "default"
        case .limited(let count): return String(count)
        }
    }

    public var parameter: Parameters.Value { .width(self) }

    /// A width outside ``limits`` does not decode, as it does not parse.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let count = try? container.decode(Int.self) {
            guard Self.limits.contains(count) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "width \(count) outside \(Self.limits)")
            }
            self = .limited(count)
        } else {
            guard try container.decode(String.self) == "default" else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "a width is a number or default")
            }
            self = .default
        }
    }

    /// A number, or `"default"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .default: try container.encode("default")
        case .limited(let count): try container.encode(count)
        }
    }

    /// The value `maxConcurrentOperationCount` takes.
    public var maxConcurrentOperationCount: Int {
        switch self {
        case .default: return OperationQueue.defaultMaxConcurrentOperationCount
        case .limited(let count): return count
        }
    }
}
