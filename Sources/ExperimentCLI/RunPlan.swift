import ExperimentKit
import ExperimentModel
import ExperimentReports
import ExperimentResults
import ExperimentRunner
import Foundation
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
    /// `--junit FILE`: the file the JUnit XML goes into, its folder checked writable.
    var junitFile: URL?
    /// `--compare FILE`, read: the earlier run each timed total is compared with.
    var earlierRun: EarlierRun?
    /// The `watch` round this run is (set in its environment by ``Watch``), which its report's
    /// page and `round.js` name; nil for a run of its own.
    var round: String?

    /// Checks the report folder: one that cannot be written is a usage error, before anything runs.
    init(_ experiments: [Experiment], settings: ParameterSettings, options: RunOptions, executable: URL)
        throws(UsageError)
    {
        if options.writesReport {
            round = ProcessInfo.processInfo.environment[Watch.roundVariable]
            let directory = options.reportDirectory ?? RunExperimentsCommand.defaultReportDirectory
            do {
                report = try ReportFolder.prepare(
                    at: URL(fileURLWithPath: directory),
                    writing: ReportWriter.files(for: experiments, following: round != nil))
            } catch {
                let detail =
                    error.path == URL(fileURLWithPath: directory).standardizedFileURL.path
                    ? error.reason : "\(Format.echoed(error.path, cut: false)): \(error.reason)"
                throw UsageError("The report folder \(Format.echoed(directory)) cannot be written: \(detail).")
            }
        }
        if let path = options.junitFile {
            junitFile = try Self.writableFile(path, for: "--junit")
        }
        if let path = options.compareFile {
            earlierRun = try Self.earlierRun(path, threshold: options.compareThreshold)
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

    /// `path` as a file the run can write at its end: its folder exists and is writable, and
    /// the path is not a folder.
    private static func writableFile(_ path: String, for option: String) throws(UsageError) -> URL {
        let file = URL(fileURLWithPath: path)
        let folder = file.deletingLastPathComponent()
        if AtomicFile.kind(of: file.path) == .directory {
            throw UsageError("\(option) \(Format.echoed(path)) is a folder; name a file in it.")
        }
        guard AtomicFile.kind(of: folder.path) == .directory, access(folder.path, W_OK) == 0 else {
            throw UsageError(
                "\(option) \(Format.echoed(path)) cannot be written: its folder \(Format.echoed(folder.path, cut: false)) is missing or not writable."
            )
        }
        return file
    }

    /// The earlier run's report, read and checked before anything runs.
    private static func earlierRun(_ path: String, threshold: Double?) throws(UsageError) -> EarlierRun {
        guard let data = FileManager.default.contents(atPath: path) else {
            let why =
                AtomicFile.kind(of: path) == .missing ? "there is no such file" : "it is not a file this run can read"
            throw UsageError("--compare \(Format.echoed(path)) cannot be read: \(why).")
        }
        var tolerance = EarlierRun.defaultThreshold
        if let threshold { tolerance.relative = threshold }
        return try EarlierRun(data, path: path, schemaVersion: JSONRenderer.schemaVersion, threshold: tolerance)
    }

    /// Why nothing runs though this machine's profile was chosen; nil when it runs, or when
    /// another platform's profile says so by itself.
    var predictsOnlyWarning: String? {
        guard !runner.runsExperiments, runner.profile.kind == PlatformProfile.nativeKind else { return nil }
        return
            "Predicting for \(Format.count(runner.profile.cpus, "CPU")): this machine has \(runner.conditions.host.cpus), so nothing runs."
    }
}
