import Foundation
import ExperimentModel
import ExperimentKit
import ExperimentRunner
import ExperimentReports
import ReportFiles

/// A run, decided before anything runs: what to run (the selected experiments), how (the
/// ``Runner``: scale, profile, CPUs, the parsed `--set` values; and the repeats), and where the results go
/// (stdout in a format, and the report folder when one is asked for).
struct RunPlan {
    var experiments: [Experiment]
    var runner: Runner
    /// Runs per experiment asked for (``Runner/run(_:repeats:stops:progress:finished:)`` predicts once).
    var repeats: Int
    var format: OutputFormat
    /// `--lines`.
    var showsLines: Bool
    /// The report folder, prepared (checked writable, staging made); nil when none is written.
    var report: ReportFolder?

    /// Checks the report folder: one that cannot be written is a usage error, before anything runs.
    init(_ experiments: [Experiment], settings: ParameterSettings, options: RunOptions, executable: URL) throws(UsageError) {
        if options.writesReport {
            let directory = options.reportDirectory ?? RunExperimentsCommand.defaultReportDirectory
            do {
                report = try ReportFolder.prepare(at: URL(fileURLWithPath: directory), writing: ReportWriter.files(for: experiments))
            } catch {
                let detail = error.path == URL(fileURLWithPath: directory).standardizedFileURL.path ? error.reason : "\(Format.echoed(error.path, cut: false)): \(error.reason)"
                throw UsageError("The report folder \(Format.echoed(directory)) cannot be written: \(detail).")
            }
        }
        runner = Runner(
            executable: executable, timeScale: options.timeScale, profile: options.profile,
            // Pictures go only into a report being built: without one, a run writes no file.
            imagesDirectory: report?.imagesDirectory, settings: settings, cpus: options.cpus, plans: .child(executable)
        )
        self.experiments = experiments
        repeats = options.repeats
        format = options.format
        showsLines = options.showsLines
    }

    /// Why nothing runs though this machine's profile was chosen; nil when it runs, or when
    /// another platform's profile says so by itself.
    var predictsOnlyWarning: String? {
        guard !runner.runsExperiments, runner.profile.kind == PlatformProfile.nativeKind else { return nil }
        return "Predicting for \(Format.count(runner.profile.cpus, "CPU")): this machine has \(runner.conditions.host.cpus), so nothing runs."
    }
}
