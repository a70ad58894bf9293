import ExperimentKit
import ExperimentModel
import ExperimentReports
import ExperimentResults
import ExperimentRunner
import Foundation
import ReportFiles

/// The `run-experiments` command: parses the command line, selects, runs, renders, exits.
package enum RunExperimentsCommand {
    /// Exit status for a usage error (BSD `EX_USAGE`).
    package static let usageErrorStatus: Int32 = 64

    /// Runs the command with this process's arguments and exits with its status.
    package static func main(registry: [Experiment]) -> Never {
        signal(SIGPIPE, SIG_IGN)
        exit(run(registry: registry, arguments: Array(CommandLine.arguments.dropFirst()), executable: ownExecutable))
    }

    /// Exit status when stdout's reader went away (128 + SIGPIPE, as a shell reports it).
    package static let outputClosedStatus: Int32 = 128 + SIGPIPE

    /// Exit status when the results or the report could not be written (BSD `EX_IOERR`): a full
    /// disk, `> /dev/full`, a report folder that changed under the run.
    package static let writeFailedStatus: Int32 = 74

    /// Runs the command and returns its exit status; results go to stdout, progress and errors to
    /// stderr. A reader that went away ends it quietly with ``outputClosedStatus``; any other
    /// failed write to stdout is an error, with ``writeFailedStatus``.
    package static func run(registry: [Experiment], arguments: [String], executable: URL) -> Int32 {
        let status = execute(registry: registry, arguments: arguments, executable: executable)
        switch StandardStreams.outputState {
        case .open:
            return status
        case .closed:
            // Quiet, but an error or a signal still tells more than the pipe's end.
            return status == 0 || status == 1 ? outputClosedStatus : status
        case .failed(let code):
            writeError("Error: Cannot write the results to standard output: \(AtomicFile.systemReason(code)).\n")
            return writeFailedStatus
        }
    }

    private static func execute(registry: [Experiment], arguments: [String], executable: URL) -> Int32 {
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
        case .plans(let request):
            return readPlans(registry: registry, request: request)
        case .new(let name):
            do {
                let made = try PlaygroundStarter.make(
                    name, in: URL(fileURLWithPath: FileManager.default.currentDirectoryPath), registry: registry)
                write(made.nextSteps)
                return 0
            } catch {
                return usageError(error)
            }
        case .watch(let options):
            return watch(options, registry: registry, executable: executable)
        case .describe(let name, let format):
            return describe(name, format: format, registry: registry, executable: executable)
        case .list(let options):
            return list(options, registry: registry, executable: executable)
        case .run(let options):
            let selected: (experiments: [Experiment], settings: ParameterSettings)
            do {
                selected = try select(options, from: registry)
            } catch {
                return usageError(error)
            }
            return runSelected(
                selected.experiments, settings: selected.settings, options: options, executable: executable)
        }
    }

    /// `watch`: the selection checked once, as a run checks it, then the rounds (see ``Watch``).
    private static func watch(_ options: RunOptions, registry: [Experiment], executable: URL) -> Int32 {
        do {
            _ = try select(options, from: registry)
        } catch {
            return usageError(error)
        }
        guard let root = Watch.packageRoot(of: executable) else {
            return usageError(
                UsageError(
                    "'watch' rebuilds the package this executable was built in, and \(executable.path) lies in none: run it with 'swift run run-experiments watch …' from the package's folder."
                ))
        }
        return Watch(root: root, executable: executable, options: options, onTerminal: isatty(STDOUT_FILENO) == 1).run()
    }

    /// `describe NAME`: its parameters and its code, with the declarations its plan adds its
    /// operations from (the plan read in a plan child, as `list` reads it: nothing runs).
    private static func describe(_ name: String, format: OutputFormat, registry: [Experiment], executable: URL) -> Int32
    {
        guard let experiment = Selection(registry: registry).experiment(named: name) else {
            return usageError(Selection(registry: registry).unknown(name))
        }
        var plan: Workload?
        Runner(executable: executable, timeScale: 1, profile: PlatformProfile.nativeKind, plans: .child(executable))
            .readPlans(of: [experiment]) { _, read in
                plan = try? read.get()
            }
        let code = CodeListing(experiment, plan: plan)
        switch format {
        case .json: write(JSONWriter.write(JSONRenderer.describe(experiment, code: code)))
        case .markdown: write(MarkdownRenderer.describe(experiment, code: code))
        case .text, .junit: write(TextRenderer(colour: false).describe(experiment, code: code))
        }
        return 0
    }

    /// `list`: every selected experiment with the article's figure and the prediction, each
    /// predicted as its plan comes, while the plan child rehearses the next. Only JSON names
    /// each planned operation's line: the other formats' plans come without call stacks.
    private static func list(_ options: RunOptions, registry: [Experiment], executable: URL) -> Int32 {
        let runner = Runner(
            executable: executable, timeScale: options.timeScale, profile: options.profile, cpus: options.cpus,
            plans: .child(executable, keepingCallSites: options.format == .json))
        let selected =
            options.filters.isEmpty ? registry : Selection(registry: registry).matching(filters: options.filters)
        var predictions: [(Experiment, Prediction)] = []
        runner.readPlans(of: selected) { index, plan in
            switch plan {
            case .success(let workload):
                predictions.append((selected[index], runner.prediction(of: workload, for: selected[index])))
            case .failure(let failure): writeError("Warning: \(selected[index].name) is left out: \(failure.reason).\n")
            }
        }
        switch options.format {
        case .json:
            write(JSONWriter.write(JSONRenderer.list(predictions, conditions: runner.conditions)))
        case .markdown:
            write(MarkdownRenderer.list(predictions, timeScale: options.timeScale))
        case .text, .junit:
            write(TextRenderer(colour: false).list(predictions, timeScale: options.timeScale))
        }
        PlanChild.waitForTheirEnds()
        return 0
    }

    /// Resolves names, `all` and filters to experiments, in registry order, and parses the `--set`
    /// values for them: every key must be one some selected experiment declares, and its value
    /// valid for each.
    static func select(_ options: RunOptions, from registry: [Experiment]) throws(UsageError) -> (
        experiments: [Experiment], settings: ParameterSettings
    ) {
        let selection = Selection(registry: registry)
        for name in options.names where selection.experiment(named: name) == nil {
            throw selection.unknown(name)
        }
        let filtered = selection.matching(filters: options.filters)
        if !options.all, !options.filters.isEmpty, filtered.isEmpty {
            throw UsageError(
                "No experiment matches \(options.filters.map { Format.echoed($0) }.joined(separator: ", ")). See 'run-experiments list'."
            )
        }
        let selected =
            options.all
            ? registry
            : registry.filter { experiment in
                options.names.contains(experiment.name) || filtered.contains { $0.name == experiment.name }
            }
        return (selected, try ParameterSettings(options.settings, for: selected))
    }

    /// The report folder when none is given.
    package static let defaultReportDirectory = "Reports/latest"

    static func runSelected(_ selected: [Experiment], settings: ParameterSettings, options: RunOptions, executable: URL)
        -> Int32
    {
        var plan: RunPlan
        do {
            plan = try RunPlan(selected, settings: settings, options: options, executable: executable)
        } catch {
            return usageError(error)
        }
        if plan.runner.runsExperiments {
            Interruption.shared.install()
            // The summary states how late this machine's timers wake, measured before the run.
            plan.runner.conditions.host.timerJitter = TimerJitter.measure()
        }
        if let warning = plan.predictsOnlyWarning {
            writeError(warning + "\n")
        }
        if let earlier = plan.earlierRun {
            let host = earlier.hostDifferences(plan.runner.conditions.host)
            writeError(
                "Comparing each timed total with \(earlier.path) (time scale \(earlier.timeScale.decimalText), profile \(earlier.profile)), within \(earlier.threshold.description)"
                    + (host.isEmpty ? "" : "; its machine differs: \(host.joined(separator: ", "))") + ".\n")
            let incomparable = earlier.incomparableConditions(plan.runner.conditions)
            if !incomparable.isEmpty {
                let consequence =
                    plan.runner.runsExperiments
                    ? "every timed total it holds fails the comparison" : "nothing runs here to compare"
                writeError(
                    "Warning: that run is not comparable with this one (\(incomparable.joined(separator: "; "))): \(consequence).\n"
                )
            }
        }
        let renderer = TextRenderer(
            colour: plan.format == .text
                && TextRenderer.colours(
                    environment: ProcessInfo.processInfo.environment, onTerminal: isatty(STDOUT_FILENO) == 1),
            showsLines: plan.showsLines
        )
        let results = plan.runner.run(
            plan.experiments, repeats: plan.repeats,
            // An interrupt ends the run; so does stdout gone (its reader, or a write failing),
            // unless a report is still to be written: that is what the user asked for.
            stops: { Interruption.shared.signal != nil || (StandardStreams.isOutputEnded && plan.report == nil) },
            progress: { writeError($0 + "\n") },
            finished: { result, position in
                result = plan.earlierRun?.compare(result, conditions: plan.runner.conditions) ?? result
                result = plan.report?.placing(result) ?? result
                if plan.format == .text {
                    write(renderer.section(result, position: position, count: plan.experiments.count) + "\n")
                }
            }
        )
        return finish(plan, results: results, renderer: renderer)
    }

    /// Writes the results in the plan's format, then the report, and picks the exit status.
    private static func finish(_ plan: RunPlan, results: [ExperimentResult], renderer: TextRenderer) -> Int32 {
        let conditions = plan.runner.conditions
        let signal = Interruption.shared.signal
        switch plan.format {
        case .text:
            write(renderer.summary(results, conditions: conditions))
        case .json:
            write(JSONWriter.write(JSONRenderer.document(results, conditions: conditions, interruptedBy: signal)))
        case .markdown:
            write(MarkdownRenderer.render(results, conditions: conditions))
        case .junit:
            write(JUnitRenderer.render(RunReport(results, conditions: conditions, interruptedBy: signal)))
        }
        if GitHubAnnotations.isActionsJob(ProcessInfo.processInfo.environment) {
            GitHubAnnotations.commands(for: results).forEach { writeError($0 + "\n") }
        }
        if let file = plan.junitFile {
            do {
                let xml = JUnitRenderer.render(RunReport(results, conditions: conditions, interruptedBy: signal))
                try AtomicFile.write(
                    Data(xml.utf8), named: file.lastPathComponent, in: file.deletingLastPathComponent())
            } catch {
                writeError("Error: \(error). The JUnit file was not written.\n")
                return writeFailedStatus
            }
        }
        if let report = plan.report, signal != nil, plan.round != nil {
            // A watch's round cut short is not a result: the page open on the folder and its
            // `latest` keep the last round that ran to its end.
            report.discard()
            writeError(
                "The interrupted round's report was not written; \(report.target.path) keeps the last whole round.\n")
        } else if let report = plan.report {
            do {
                try ReportWriter.write(
                    results, conditions: conditions, interruptedBy: signal, round: plan.round, into: report)
                writeError(
                    "Report written to \(report.target.appendingPathComponent(ReportLayout.htmlFile).path) (also report.md, report.json, timelines/)\n"
                )
            } catch {
                writeError(
                    "Error: \(error). The report was not written\(error.changedTheTarget ? " whole" : "; the folder is as it was").\n"
                )
                return writeFailedStatus
            }
        }
        if let signal {
            let whole = results.filter { !$0.isCutShort }
            let cutShort = results.filter(\.isCutShort).map {
                "; \($0.repeats.count) of \(Format.count($0.runsAsked, "run")) of \($0.experiment.name)"
            }
            writeError(
                "Interrupted by signal \(signal): \(whole.count) of \(Format.count(plan.experiments.count, "experiment")) finished\(cutShort.joined()).\n"
            )
            return 128 + signal
        }
        return results.allSatisfy { $0.verdict == .pass || $0.verdict == .predicted } ? 0 : 1
    }

    /// The plan child: rehearses the requested experiments and writes their plans on its protocol channel.
    static func readPlans(registry: [Experiment], request: PlanChild.Request) -> Int32 {
        let selection = Selection(registry: registry)
        var experiments: [(Experiment, Parameters)] = []
        for entry in request.experiments {
            guard let experiment = selection.experiment(named: entry.experiment) else {
                return usageError(UsageError("Unknown experiment \(Format.echoed(entry.experiment))."))
            }
            experiments.append((experiment, entry.parameters))
        }
        guard let channel = ChildProcess.takeProtocolChannel() else { return usageError(noProtocolChannel) }
        PlanChild.readPlans(experiments, keepingCallSites: request.keepsCallSites) { bytes in
            if !StandardStreams.writeAll(bytes, to: channel) {
                _exit(errno == EPIPE ? outputClosedStatus : writeFailedStatus)
            }
        }
        return 0
    }

    /// A child started otherwise than by the runner, without the channel its protocol goes on.
    static let noProtocolChannel = UsageError(
        "A child of run-experiments is started by run-experiments itself, with its protocol channel at descriptor \(ChildProcess.protocolDescriptor)."
    )

    static func runChild(registry: [Experiment], request: ChildProcess.Request) -> Int32 {
        guard let experiment = Selection(registry: registry).experiment(named: request.experiment) else {
            return usageError(UsageError("Unknown experiment \(Format.echoed(request.experiment))."))
        }
        guard let channel = ChildProcess.takeProtocolChannel() else { return usageError(noProtocolChannel) }
        do {
            try ChildProcess.runAsChild(experiment, request: request) { bytes in
                // Plain write(2): a reader gone away ends the child quietly, never with a trap.
                if !StandardStreams.writeAll(bytes, to: channel) {
                    _exit(errno == EPIPE ? outputClosedStatus : writeFailedStatus)
                }
            }
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
