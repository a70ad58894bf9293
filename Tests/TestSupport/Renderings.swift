import ExperimentModel
import ExperimentReports
import ExperimentResults
import ExperimentRunner
import Foundation
import ReportFiles

// One call for what the tests render and run alone; the product renders a whole run's
// documents from one RunReport, and runs children through the Runner's pipeline.

extension HTMLReport {
    /// The page for a run (see ``HTMLReport/init(reportDirectory:filesIn:)``).
    package static func render(
        _ results: [ExperimentResult], conditions: RunConditions, reportDirectory: URL, filesIn: URL? = nil
    ) -> String {
        HTMLReport(reportDirectory: reportDirectory, filesIn: filesIn).document(
            RunReport(results, conditions: conditions))
    }
}

extension SVGTimeline {
    /// The picture for one experiment.
    package static func render(_ result: ExperimentResult) -> String {
        SVGTimeline().section(ExperimentSection(result))
    }
}

extension ReportWriter {
    /// The report's `report.md`: ``MarkdownRenderer``'s report with each experiment's timeline
    /// picture placed above its text timeline, so a code-hosting site shows both.
    package static func markdown(_ results: [ExperimentResult], conditions: RunConditions) -> String {
        MarkdownRenderer(linksTimelines: true).document(RunReport(results, conditions: conditions))
    }
}

extension ChildProcess {
    /// Runs the requested experiment with `plan` in a fresh process of `executable`, at once, and
    /// waits at most `watchdogSeconds` (see ``ChildProcess/Child/finish(watchdogSeconds:countingFromFirstLine:recounting:whenClockStarted:nearItsEndSeconds:nearItsEnd:)``).
    package static func launch(
        executable: URL, request: Request, plan: Workload, watchdogSeconds: Double, countingFromFirstLine: Bool = false,
        recounting: (([CPUCost]) -> Double)? = nil
    ) -> Report {
        let child = Child.start(executable: executable, request: request, plan: plan, ahead: false)
        child.go()
        return child.finish(
            watchdogSeconds: watchdogSeconds, countingFromFirstLine: countingFromFirstLine, recounting: recounting)
    }
}
