import ExperimentKit
import ExperimentReports
import ExperimentResults
import Foundation

/// Writes a run's report folder (`--report`): `report.md`, `report.json`, `index.html`, and a
/// timeline picture per experiment in `timelines/`. The experiments write their own images into
/// `images/` of the folder being built during the run; the writer links them from `index.html`.
/// Every file goes through ``ReportFolder``: built beside the target, then moved in.
package enum ReportWriter {
    /// The files a report of `experiments` writes, relative to its folder; the experiments'
    /// images come on top, in `images/`.
    package static func files(for experiments: [Experiment], following: Bool = false) -> [String] {
        [ReportLayout.markdownFile, ReportLayout.jsonFile, ReportLayout.htmlFile, ReportFolder.manifestFile]
            + experiments.map(ReportLayout.timelinePath)
            + (following ? [ReportLayout.roundFile] : [])
    }

    /// What ``write(_:conditions:interruptedBy:round:into:)`` did.
    package struct Written {
        /// The report files, where they are now (the images not included).
        package var files: [URL]
    }

    /// Writes the report files into `folder`, whose images the experiments wrote during the run,
    /// and moves it in: the report in `folder.target` is replaced, or (on a failure, thrown as
    /// a ``ReportFolder/Failure`` naming the path) left as it was unless the failure says otherwise.
    @discardableResult
    package static func write(
        _ results: [ExperimentResult], conditions: RunConditions, interruptedBy signal: Int32? = nil,
        round: String? = nil, into folder: ReportFolder
    ) throws(ReportFolder.Failure) -> Written {
        var written: [String] = []
        func save(_ text: String, as relativePath: String) throws(ReportFolder.Failure) {
            try folder.write(text, to: relativePath)
            written.append(relativePath)
        }
        let run = RunReport(results, conditions: conditions, interruptedBy: signal)
        do {
            try save(MarkdownRenderer(linksTimelines: true).document(run), as: ReportLayout.markdownFile)
            try save(JSONWriter.write(JSONRenderer().document(run)), as: ReportLayout.jsonFile)
            for section in run.sections {
                try save(SVGTimeline().section(section), as: ReportLayout.timelinePath(section.name))
            }
            try save(
                HTMLReport(reportDirectory: folder.target, filesIn: folder.staging, round: round).document(run),
                as: ReportLayout.htmlFile)
            if let round {
                try save("reportRound(\"\(round)\");\n", as: ReportLayout.roundFile)
            }
        } catch {
            folder.discard()
            throw error
        }
        try folder.commit()
        return Written(files: written.map { folder.target.appendingPathComponent($0) })
    }

    /// A report with no images into `directory`, whole (see ``ReportFolder``).
    @discardableResult
    package static func write(
        _ results: [ExperimentResult], conditions: RunConditions, to directory: URL
    ) throws(ReportFolder.Failure) -> Written {
        let folder = try ReportFolder.prepare(at: directory, writing: files(for: results.map(\.experiment)))
        return try write(results, conditions: conditions, into: folder)
    }
}
