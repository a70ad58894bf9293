import ExperimentModel
import Foundation

@testable import ExperimentKit

/// A run's `--format json` document read back: what the command line reported of each
/// experiment, so that tests asserting on one experiment's run can read it from one run of the
/// whole registry instead of starting a child of their own. (Here, not in TestSupport: it builds
/// the measured values with their memberwise initialisers, which only a `@testable` import reaches.)
public struct ReportedRun: Decodable, Sendable {
    public var timeScale: Double
    public var experiments: [Experiment]

    /// One experiment as the document reports it: its verdict and checks, and its measured
    /// timeline, printed lines, outcome and CPU costs as a ``MeasuredRun`` (numbers to the
    /// microsecond, as JSON gives them; the outcome's keys in no particular order).
    public struct Experiment: Decodable, Sendable {
        public var name: String
        public var verdict: String
        public var reason: String?
        public var checks: [Check]
        /// The race's possible outcomes and the one that happened; nil for any other kind.
        public var race: Race?
        public var deltaSeconds: Double?
        public var measurement: MeasuredRun?

        public struct Race: Decodable, Sendable {
            public var possible: [String]
            public var happened: String?
        }

        enum Keys: String, CodingKey {
            case name, verdict, reason, checks, race, deltaSeconds, measuredSeconds, enqueueSeconds, operations, output,
                outcome, cpuCosts
        }

        /// A row's `suspensions`, nil for none, as a measurement holds them.
        static func stretches(_ values: [JSONValue]) throws -> [ClosedRange<Double>]? {
            let stretches = try values.map { value in
                guard case .object(let fields) = value else {
                    throw DecodingError.dataCorrupted(
                        DecodingError.Context(codingPath: [], debugDescription: "a suspension that is not an object"))
                }
                let stretch = Outcome(fields)
                return try stretch.required(
                    "startSeconds", \.numberValue)...stretch.required("endSeconds", \.numberValue)
            }
            return stretches.isEmpty ? nil : stretches
        }

        public init(from decoder: any Decoder) throws {
            let values = try decoder.container(keyedBy: Keys.self)
            name = try values.decode(String.self, forKey: .name)
            verdict = try values.decode(String.self, forKey: .verdict)
            reason = try values.decodeIfPresent(String.self, forKey: .reason)
            checks = try values.decode([PlainJSON].self, forKey: .checks).map {
                let check = $0.outcome
                let description: String = try check.required("description", \.stringValue)
                return try check.required("note", \.boolValue)
                    ? Check.note(description) : Check(description, passed: try check.required("passed", \.boolValue))
            }
            race = try values.decodeIfPresent(Race.self, forKey: .race)
            deltaSeconds = try values.decodeIfPresent(Double.self, forKey: .deltaSeconds)
            guard let total = try values.decodeIfPresent(Double.self, forKey: .measuredSeconds) else { return }
            measurement = MeasuredRun(
                totalSeconds: total,
                enqueueSeconds: try values.decodeIfPresent(Double.self, forKey: .enqueueSeconds),
                operations: try values.decode([PlainJSON].self, forKey: .operations).map {
                    let row = $0.outcome
                    return OperationSpan(
                        label: try row.required("label", \.stringValue),
                        start: try row.required("startSeconds", \.numberValue),
                        end: try row.required("endSeconds", \.numberValue),
                        thread: Int(try row.required("thread", \.numberValue)),
                        cancelled: try row.required("cancelled", \.boolValue),
                        finished: try row.required("finished", \.boolValue),
                        kind: row["kind"]?.stringValue.flatMap(OperationSpan.Kind.init(rawValue:)),
                        suspensions: try Self.stretches(row.required("suspensions", \.arrayValue))
                    )
                },
                output: try values.decode([PlainJSON].self, forKey: .output).map {
                    let line = $0.outcome
                    return PrintedLine(
                        at: try line.required("atSeconds", \.numberValue),
                        text: try line.required("text", \.stringValue),
                        thread: Int(try line.required("thread", \.numberValue)))
                },
                outcome: try values.decode(PlainJSON.self, forKey: .outcome).outcome,
                cpuCosts: try values.decode([PlainJSON].self, forKey: .cpuCosts).map {
                    let cost = $0.outcome
                    let source = try cost.required("source") { $0.stringValue.flatMap(CPUCost.Source.init(rawValue:)) }
                    return CPUCost(
                        label: try cost.required("label", \.stringValue),
                        seconds: try cost.required("seconds", \.numberValue), source: source)
                }
            )
        }
    }

    /// The document read from `json`.
    public static func read(_ json: String) throws -> ReportedRun {
        try JSONDecoder().decode(ReportedRun.self, from: Data(json.utf8))
    }

    /// The experiment named `name`, if the run reported it.
    public func experiment(_ name: String) -> Experiment? {
        experiments.first { $0.name == name }
    }
}

/// Any JSON value as the document wrote it (`JSONValue`'s own `Codable` form is Swift's, not
/// plain JSON).
struct PlainJSON: Decodable {
    var value: JSONValue

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let object = try? decoder.container(keyedBy: Key.self) {
            value = .object(
                try object.allKeys.map {
                    Outcome.Field($0.stringValue, try object.decode(PlainJSON.self, forKey: $0).value)
                })
            return
        }
        if var array = try? decoder.unkeyedContainer() {
            var items: [JSONValue] = []
            while !array.isAtEnd { items.append(try array.decode(PlainJSON.self).value) }
            value = .array(items)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let bool = try? single.decode(Bool.self) {
            value = .bool(bool)
        } else if let number = try? single.decode(Double.self) {
            value = .number(number)
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    /// The fields of an object; none for anything else.
    var outcome: Outcome {
        guard case .object(let fields) = value else { return Outcome() }
        return Outcome(fields)
    }
}

extension Outcome {
    /// The value under `key` as `read` takes it; an error naming the key when it is missing or
    /// of another type.
    func required<Value>(_ key: String, _ read: (JSONValue) -> Value?) throws -> Value {
        guard let value = self[key].flatMap(read) else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: [], debugDescription: "no '\(key)' of the expected type"))
        }
        return value
    }
}

extension JSONValue {
    /// The Boolean, when this is one.
    var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }
}
