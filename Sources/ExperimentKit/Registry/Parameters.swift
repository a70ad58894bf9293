/// A knob an experiment offers, with the article's value as its default (`--set key=value`).
///
/// The same key means the same thing everywhere: `count` (operations), `sleep` (article seconds
/// each operation sleeps), `width` (`maxConcurrentOperationCount`, or `default`), `qos`,
/// `cancel-at` (article seconds), `pairs` (pairs summed), `latency.<image>` (a download's).
public struct ParameterSpec: Sendable, Equatable {
    /// What values the knob takes.
    public enum Kind: Sendable, Equatable {
        /// Article seconds in a range.
        case seconds(ClosedRange<Double>)
        /// A whole number in a range.
        case count(ClosedRange<Int>)
        /// A queue's width: 1–64, or `default` for the queue's own.
        case width
        /// A quality-of-service class name.
        case serviceClass
    }

    public var key: String
    public var summary: String
    /// The value the experiment runs with unless told otherwise, as written on the command line:
    /// the article's, or a stand-in for it (e.g. an instant moved clear of a race).
    public var defaultValue: String
    /// The article's own value, in canonical spelling; the same as `defaultValue` unless the
    /// default is a stand-in. Setting it with `--set` is running the article's setting.
    public var articleValue: String
    public var kind: Kind

    public init(key: String, summary: String, defaultValue: String, articleValue: String? = nil, kind: Kind) {
        self.key = key
        self.summary = summary
        self.defaultValue = defaultValue
        self.articleValue = articleValue ?? defaultValue
        self.kind = kind
    }

    /// Whether `value` (canonical) is the article's setting of this knob: its own value, or the
    /// default that stands in for it.
    public func isArticle(_ value: String) -> Bool {
        value == articleValue || value == defaultValue
    }

    /// The accepted values, as a usage error or `describe` states them.
    public var accepted: String {
        switch kind {
        case .seconds(let range): return "article seconds from \(Format.number(range.lowerBound)) to \(Format.number(range.upperBound))"
        case .count(let range): return "a whole number from \(range.lowerBound) to \(range.upperBound)"
        case .width: return "1 to 64, or default"
        case .serviceClass: return ServiceClass.allCases.map(\.rawValue).joined(separator: ", ")
        }
    }

    /// The value in its canonical spelling, or a usage error naming what is accepted.
    public func validate(_ text: String) throws(UsageError) -> String {
        let valid: Bool
        switch kind {
        case .seconds(let range): valid = Double(text).map { $0.isFinite && range.contains($0) } ?? false
        case .count(let range): valid = Int(text).map(range.contains) ?? false
        case .width: valid = text == "default" || (Int(text).map((1...64).contains) ?? false)
        case .serviceClass: valid = ServiceClass(rawValue: text) != nil
        }
        guard valid else { throw UsageError("'\(text)' is not a valid value for '\(key)': \(accepted).") }
        if case .seconds = kind, let number = Double(text) { return Format.number(number) }
        return text
    }
}

/// The values an experiment runs with: its defaults, overridden by `--set`.
public struct Parameters: Sendable, Equatable {
    /// Key and value, in the order the experiment declares its parameters.
    public private(set) var values: [(key: String, value: String)]
    /// Whether every value is the article's own (or the default standing in for it), so the
    /// article's figure applies to the run.
    public private(set) var isArticleSetting: Bool
    /// The values that stand in for the article's own (key, value used, the article's value).
    public private(set) var standIns: [(key: String, value: String, article: String)]

    /// The defaults of `specs`, with `overrides` (already validated) applied where a key matches.
    public init(_ specs: [ParameterSpec], overrides: [String: String] = [:]) {
        values = specs.map { ($0.key, overrides[$0.key] ?? $0.defaultValue) }
        isArticleSetting = specs.allSatisfy { spec in overrides[spec.key].map(spec.isArticle) ?? true }
        standIns = specs.compactMap { spec in
            let value = overrides[spec.key] ?? spec.defaultValue
            return value != spec.articleValue && value == spec.defaultValue ? (spec.key, value, spec.articleValue) : nil
        }
    }

    public static func == (lhs: Parameters, rhs: Parameters) -> Bool {
        lhs.values.map(\.key) == rhs.values.map(\.key) && lhs.values.map(\.value) == rhs.values.map(\.value)
    }

    public func text(_ key: String) -> String {
        guard let value = values.first(where: { $0.key == key })?.value else {
            preconditionFailure("the experiment reads '\(key)', which it does not declare")
        }
        return value
    }

    public func seconds(_ key: String) -> Double {
        Double(text(key))!
    }

    public func count(_ key: String) -> Int {
        Int(text(key))!
    }

    /// A `maxConcurrentOperationCount`, nil for the queue's default.
    public func width(_ key: String) -> Int? {
        Int(text(key))
    }

    public func serviceClass(_ key: String) -> ServiceClass {
        ServiceClass(rawValue: text(key))!
    }
}
