import ExperimentKit
import ExperimentResults
import Foundation

/// An earlier run's `report.json`, read for `--compare`: each experiment's measured total there,
/// and the conditions it ran under, so that a run can say how far each total moved since.
///
/// Only a timed experiment that returned is compared: a race's total depends on who won, a
/// demonstration's on when it was stopped, and an untimed benchmark's on the machine alone.
package struct EarlierRun: Sendable, Equatable {
    /// The file it was read from, as the user named it.
    package var path: String
    package var timeScale: Double
    package var profile: String
    package var host: Host
    /// Each experiment the earlier run measured, by name.
    package var experiments: [String: Experiment]
    /// How far a total may move, either way, and still agree with the earlier one.
    package var threshold: Tolerance

    /// The machine the earlier run names.
    package struct Host: Sendable, Equatable, Decodable {
        package var cpus: Int
        package var os: String
        package var swift: String
    }

    /// What the comparison needs of one experiment there.
    package struct Experiment: Sendable, Equatable, Decodable {
        package var name: String
        package var kind: String
        package var ending: String?
        package var measuredSeconds: Double?
        /// The `--set` values it ran with, as text.
        package var parameters: [String: String]
    }

    /// The document's shape, as much of it as the comparison reads.
    private struct Document: Decodable {
        var schemaVersion: Int
        var timeScale: Double
        var profile: String
        var host: Host
        var experiments: [Experiment]
    }

    /// The default `--compare-threshold`: 5 % of the earlier total, and never less than 10 ms,
    /// under which a change is the timer's and the scheduler's noise on a busy machine.
    package static let defaultThreshold = Tolerance(relative: 0.05, absolute: 0.01)

    /// Reads `data`, the earlier `report.json`; a document of another schema version, or one that
    /// is not such a report, is refused with the reason.
    package init(_ data: Data, path: String, schemaVersion: Int, threshold: Tolerance = defaultThreshold)
        throws(UsageError)
    {
        struct Version: Decodable { var schemaVersion: Int? }
        guard let version = try? JSONDecoder().decode(Version.self, from: data) else {
            throw UsageError(
                "--compare takes an earlier run's report.json; \(Format.echoed(path, cut: false)) is not JSON.")
        }
        guard version.schemaVersion == schemaVersion else {
            let found = version.schemaVersion.map { "schema version \($0)" } ?? "no schemaVersion"
            throw UsageError(
                "--compare takes a report.json of schema version \(schemaVersion); \(Format.echoed(path, cut: false)) has \(found)."
            )
        }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw UsageError(
                "--compare takes an earlier run's report.json; \(Format.echoed(path, cut: false)) lacks what one holds (\(Self.missing(error)))."
            )
        }
        self.path = path
        timeScale = document.timeScale
        profile = document.profile
        host = document.host
        experiments = Dictionary(document.experiments.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.threshold = threshold
    }

    /// The key a decoding error names, for the refusal.
    private static func missing(_ error: Error) -> String {
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?:
            return "no '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'"
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?:
            return "'\(context.codingPath.map(\.stringValue).joined(separator: "."))' is not what a report holds"
        default:
            return "it cannot be read as one"
        }
    }

    /// The conditions that make totals incomparable, said as a reader would: the time scale and the
    /// profile; empty when both agree.
    package func incomparableConditions(_ conditions: RunConditions) -> [String] {
        var differences: [String] = []
        if timeScale != conditions.timeScale {
            differences.append("time scale \(timeScale.decimalText) there, \(conditions.timeScale.decimalText) here")
        }
        if profile != conditions.profile.rawValue {
            differences.append("profile \(profile) there, \(conditions.profile.rawValue) here")
        }
        return differences
    }

    /// What differs of the machine, which the comparison states but does not refuse: a CI
    /// machine is rarely the one the baseline was measured on.
    package func hostDifferences(_ host: HostMachine) -> [String] {
        var differences: [String] = []
        if self.host.cpus != host.cpus {
            differences.append("\(Format.count(self.host.cpus, "CPU")) there, \(host.cpus) here")
        }
        if self.host.os != host.os { differences.append("\(self.host.os) there, \(host.os) here") }
        if self.host.swift != host.swift { differences.append("Swift \(self.host.swift) there, \(host.swift) here") }
        return differences
    }

    /// `result` with the comparison added: a check that its measured total is within the
    /// threshold of the earlier run's, which fails a passing result when it is not, or when the
    /// run's conditions make the totals incomparable; a note when there is nothing to compare.
    package func compare(_ result: ExperimentResult, conditions: RunConditions) -> ExperimentResult {
        guard let measured = result.measurement?.totalSeconds, result.kind == .timed, result.childEnding == .returned
        else {
            return result
        }
        var result = result
        guard let earlier = experiments[result.experiment.name], earlier.kind == ResultKind.timed.name,
            earlier.ending == ChildEnding.returned.name, let earlierSeconds = earlier.measuredSeconds
        else {
            result.checks.append(
                .note(
                    "not compared: \(Format.echoed(path, cut: false)) has no timed, returned run of \(result.experiment.name)"
                ))
            return result
        }
        let incomparable = incomparableConditions(conditions)
        let setting = Dictionary(
            result.prediction.parameters.values.map { ($0.key, $0.value.parameterText) },
            uniquingKeysWith: { first, _ in first })
        let check: Check
        if !incomparable.isEmpty {
            check = Check(
                "compared with the earlier run: not comparable, \(incomparable.joined(separator: "; "))", passed: false)
        } else if setting != earlier.parameters {
            check = Check(
                "compared with the earlier run: not comparable, its settings were \(Self.settingsText(earlier.parameters)), here \(Self.settingsText(setting))",
                passed: false)
        } else {
            let change = measured - earlierSeconds
            let percent = earlierSeconds > 0 ? String(format: " (%+.1f %%)", change / earlierSeconds * 100) : ""
            let within = threshold.widen(earlierSeconds...earlierSeconds).contains(measured)
            check = Check(
                "measured total \(Format.seconds(measured)) against the earlier run's \(Format.seconds(earlierSeconds)): \(Format.signedSeconds(change))\(percent), \(within ? "within" : "beyond") \(threshold.description)",
                passed: within
            )
        }
        result.checks.append(check)
        result.earlier = EarlierTotal(
            seconds: earlierSeconds, comparable: incomparable.isEmpty && setting == earlier.parameters)
        if !check.passed, result.verdict == .pass {
            result.verdict = .fail
            result.reason = check.description
        }
        return result
    }

    private static func settingsText(_ settings: [String: String]) -> String {
        settings.isEmpty
            ? "none" : settings.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}
