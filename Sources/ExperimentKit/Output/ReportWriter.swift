import Foundation

/// Writes a run's report folder (`--report`): `report.md`, `report.json`, `index.html`, and a
/// timeline picture per experiment in `timelines/`. The experiments write their own images into
/// `images/` during the run; the writer leaves them there and links them from `index.html`.
public enum ReportWriter {
    /// Why the report could not be written: the file or folder, and the system's reason.
    public struct Failure: Error, CustomStringConvertible {
        public var path: String
        public var reason: String

        public var description: String {
            "Cannot write the report to '\(path)': \(reason)"
        }
    }

    static let markdownFile = "report.md"
    static let jsonFile = "report.json"
    static let htmlFile = "index.html"
    static let timelinesFolder = "timelines"

    /// Where an experiment's timeline picture lives, relative to the report folder.
    static func timelinePath(_ experiment: Experiment) -> String {
        "\(timelinesFolder)/\(experiment.name).svg"
    }

    /// Replaces `directory`'s report files (report.md, report.json, index.html, timelines/) with
    /// this run's; leaves `images/` (written by the experiments during the run) in place. Throws
    /// a ``Failure`` naming the path if the folder cannot be written.
    /// - Returns: The files written.
    @discardableResult
    public static func write(_ results: [ExperimentResult], host: Host, timeScale: Double, profile: PlatformProfile.Kind, to directory: URL) throws -> [URL] {
        let files = FileManager.default
        try attempt(directory) { try files.createDirectory(at: directory, withIntermediateDirectories: true) }
        // The whole of `timelines/` goes, so a picture of an experiment this run left out does
        // not linger beside the new report.
        for name in [markdownFile, jsonFile, htmlFile, timelinesFolder] {
            let old = directory.appendingPathComponent(name)
            if files.fileExists(atPath: old.path) {
                try attempt(old) { try files.removeItem(at: old) }
            }
        }
        let timelines = directory.appendingPathComponent(timelinesFolder)
        try attempt(timelines) { try files.createDirectory(at: timelines, withIntermediateDirectories: true) }

        var written: [URL] = []
        func save(_ text: String, as relativePath: String) throws {
            let file = directory.appendingPathComponent(relativePath)
            try attempt(file) { try Data(text.utf8).write(to: file, options: .atomic) }
            written.append(file)
        }
        try save(markdown(results, host: host, timeScale: timeScale, profile: profile), as: markdownFile)
        try save(JSONWriter.write(JSONRenderer.document(results, host: host, timeScale: timeScale, profile: profile)), as: jsonFile)
        for result in results {
            try save(SVGTimeline.render(result), as: timelinePath(result.experiment))
        }
        try save(HTMLReport.render(results, host: host, timeScale: timeScale, profile: profile, reportDirectory: directory), as: htmlFile)
        return written
    }

    /// ``MarkdownRenderer``'s report with each experiment's timeline picture placed above its
    /// text timeline, so a code-hosting site shows both.
    static func markdown(_ results: [ExperimentResult], host: Host, timeScale: Double, profile: PlatformProfile.Kind) -> String {
        var lines = MarkdownRenderer.render(results, host: host, timeScale: timeScale, profile: profile).components(separatedBy: "\n")
        var searchFrom = lines.startIndex
        for result in results {
            guard let heading = lines[searchFrom...].firstIndex(of: "## \(result.experiment.name) — \(result.experiment.title)"),
                  let fence = lines[heading...].firstIndex(of: "```text")
            else { continue }
            lines.insert(contentsOf: ["![timeline](\(timelinePath(result.experiment)))", ""], at: fence)
            searchFrom = fence + 2
        }
        return lines.joined(separator: "\n")
    }

    /// Runs a file operation, turning its error into a ``Failure`` that names the path.
    private static func attempt(_ url: URL, _ operation: () throws -> Void) throws {
        do {
            try operation()
        } catch {
            throw Failure(path: url.path, reason: error.localizedDescription)
        }
    }
}
