import ExperimentKit
import ExperimentResults
import Foundation

/// The run as JUnit XML (`--format junit`, `--junit FILE`), the report every CI system shows:
/// a `<testsuite>` per article, a `<testcase>` per experiment (`classname` the article, `name`
/// the experiment, `time` its measured total). A `fail` holds a `<failure>` whose message is the
/// verdict's reason and whose text is the table of predictions and measurement with the checks;
/// an `error` an `<error>`; an `unmodelled` (and a prediction that was not run) a `<skipped>`
/// naming why. A declared hang or trap that happened as declared is a pass, as everywhere else.
///
/// Only the elements and attributes of the common JUnit schema (Ant's, which Jenkins, GitLab and
/// GitHub's test reporters read) are written; what a learner's code printed goes in
/// `<system-out>`, escaped, with characters XML cannot hold replaced.
package enum JUnitRenderer {
    /// The whole document.
    package static func render(_ run: RunReport) -> String {
        let suites = suites(run)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="run-experiments" \#(counts(run.results)) time="\#(seconds(run.results.map(time).reduce(0, +)))">"#,
        ]
        for suite in suites {
            lines.append(
                #"  <testsuite name="\#(suite.name.markupEscaped)" \#(counts(suite.cases.map(\.result))) time="\#(seconds(suite.cases.map { time($0.result) }.reduce(0, +)))">"#
            )
            lines.append("    <properties>")
            for (name, value) in properties(run.conditions) {
                lines.append(#"      <property name="\#(name)" value="\#(value.markupEscaped)"/>"#)
            }
            lines.append("    </properties>")
            for testCase in suite.cases {
                lines.append(contentsOf: self.testCase(testCase.result, testCase.section, classname: suite.classname))
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The experiments grouped by article, in the order the run first met each article.
    private static func suites(_ run: RunReport) -> [(
        name: String, classname: String, cases: [(result: ExperimentResult, section: ExperimentSection)]
    )] {
        var suites:
            [(name: String, classname: String, cases: [(result: ExperimentResult, section: ExperimentSection)])] = []
        for (result, section) in zip(run.results, run.sections) {
            let classname = classname(result.experiment)
            if let index = suites.firstIndex(where: { $0.classname == classname }) {
                suites[index].cases.append((result, section))
            } else {
                let title = result.experiment.source.article.map { "\(classname): \($0.title)" } ?? classname
                suites.append((title, classname, [(result, section)]))
            }
        }
        return suites
    }

    /// `article 000`; a learner's own experiment is `playground`. No dots: several CI systems
    /// read the part of a classname before its last dot as a package.
    static func classname(_ experiment: Experiment) -> String {
        if experiment.isLearners { return "playground" }
        return experiment.source.article?.shortName ?? "article \(experiment.source.file.prefix(3))"
    }

    /// The attributes every suite element counts: tests, failures, errors, skipped.
    private static func counts(_ results: [ExperimentResult]) -> String {
        let failures = results.filter { $0.verdict == .fail }.count
        let errors = results.filter { $0.verdict == .error }.count
        let skipped = results.filter { $0.verdict == .unmodelled || $0.verdict == .predicted }.count
        return #"tests="\#(results.count)" failures="\#(failures)" errors="\#(errors)" skipped="\#(skipped)""#
    }

    /// The measured total, or 0 for an experiment that was not run.
    private static func time(_ result: ExperimentResult) -> Double {
        result.measurement?.totalSeconds ?? 0
    }

    /// Seconds as JUnit writes them: `4.970`.
    private static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value)
    }

    /// The conditions the run measured and predicted under, as the suite's properties.
    private static func properties(_ conditions: RunConditions) -> [(String, String)] {
        [
            ("timeScale", conditions.timeScale.decimalText),
            ("profile", conditions.profile.rawValue),
            ("cpus", "\(conditions.host.cpus)"),
            ("os", conditions.host.os),
            ("swift", conditions.host.swift),
        ]
    }

    /// One experiment's element, with what its verdict adds inside it.
    private static func testCase(_ result: ExperimentResult, _ section: ExperimentSection, classname: String)
        -> [String]
    {
        let open =
            #"    <testcase classname="\#(classname.markupEscaped)" name="\#(result.experiment.name.markupEscaped)" time="\#(seconds(time(result)))""#
        var inner: [String] = []
        let message = (result.reason ?? result.verdict.rawValue).markupEscaped
        switch result.verdict {
        case .pass:
            break
        case .fail:
            inner.append(
                #"      <failure message="\#(message)" type="fail">\#(details(result, section).markupEscaped)</failure>"#
            )
        case .error:
            inner.append(
                #"      <error message="\#(message)" type="error">\#(details(result, section).markupEscaped)</error>"#)
        case .unmodelled:
            inner.append(#"      <skipped message="\#(message)"/>"#)
        case .predicted:
            inner.append(
                #"      <skipped message="predicted only: the \#(result.prediction.profile.kind.rawValue) profile is not this machine's, so nothing ran"/>"#
            )
        }
        if !section.printed.isEmpty {
            let printed = section.printed.map {
                "\(Format.seconds($0.at, digits: 3))  \(Format.thread($0.thread))  \($0.text)"
            }.joined(separator: "\n")
            inner.append("      <system-out>\(printed.markupEscaped)</system-out>")
        }
        return inner.isEmpty ? [open + "/>"] : [open + ">"] + inner + ["    </testcase>"]
    }

    /// Where the experiment's code is, the predicted and measured table, and the checks.
    private static func details(_ result: ExperimentResult, _ section: ExperimentSection) -> String {
        var lines: [String] = []
        if let location = AnnotationLocation(result) {
            lines.append("at \(location.file):\(location.line)")
        }
        lines.append(section.comparison.render())
        lines.append(contentsOf: section.checks.map { "\($0.mark) \($0.description)" })
        return "\n" + lines.joined(separator: "\n") + "\n      "
    }
}
