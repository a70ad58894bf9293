import ExperimentKit
import ExperimentRunner

/// One command-line option, declared once: its names, the value it takes, its help, and how that
/// value is checked and stored. The parser, `--help`, the usage line and every error about the
/// option come from this declaration (swift-argument-parser's `@Option(help:)`, by hand).
struct OptionDeclaration {
    /// What giving the option does.
    enum Effect {
        /// Takes a value, checks it and stores it in the options.
        case value(ValueDeclaration)
        /// Takes no value; changes the options.
        case flag((inout RunOptions) -> Void)
        /// Answers at once, whatever else the command line says (`--help`, `--version`).
        case answer(Command)
    }

    /// An option's value: how help and usage name it, what it accepts, how it is stored.
    struct ValueDeclaration {
        /// The placeholder in help, e.g. `X` in `--time-scale X`.
        var placeholder: String
        /// The placeholder in the usage line: the choices when there are a few (`linux|apple`).
        var usagePlaceholder: String
        /// What the value may be, in the parentheses after a missing or wrong value.
        var accepted: String
        /// Whether help states ``accepted`` (a range or the choices), or the help says it already.
        var acceptedInHelp: Bool
        /// Checks `text` and stores it, or says what is wrong with it.
        var apply: (String, inout RunOptions) throws(UsageError) -> Void
    }

    /// `--name`, and its short form first when it has one (`-h`, `--help`).
    var names: [String]
    var effect: Effect
    /// One sentence or two; help adds what is accepted, `repeatable` and the default.
    var help: String
    /// The default, as help shows it; nil when there is none worth stating.
    var defaultValue: String?
    /// Whether it may be given more than once, each adding to the others.
    var repeatable = false
    /// Whether `list` takes it too (the usage line of `list` shows these).
    var forList = false
    /// Whether `describe` takes it too.
    var forDescribe = false

    var name: String { names[names.count - 1] }

    /// The command it answers with, for `--help` and `--version`.
    var answer: Command? {
        if case .answer(let command) = effect { return command }
        return nil
    }

    var value: ValueDeclaration? {
        if case .value(let value) = effect { return value }
        return nil
    }

    /// How help lists it: `--time-scale X`, `-h, --help`.
    var helpLabel: String {
        names.joined(separator: ", ") + (value.map { " \($0.placeholder)" } ?? "")
    }

    /// How the usage line shows it: `[--profile linux|apple]`, `[--filter TEXT ...]`.
    var usage: String {
        "[\(name)\(value.map { " \($0.usagePlaceholder)" } ?? "")\(repeatable ? " ..." : "")]"
    }

    /// The help sentence with its parenthesis: `(a number from 0.05 to 10; default: 1)`.
    var fullHelp: String {
        let notes = [
            value.flatMap { $0.acceptedInHelp ? $0.accepted : nil }, repeatable ? "repeatable" : nil,
            defaultValue.map { "default: \($0)" },
        ]
        .compactMap { $0 }
        return notes.isEmpty ? help : "\(help) (\(notes.joined(separator: "; ")))"
    }
}

extension OptionDeclaration {
    /// A number in `range`; `what` names it in an error (`'20' is not a valid time scale (…)`).
    static func number(
        _ name: String, _ placeholder: String, what: String, range: ClosedRange<Double>, help: String,
        defaultValue: Double,
        forList: Bool = false, store: @escaping (inout RunOptions, Double) -> Void
    ) -> OptionDeclaration {
        ranged(
            name, placeholder, what: what, range: range, accepted: Accepted.number(range),
            parse: { Double($0).flatMap { $0.isFinite ? $0 : nil } },
            help: help, defaultValue: defaultValue.decimalText, forList: forList, store: store
        )
    }

    /// A whole number in `range`.
    static func whole(
        _ name: String, _ placeholder: String, what: String, range: ClosedRange<Int>, help: String, defaultValue: Int?,
        forList: Bool = false, store: @escaping (inout RunOptions, Int) -> Void
    ) -> OptionDeclaration {
        ranged(
            name, placeholder, what: what, range: range, accepted: Accepted.whole(range), parse: { Int($0) },
            help: help, defaultValue: defaultValue.map(String.init), forList: forList, store: store
        )
    }

    private static func ranged<Value: Comparable>(
        _ name: String, _ placeholder: String, what: String, range: ClosedRange<Value>, accepted: String,
        parse: @escaping (String) -> Value?,
        help: String, defaultValue: String?, forList: Bool, store: @escaping (inout RunOptions, Value) -> Void
    ) -> OptionDeclaration {
        OptionDeclaration(
            names: [name],
            effect: .value(
                ValueDeclaration(
                    placeholder: placeholder, usagePlaceholder: placeholder, accepted: accepted, acceptedInHelp: true
                ) { text, options throws(UsageError) in
                    guard let value = parse(text), range.contains(value) else {
                        throw UsageError("\(Format.echoed(text)) is not a valid \(what) (\(accepted)).")
                    }
                    store(&options, value)
                }),
            help: help, defaultValue: defaultValue, forList: forList
        )
    }

    /// One of an enumeration's cases, by raw value.
    static func choice<Value: RawRepresentable & CaseIterable>(
        _ name: String, _ placeholder: String, what: String, help: String, defaultValue: Value,
        forDescribe: Bool = false,
        store: @escaping (inout RunOptions, Value) -> Void
    ) -> OptionDeclaration where Value.RawValue == String {
        let values = Value.allCases.map(\.rawValue)
        let accepted = "values: " + values.joined(separator: ", ")
        return OptionDeclaration(
            names: [name],
            effect: .value(
                ValueDeclaration(
                    placeholder: placeholder, usagePlaceholder: values.joined(separator: "|"), accepted: accepted,
                    acceptedInHelp: true
                ) { text, options throws(UsageError) in
                    guard let value = Value(rawValue: text) else {
                        throw UsageError("Unknown \(what) \(Format.echoed(text)) (\(accepted)).")
                    }
                    store(&options, value)
                }),
            help: help, defaultValue: defaultValue.rawValue, forList: true, forDescribe: forDescribe
        )
    }

    /// A text that may not be empty; `needs` says what it is in the error for an empty one.
    static func text(
        _ name: String, _ placeholder: String, accepted: String, needs: String, help: String,
        defaultValue: String? = nil,
        repeatable: Bool = false, forList: Bool = false,
        store: @escaping (inout RunOptions, String) throws(UsageError) -> Void
    ) -> OptionDeclaration {
        OptionDeclaration(
            names: [name],
            effect: .value(
                ValueDeclaration(
                    placeholder: placeholder, usagePlaceholder: placeholder, accepted: accepted, acceptedInHelp: false
                ) { text, options throws(UsageError) in
                    guard !text.isEmpty else { throw UsageError("'\(name)' needs \(needs).") }
                    try store(&options, text)
                }),
            help: help, defaultValue: defaultValue, repeatable: repeatable, forList: forList
        )
    }
}
