/// Output formats for results.
public enum OutputFormat: String, Sendable, CaseIterable {
    case text, json, markdown
}

/// What the command line asks for.
public enum Command: Sendable, Equatable {
    /// Run (or, under a foreign profile, predict) the selected experiments.
    case run(RunOptions)
    /// List the registered experiments with their predictions.
    case list(RunOptions)
    case help
    case version
    /// Show an experiment's parameters, defaults and ranges.
    case describe(name: String, format: OutputFormat)
    /// Internal: run one experiment in this process and stream its timeline (see ``ChildProcess``).
    case child(ChildProcess.Request)
    /// Write a learner's own experiment, `Experiments/Playground/<UpperCamelName>.swift`, and register it.
    case new(name: String)
}

/// Options shared by running and listing.
public struct RunOptions: Sendable, Equatable {
    /// Names given on the command line, in order.
    public var names: [String] = []
    /// Whether `all` was given.
    public var all = false
    /// `--filter` values.
    public var filters: [String] = []
    public var timeScale = 1.0
    public var profile = PlatformProfile.nativeKind
    public var format = OutputFormat.text
    /// `--report-dir`: the run's report folder (default `Reports/latest`).
    public var reportDirectory: String?
    /// `--report`: write the report folder (implied by `--report-dir`).
    public var report = false
    /// `--repeat N`: run each experiment N times, each in its own child.
    public var repeats = 1
    /// `--set key=value`, for the selected experiments that declare the key.
    public var settings: [String: String] = [:]
    /// `--cpus N`: run pinned to N CPUs, and predict for N.
    public var cpus: Int?

    /// Whether the run writes report.md, report.json, timelines/ and index.html.
    public var writesReport: Bool {
        report || reportDirectory != nil
    }

    public init() {}
}

/// A command line that cannot be obeyed; printed as `Error: …` with the usage, exit 64.
public struct UsageError: Error, Equatable, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}

/// Reads the command line, swift-argument-parser style: options anywhere, `--name value` or `--name=value`.
public enum ArgumentParser {
    /// The accepted time scales, real seconds per article second.
    public static let timeScaleRange = 0.05...10.0
    /// The accepted `--repeat` counts.
    public static let repeatRange = 1...100

    /// The options that take no value; like an option's name, never taken as another's value
    /// (`--report-dir --report` is a missing folder, not a folder named `--report`).
    static let flags = ["--report", "--help", "-h", "--version"]

    /// Parses the arguments after the executable's name.
    public static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        if arguments.first == ChildProcess.command {
            return try parseChild(Array(arguments.dropFirst()))
        }
        var options = RunOptions()
        var positionals: [String] = []
        var seenOptions: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "-h" || argument == "--help" { return .help }
            if argument == "--version" { return .version }
            if argument == "--report" {
                options.report = true
                continue
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = Option(rawValue: name) else {
                let hint = closest(to: name, among: Option.allCases.map(\.rawValue) + flags, allowed: { max(1, $0.count / 4) })
                    .map { " Did you mean '\($0)'?" } ?? ""
                throw UsageError("Unknown option '\(Format.abbreviated(name))'.\(hint)")
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !(Option.allCases.map(\.rawValue) + flags).contains(arguments[index]) {
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("Missing value for '\(option.rawValue)' \(option.valueHint).")
            }
            if option != .filter, option != .set, !seenOptions.insert(option.rawValue).inserted {
                throw UsageError("'\(option.rawValue)' was given more than once.")
            }
            try option.apply(value, to: &options)
        }

        switch positionals.first {
        case "help":
            return .help
        case "describe":
            guard positionals.count == 2 else {
                throw UsageError("'describe' takes one experiment name.")
            }
            return .describe(name: positionals[1], format: options.format)
        case "new":
            guard positionals.count == 2 else {
                throw UsageError("'new' takes one name for your experiment, e.g. 'run-experiments new my-queue'.")
            }
            return .new(name: positionals[1])
        case "list":
            if positionals.count > 1 {
                throw UsageError("'list' takes no experiment names; got '\(positionals[1])'.")
            }
            return .list(options)
        default:
            for name in positionals {
                if name == "all" {
                    options.all = true
                } else if options.names.contains(name) {
                    throw UsageError("The experiment '\(name)' was named twice.")
                } else {
                    options.names.append(name)
                }
            }
            if options.all, !options.names.isEmpty {
                throw UsageError("'all' already selects every experiment; drop '\(options.names[0])' or 'all'.")
            }
            if !options.all, options.names.isEmpty, options.filters.isEmpty {
                throw UsageError("No experiment given. Name one or more, or say 'all'.")
            }
            return .run(options)
        }
    }

    private static func parseChild(_ arguments: [String]) throws(UsageError) -> Command {
        guard arguments.count == 1, let request = ChildProcess.Request(argument: arguments[0]) else {
            throw UsageError("'\(ChildProcess.command)' is internal: \(ChildProcess.command) REQUEST, the runner's request as JSON")
        }
        return .child(request)
    }

    /// `key=value`, split at the first `=`.
    static func parseSetting(_ text: String) throws(UsageError) -> (String, String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError("'--set' takes KEY=VALUE, e.g. --set width=3; got '\(text)'.")
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }

    static func parseTimeScale(_ text: String) throws(UsageError) -> Double {
        guard let value = Double(text), value.isFinite else {
            throw UsageError("'\(text)' is not a valid time scale: give a number from 0.05 to 10.")
        }
        guard timeScaleRange.contains(value) else {
            throw UsageError("Time scale \(text) is outside the accepted range 0.05–10.")
        }
        return value
    }
}

/// The options the command line accepts, with their parsing.
enum Option: String, CaseIterable {
    case filter = "--filter"
    case timeScale = "--time-scale"
    case profile = "--profile"
    case format = "--format"
    case reportDirectory = "--report-dir"
    case repeats = "--repeat"
    case set = "--set"
    case cpus = "--cpus"

    var valueHint: String {
        switch self {
        case .filter: return "(a part of an experiment's name or title)"
        case .timeScale: return "(a number from 0.05 to 10)"
        case .profile: return "(values: \(PlatformProfile.Kind.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .format: return "(values: \(OutputFormat.allCases.map(\.rawValue).joined(separator: ", ")))"
        case .reportDirectory: return "(a folder to write the report into)"
        case .repeats: return "(a whole number from 1 to \(ArgumentParser.repeatRange.upperBound))"
        case .set: return "(KEY=VALUE; 'run-experiments describe NAME' lists an experiment's keys)"
        case .cpus: return "(a whole number from 1 to \(PlatformProfile.maximumWorkers))"
        }
    }

    func apply(_ value: String, to options: inout RunOptions) throws(UsageError) {
        switch self {
        case .filter:
            guard !value.isEmpty else { throw UsageError("'--filter' needs a non-empty text.") }
            options.filters.append(value)
        case .timeScale:
            options.timeScale = try ArgumentParser.parseTimeScale(value)
        case .profile:
            guard let profile = PlatformProfile.Kind(rawValue: value) else {
                throw UsageError("Unknown profile '\(value)' \(valueHint).")
            }
            options.profile = profile
        case .format:
            guard let format = OutputFormat(rawValue: value) else {
                throw UsageError("Unknown format '\(value)' \(valueHint).")
            }
            options.format = format
        case .reportDirectory:
            guard !value.isEmpty else { throw UsageError("'--report-dir' needs a folder.") }
            options.reportDirectory = value
        case .repeats:
            guard let count = Int(value), ArgumentParser.repeatRange.contains(count) else {
                throw UsageError("'\(value)' is not a valid repeat count \(valueHint).")
            }
            options.repeats = count
        case .set:
            let (key, setting) = try ArgumentParser.parseSetting(value)
            guard options.settings[key] == nil else { throw UsageError("'\(key)' was set more than once.") }
            options.settings[key] = setting
        case .cpus:
            guard let count = Int(value), (1...PlatformProfile.maximumWorkers).contains(count) else {
                throw UsageError("'\(value)' is not a valid CPU count \(valueHint).")
            }
            options.cpus = count
        }
    }
}
