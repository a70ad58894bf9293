import ExperimentKit
import ExperimentModel
import ExperimentResults
import ExperimentRunner

/// Output formats for results.
package enum OutputFormat: String, Sendable, CaseIterable {
    case text, json, markdown, junit
}

/// What the command line asks for.
package enum Command: Sendable, Equatable {
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
    /// Internal: rehearse experiments in this process and write their plans (see ``PlanChild``).
    case plans(PlanChild.Request)
    /// Run the selected experiments, then again on every save under `Experiments/` (see ``Watch``).
    case watch(RunOptions)
    /// Write a learner's own experiment, `Experiments/Playground/<UpperCamelName>.swift`, and register it.
    case new(name: String)
}

/// Options shared by running and listing.
package struct RunOptions: Sendable, Equatable {
    /// Names given on the command line, in order.
    package var names: [String] = []
    /// Whether `all` was given.
    package var all = false
    /// `--filter` values.
    package var filters: [String] = []
    package var timeScale = 1.0
    package var profile = PlatformProfile.nativeKind
    package var format = OutputFormat.text
    /// `--report-dir`: the run's report folder (default `Reports/latest`).
    package var reportDirectory: String?
    /// `--report`: write the report folder (implied by `--report-dir`).
    package var report = false
    /// `--repeat N`: run each experiment N times, each in its own child.
    package var repeats = 1
    /// `--set key=value`, for the selected experiments that declare the key.
    package var settings: [String: String] = [:]
    /// `--cpus N`: run pinned to N CPUs, and predict for N.
    package var cpus: Int?
    /// `--lines`: each printed line names the line of code that printed it.
    package var showsLines = false
    /// `--junit FILE`: also write the results as JUnit XML there.
    package var junitFile: String?
    /// `--compare FILE`: an earlier run's report.json to compare each measured total with.
    package var compareFile: String?
    /// `--compare-threshold P`: how far, as a fraction, a total may move from the earlier one.
    package var compareThreshold: Double?

    /// Whether the run writes report.md, report.json, timelines/ and index.html.
    package var writesReport: Bool {
        report || reportDirectory != nil
    }

    package init() {}
}

/// Reads the command line, swift-argument-parser style: options anywhere, `--name value` or `--name=value`.
package enum ArgumentParser {
    /// The accepted time scales, real seconds per article second.
    static let timeScaleRange = 0.05...10.0
    /// The accepted `--repeat` counts.
    static let repeatRange = 1...100

    /// Every option, in the order help lists them; the one place an option is stated.
    static var declarations: [OptionDeclaration] {
        howItRuns + whatItWrites + [
            OptionDeclaration(names: ["--version"], effect: .answer(.version), help: "Show the version."),
            OptionDeclaration(names: ["-h", "--help"], effect: .answer(.help), help: "Show help information."),
        ]
    }

    /// The options that choose what runs and how: the experiments, the time scale, the
    /// profile, the output format, the parameters, the CPUs, the repeats.
    private static var howItRuns: [OptionDeclaration] {
        [
            .text(
                "--filter", "TEXT", accepted: "a part of an experiment's name or title", needs: "a non-empty text",
                help: "Experiments whose name or title contains TEXT, ignoring case.", repeatable: true, forList: true
            ) { options, text in options.filters.append(text) },
            .number(
                "--time-scale", "X", what: "time scale", range: timeScaleRange,
                help: "Real seconds per article second.",
                defaultValue: RunOptions().timeScale, forList: true
            ) { $0.timeScale = $1 },
            .choice(
                "--profile", "P", what: "profile",
                help: "Platform to model; a profile other than this machine's predicts without running.",
                defaultValue: PlatformProfile.nativeKind
            ) { $0.profile = $1 },
            .choice(
                "--format", "F", what: "format", help: "Output format.", defaultValue: RunOptions().format,
                forDescribe: true
            ) { $0.format = $1 },
            .text(
                "--set", "KEY=VALUE", accepted: "KEY=VALUE; 'run-experiments describe NAME' lists an experiment's keys",
                needs: "KEY=VALUE, e.g. --set width=3",
                help: "Change a parameter of the selected experiments that have it; 'describe NAME' lists them.",
                repeatable: true
            ) { options, text throws(UsageError) in
                let (key, value) = try parseSetting(text)
                guard options.settings[key] == nil else {
                    throw UsageError("\(Format.echoed(key)) was set more than once.")
                }
                options.settings[key] = value
            },
            .whole(
                "--cpus", "N", what: "CPU count", range: 1...PlatformProfile.maximumWorkers,
                help: "Run pinned to N CPUs and predict for N; beyond this machine's CPUs, only predict.",
                defaultValue: nil, forList: true
            ) { $0.cpus = $1 },
            .whole(
                "--repeat", "N", what: "repeat count", range: repeatRange,
                help:
                    "Run each experiment N times, each in its own child; the summary shows the minimum, median and maximum, and how many passed.",
                defaultValue: RunOptions().repeats
            ) { $0.repeats = $1 },
        ]
    }

    /// The options that say what a run writes beside its output: the lines of code, the report
    /// folder, JUnit XML, the comparison with an earlier run.
    private static var whatItWrites: [OptionDeclaration] {
        [
            OptionDeclaration(
                names: ["--lines"], effect: .flag { $0.showsLines = true },
                help:
                    "Name, after each printed line, the line of code that printed it (a learner's own experiment always does)."
            ),
            OptionDeclaration(
                names: ["--report"], effect: .flag { $0.report = true },
                help:
                    "Also write the report folder: index.html, report.md, report.json, an SVG timeline per experiment and the image experiments' PNGs."
            ),
            .text(
                "--report-dir", "DIR", accepted: "a folder to write the report into", needs: "a folder",
                help:
                    "The report folder (implies --report), replaced whole when the run ends; files in it the tool did not write stay.",
                defaultValue: RunExperimentsCommand.defaultReportDirectory
            ) { $0.reportDirectory = $1 },
            .text(
                "--junit", "FILE", accepted: "a file to write JUnit XML into", needs: "a file",
                help:
                    "Also write the results as JUnit XML (a testcase per experiment) into FILE, for a CI system to show."
            ) { $0.junitFile = $1 },
            .text(
                "--compare", "FILE", accepted: "an earlier run's report.json", needs: "a report.json",
                help:
                    "Compare each timed experiment's measured total with an earlier run's report.json; a total that moved beyond the threshold fails."
            ) { $0.compareFile = $1 },
            .text(
                "--compare-threshold", "P", accepted: "a percentage from 0% to 1000%, e.g. 5%",
                needs: "a percentage, e.g. 5%",
                help: "How far a total may move from the earlier run's, never less than 10 ms.",
                defaultValue: "\(Int(EarlierRun.defaultThreshold.relative * 100))%"
            ) { options, text throws(UsageError) in
                guard let percent = Double(text.hasSuffix("%") ? String(text.dropLast()) : text), percent.isFinite,
                    (0...1000).contains(percent)
                else {
                    throw UsageError(
                        "\(Format.echoed(text)) is not a valid threshold (a percentage from 0% to 1000%, e.g. 5%).")
                }
                options.compareThreshold = percent / 100
            },
        ]
    }

    /// Parses the arguments after the executable's name.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Command {
        if arguments.first == ChildProcess.command {
            return try parseChild(Array(arguments.dropFirst()))
        }
        if arguments.first == PlanChild.command {
            guard arguments.count == 2, let request = PlanChild.Request(argument: arguments[1]) else {
                throw UsageError(
                    "'\(PlanChild.command)' is internal: \(PlanChild.command) REQUEST, the experiments to rehearse as JSON"
                )
            }
            return .plans(request)
        }
        let parsed = try read(arguments)
        if let answer = parsed.answer { return answer }
        return try command(parsed)
    }

    /// The command line read once: the options applied, the words that are not options, which
    /// options were given, and the answer an option such as `--help` asks for instead of a run.
    struct ReadArguments {
        var options = RunOptions()
        var positionals: [String] = []
        var given: [OptionDeclaration] = []
        var answer: Command?
    }

    /// Reads every argument: an option (`--name value` or `--name=value`) is applied to the
    /// options, anything else kept as a positional word.
    static func read(_ arguments: [String]) throws(UsageError) -> ReadArguments {
        let declared = declarations
        let names = declared.flatMap(\.names)
        var read = ReadArguments()
        var seenOptions: Set<String> = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                read.positionals.append(argument)
                continue
            }
            let (name, inlineValue) = splitInlineValue(argument)
            guard let option = declared.first(where: { $0.names.contains(name) }) else {
                let hint =
                    closest(to: name, among: names, allowed: { max(1, $0.count / 4) }).map { " Did you mean '\($0)'?" }
                    ?? ""
                throw UsageError("Unknown option \(Format.echoed(name)).\(hint)")
            }
            let declaration: OptionDeclaration.ValueDeclaration
            switch option.effect {
            case .answer(let command):
                guard inlineValue == nil else { throw UsageError("'\(name)' takes no value.") }
                read.answer = command
                return read
            case .flag(let apply):
                guard inlineValue == nil else { throw UsageError("'\(name)' takes no value.") }
                apply(&read.options)
                read.given.append(option)
                continue
            case .value(let value):
                declaration = value
            }
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !names.contains(arguments[index]) {
                // An option's name is never another's value (`--report-dir --report` is a missing folder).
                value = arguments[index]
                index += 1
            } else {
                throw UsageError("Missing value for '\(option.name)' (\(declaration.accepted)).")
            }
            if !option.repeatable, !seenOptions.insert(option.name).inserted {
                throw UsageError("'\(option.name)' was given more than once.")
            }
            try declaration.apply(value, &read.options)
            read.given.append(option)
        }
        return read
    }

    /// `--name=value` as the name and the value; an argument without `=` has no inline value.
    private static func splitInlineValue(_ argument: String) -> (name: String, value: String?) {
        guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
        return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
    }

    /// The subcommand the positional words name, with the options it takes.
    private static func command(_ read: ReadArguments) throws(UsageError) -> Command {
        let positionals = read.positionals
        switch positionals.first {
        case "help":
            return .help
        case "describe":
            guard positionals.count == 2 else {
                throw UsageError("'describe' takes one experiment name.")
            }
            try refuse(read.given, by: "describe", takes: \.forDescribe)
            try refuseJUnit(read.options, by: "describe")
            return .describe(name: positionals[1], format: read.options.format)
        case "new":
            guard positionals.count == 2 else {
                throw UsageError("'new' takes one name for your experiment, e.g. 'run-experiments new my-queue'.")
            }
            try refuse(read.given, by: "new", takes: { _ in false })
            return .new(name: positionals[1])
        case "watch":
            try refuse(read.given, by: "watch", takes: { watchOptions.contains($0.name) })
            var options = try selection(Array(positionals.dropFirst()), options: read.options)
            // Each round writes the report folder, which an open page follows.
            options.report = true
            return .watch(options)
        case "list":
            if positionals.count > 1 {
                throw UsageError("'list' takes no experiment names; got \(Format.echoed(positionals[1])).")
            }
            try refuse(read.given, by: "list", takes: \.forList)
            try refuseJUnit(read.options, by: "list")
            return .list(read.options)
        default:
            return .run(try selection(positionals, options: read.options))
        }
    }

    /// The options with the experiments the words select: `all`, or names, each once.
    private static func selection(_ positionals: [String], options: RunOptions) throws(UsageError) -> RunOptions {
        var options = options
        for name in positionals {
            if name == "all" {
                options.all = true
            } else if options.names.contains(name) {
                throw UsageError("The experiment \(Format.echoed(name)) was named twice.")
            } else {
                options.names.append(name)
            }
        }
        if options.all, !options.names.isEmpty {
            throw UsageError(
                "'all' already selects every experiment; drop \(Format.echoed(options.names[0])) or 'all'.")
        }
        if !options.all, options.names.isEmpty, options.filters.isEmpty {
            throw UsageError("No experiment given. Name one or more, or say 'all'.")
        }
        if options.compareThreshold != nil, options.compareFile == nil {
            throw UsageError("'--compare-threshold' goes with '--compare FILE', the earlier run to compare with.")
        }
        return options
    }

    /// The options `watch` passes on to each round's run; the others are a single run's.
    static let watchOptions: Set<String> = [
        "--filter", "--time-scale", "--set", "--cpus", "--lines", "--report", "--report-dir",
    ]

    /// JUnit XML reports a run's verdicts: `list` and `describe` have none.
    private static func refuseJUnit(_ options: RunOptions, by subcommand: String) throws(UsageError) {
        guard options.format == .junit else { return }
        throw UsageError(
            "'\(subcommand)' has no verdicts to write as JUnit; '--format junit' is for a run (formats here: text, json, markdown)."
        )
    }

    /// Refuses the first option given that `subcommand` does not take: it would ignore it.
    private static func refuse(_ given: [OptionDeclaration], by subcommand: String, takes: (OptionDeclaration) -> Bool)
        throws(UsageError)
    {
        guard let option = given.first(where: { !takes($0) }) else { return }
        let taken = declarations.filter(takes).map(\.name)
        throw UsageError(
            "'\(subcommand)' does not take '\(option.name)' (\(taken.isEmpty ? "it takes no options" : "it takes " + taken.joined(separator: ", ")))."
        )
    }

    private static func parseChild(_ arguments: [String]) throws(UsageError) -> Command {
        guard arguments.count == 1, let request = ChildProcess.Request(argument: arguments[0]) else {
            throw UsageError(
                "'\(ChildProcess.command)' is internal: \(ChildProcess.command) REQUEST, the runner's request as JSON")
        }
        return .child(request)
    }

    /// `key=value`, split at the first `=`.
    static func parseSetting(_ text: String) throws(UsageError) -> (String, String) {
        guard let equals = text.firstIndex(of: "="), equals != text.startIndex else {
            throw UsageError("'--set' takes KEY=VALUE, e.g. --set width=3; got \(Format.echoed(text)).")
        }
        return (String(text[..<equals]), String(text[text.index(after: equals)...]))
    }
}
