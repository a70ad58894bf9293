import Foundation

/// The `run-experiments` command: parses the command line, selects, runs, renders, exits.
public enum RunExperimentsCommand {
    /// Exit status for a usage error (BSD `EX_USAGE`).
    public static let usageErrorStatus: Int32 = 64

    /// Runs the command with this process's arguments and exits with its status.
    public static func main(registry: [Experiment]) -> Never {
        signal(SIGPIPE, SIG_IGN)
        exit(run(registry: registry, arguments: Array(CommandLine.arguments.dropFirst()), executable: ownExecutable))
    }

    /// Exit status when stdout's reader went away (128 + SIGPIPE, as a shell reports it).
    public static let outputClosedStatus: Int32 = 128 + SIGPIPE

    /// Runs the command and returns its exit status; results go to stdout, progress and errors to stderr.
    public static func run(registry: [Experiment], arguments: [String], executable: URL) -> Int32 {
        let command: Command
        do {
            command = try ArgumentParser.parse(arguments)
        } catch {
            return usageError(error)
        }
        switch command {
        case .help:
            write(Usage.help(registry: registry) + "\n")
            return 0
        case .version:
            write("run-experiments \(Usage.version)\n")
            return 0
        case .child(let request):
            return runChild(registry: registry, request: request)
        case .new(let name):
            do {
                let made = try PlaygroundStarter.make(name, in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), registry: registry)
                write(made.nextSteps)
                return 0
            } catch {
                return usageError(error)
            }
        case .describe(let name, let format):
            guard let experiment = Selection(registry: registry).experiment(named: name) else {
                let hint = Selection(registry: registry).suggestion(for: name).map { " Did you mean '\($0)'?" } ?? " See 'run-experiments list'."
                return usageError(UsageError("Unknown experiment '\(name)'.\(hint)"))
            }
            write(format == .json ? JSONWriter.write(JSONRenderer.parameters(of: experiment)) : TextRenderer(colour: false).parameters(of: experiment))
            return 0
        case .list(let options):
            let runner = Runner(executable: executable, timeScale: options.timeScale, profile: options.profile, cpus: options.cpus)
            let selected = options.filters.isEmpty ? registry : Selection(registry: registry).matching(filters: options.filters)
            let predictions = selected.map { ($0, runner.prediction($0)) }
            switch options.format {
            case .json:
                write(JSONWriter.write(JSONRenderer.list(predictions, host: runner.host, timeScale: options.timeScale, profile: options.profile)))
            case .text, .markdown:
                write(TextRenderer(colour: false).list(predictions, timeScale: options.timeScale))
            }
            return 0
        case .run(let options):
            let selected: [Experiment]
            do {
                selected = try select(options, from: registry)
            } catch {
                return usageError(error)
            }
            return runSelected(selected, options: options, executable: executable)
        }
    }

    /// Resolves names, `all` and filters to experiments, in registry order.
    static func select(_ options: RunOptions, from registry: [Experiment]) throws(UsageError) -> [Experiment] {
        let selection = Selection(registry: registry)
        for name in options.names where selection.experiment(named: name) == nil {
            let hint = selection.suggestion(for: name).map { " Did you mean '\($0)'?" } ?? " See 'run-experiments list'."
            throw UsageError("Unknown experiment '\(name)'.\(hint)")
        }
        let filtered = selection.matching(filters: options.filters)
        if !options.all, !options.filters.isEmpty, filtered.isEmpty {
            throw UsageError("No experiment matches \(options.filters.map { "'\($0)'" }.joined(separator: ", ")). See 'run-experiments list'.")
        }
        let selected = options.all ? registry : registry.filter { experiment in
            options.names.contains(experiment.name) || filtered.contains { $0.name == experiment.name }
        }
        try validateSettings(options.settings, for: selected)
        return selected
    }

    /// Every `--set` key must be one some selected experiment declares, and its value valid for each.
    static func validateSettings(_ settings: [String: String], for selected: [Experiment]) throws(UsageError) {
        let declared = Set(selected.flatMap { $0.parameters.map(\.key) })
        for key in settings.keys.sorted() where !declared.contains(key) {
            let valid = declared.isEmpty ? "the selected experiments take none" : "valid keys: " + declared.sorted().joined(separator: ", ")
            throw UsageError("No selected experiment has a parameter '\(key)' (\(valid)).")
        }
        for experiment in selected {
            _ = try experiment.parameters(overriding: settings)
        }
    }

    /// The report folder when none is given.
    public static let defaultReportDirectory = "Reports/latest"

    static func runSelected(_ selected: [Experiment], options: RunOptions, executable: URL) -> Int32 {
        let reportDirectory = URL(fileURLWithPath: options.reportDirectory ?? defaultReportDirectory)
        if options.writesReport {
            do {
                try FileManager.default.createDirectory(at: reportDirectory, withIntermediateDirectories: true)
                guard FileManager.default.isWritableFile(atPath: reportDirectory.path) else {
                    throw CocoaError(.fileWriteNoPermission)
                }
            } catch {
                return usageError(UsageError("The report folder '\(reportDirectory.path)' cannot be written."))
            }
        }
        var host = Host.current
        let runsExperiments = options.profile == PlatformProfile.nativeKind && (options.cpus ?? host.cpus) <= host.cpus
        if runsExperiments {
            Interruption.shared.install()
            host.timerJitter = TimerJitter.measure()
        }
        let runner = Runner(
            executable: executable, timeScale: options.timeScale, profile: options.profile, host: host,
            imagesDirectory: reportDirectory.appendingPathComponent("images"), settings: options.settings, cpus: options.cpus
        )
        if !runner.runsExperiments, runner.profile.kind == PlatformProfile.nativeKind {
            writeError("Predicting for \(runner.profile.cpus) CPUs: this machine has \(host.cpus), so nothing runs.\n")
        }
        let renderer = TextRenderer(colour: options.format == .text && isatty(STDOUT_FILENO) == 1 && ProcessInfo.processInfo.environment["NO_COLOR"] == nil)
        let predicted = selected.map(runner.predictions)
        let expected = predicted.map(\.chosen.total)
        var results: [ExperimentResult] = []
        for (index, experiment) in selected.enumerated() {
            var runs: [ExperimentResult] = []
            for run in 1...(runner.runsExperiments ? options.repeats : 1) {
                if runner.runsExperiments {
                    let left = expected[index...].reduce(0, +) * Double(options.repeats) - expected[index] * Double(run - 1)
                    let repetition = options.repeats > 1 ? " (run \(run)/\(options.repeats))" : ""
                    writeError("[\(index + 1)/\(selected.count)] \(experiment.name)\(repetition) · expected \(Format.seconds(expected[index], digits: 1)) · about \(Format.seconds(left, digits: 0)) left for the run\n")
                }
                runs.append(runner.result(of: experiment, predicted: predicted[index]))
                if Interruption.shared.signal != nil || StandardStreams.isOutputClosed { break }
            }
            let result = ExperimentResult.repeated(runs)
            // An interrupt or a reader gone away ends the run: only finished experiments count.
            if Interruption.shared.signal != nil || StandardStreams.isOutputClosed { break }
            results.append(result)
            if options.format == .text {
                write(renderer.section(result, position: index + 1, count: selected.count) + "\n")
            }
        }
        if StandardStreams.isOutputClosed { return outputClosedStatus }
        switch options.format {
        case .text:
            write(renderer.summary(results, host: runner.host, timeScale: options.timeScale, profile: options.profile))
        case .json:
            write(JSONWriter.write(JSONRenderer.document(results, host: runner.host, timeScale: options.timeScale, profile: options.profile)))
        case .markdown:
            write(MarkdownRenderer.render(results, host: runner.host, timeScale: options.timeScale, profile: options.profile))
        }
        if options.writesReport {
            do {
                try ReportWriter.write(results, host: runner.host, timeScale: options.timeScale, profile: options.profile, to: reportDirectory)
                writeError("Report written to \(reportDirectory.appendingPathComponent("index.html").path) (also report.md, report.json, timelines/)\n")
            } catch {
                writeError("Error: \(error)\n")
                return 1
            }
        }
        if let signal = Interruption.shared.signal {
            writeError("Interrupted by signal \(signal): \(results.count) of \(selected.count) experiments finished.\n")
            return 128 + signal
        }
        return results.allSatisfy { $0.verdict == .pass || $0.verdict == .predicted } ? 0 : 1
    }

    static func runChild(registry: [Experiment], request: ChildProcess.Request) -> Int32 {
        guard let experiment = Selection(registry: registry).experiment(named: request.experiment) else {
            return usageError(UsageError("Unknown experiment '\(request.experiment)'."))
        }
        do {
            try ChildProcess.runAsChild(experiment, request: request) { FileHandle.standardOutput.write($0) }
            return 0
        } catch {
            writeError("error: \(experiment.name) threw \(error)\n")
            return 1
        }
    }

    static func usageError(_ error: UsageError) -> Int32 {
        writeError("Error: \(error.message)\n\(Usage.errorHint)\n")
        return usageErrorStatus
    }

    /// This program's own file, to start as a child.
    static var ownExecutable: URL {
        #if os(Linux)
        return URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        return Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        #endif
    }

    static func write(_ text: String) {
        StandardStreams.write(text)
    }

    static func writeError(_ text: String) {
        StandardStreams.writeError(text)
    }
}
