import ExperimentKit
import ExperimentModel
import ExperimentResults

/// The rows and columns every format shares: the summary of a run, one row per experiment.
package enum ResultSummary {
    package static let header = ["experiment", "article", "expected here", "measured", "Δ", "verdict"]

    /// One summary row: the article's figure, what is expected here, the measurement, and the
    /// signed Δ of a timed result; a race shows its possible outcomes and the one that happened,
    /// a demonstration how it ended.
    package static func row(_ result: ExperimentResult) -> [String] {
        let article = result.articleSeconds.map { Format.seconds($0) } ?? "—"
        var measured = result.measurement.map { _ in measuredTotal(result) } ?? "—"
        if case .race(let race) = result.kind, let happened = race.happened,
            let total = result.measurement?.totalSeconds
        {
            measured = "\(happened) in \(Format.seconds(total))"
        }
        var verdict = result.verdict.rawValue
        if !result.repeats.isEmpty {
            let statistics = RepeatStatistics(result.repeats)
            if let low = statistics.minimum, let middle = statistics.median, let high = statistics.maximum {
                measured = "\(Format.seconds(low)) / \(Format.seconds(middle)) / \(Format.seconds(high))"
            }
            verdict += " (\(statistics.passed)/\(statistics.count) passed)"
        }
        // A result judged unmodelled has no prediction to be held to.
        let planless = result.verdict == .unmodelled
        let delta = planless ? "—" : result.deltaSeconds.map(Format.signedSeconds) ?? "—"
        return [result.experiment.name, article, planless ? "—" : expectedHere(result), measured, delta, verdict]
    }

    /// What the model expects on the run's profile, by the result's kind.
    package static func expectedHere(_ result: ExperimentResult) -> String {
        switch result.kind {
        case .timed: return "\(Format.seconds(result.prediction.total)) (\(Format.range(result.expectedBounds)))"
        case .untimed: return "untimed"
        case .race(let race): return "race: " + race.possibleText
        case .hang, .trap: return demonstrationTotal(result.kind, result.prediction)
        }
    }

    /// A model's total for a demonstration: what finishes, then the hang or the trap.
    static func demonstrationTotal(_ kind: ResultKind, _ prediction: Prediction) -> String {
        "\(kind == .hang ? "hangs" : "traps") after \(Format.seconds(prediction.total))"
    }

    /// The measured total as a reader should take it: `4.97 s`; `stopped by the watchdog at
    /// 1.53 s`; `trapped, as shown, at 0.64 s` for a declared trap.
    package static func measuredTotal(_ result: ExperimentResult) -> String {
        let total = Format.seconds(result.measurement?.totalSeconds ?? 0)
        switch result.childEnding {
        case .hung: return "stopped by the watchdog at \(total)"
        case .trapped: return result.kind == .trap ? "trapped, as shown, at \(total)" : "trapped at \(total)"
        case .exited: return "exited at \(total)"
        case .interrupted: return "interrupted at \(total)"
        case .unreadable: return "ended unreadably at \(total)"
        case .returned, nil: return total
        }
    }

    /// `name: sentence` for every experiment whose platform differs from the article's.
    package static func explanations(_ results: [ExperimentResult]) -> [String] {
        results.filter { $0.differsFromArticlePlatform && $0.verdict != .unmodelled }.map {
            "\($0.experiment.name): \($0.platformDifference)"
        }
    }

    /// What the runner cost beyond the experiments' own measured time, over every child that ran
    /// (each run of a repeated experiment has its own): wall time (turn to judged,
    /// `ExperimentResult.wallSeconds`) minus measured; nil when none ran.
    package static func overheadLine(_ results: [ExperimentResult]) -> String? {
        let ran = results.flatMap(\.runTimes)
        guard !ran.isEmpty else { return nil }
        let wall = ran.map(\.wall).reduce(0, +), measured = ran.map(\.measured).reduce(0, +)
        let each = (wall - measured) / Double(ran.count)
        return
            "runner: \(Format.seconds(wall)) wall for \(Format.seconds(measured)) measured in \(Format.count(ran.count, "child", "children")); overhead \(Format.seconds(wall - measured)), \((each * 1000).rounded().decimalText) ms per child"
    }

    /// The host line: CPUs, OS, Swift, scale and profile; when experiments ran, how busy the
    /// machine was (its load average) and how late it woke a sleeping thread.
    package static func hostLine(_ conditions: RunConditions) -> String {
        let host = conditions.host
        var line =
            "host: \(Format.count(host.cpus, "CPU")) · \(host.os) · Swift \(host.swift) · time scale \(conditions.timeScale.decimalText) · profile \(conditions.profile.rawValue)"
        // The jitter is measured only when experiments run; the load matters only then too.
        if let jitter = host.timerJitter {
            line +=
                (host.loadAverage.map { " · " + $0.description(cpus: host.cpus) } ?? "") + " · " + jitter.description
        }
        return line
    }
}
