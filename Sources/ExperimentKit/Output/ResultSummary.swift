/// The rows and columns every format shares: the summary of a run, one row per experiment.
public enum ResultSummary {
    public static let header = ["experiment", "article", "expected here", "measured", "Δ", "verdict"]

    /// One summary row: the article's figure, the prediction with its bounds, the measurement.
    public static func row(_ result: ExperimentResult) -> [String] {
        let article = result.articleSeconds.map { Format.seconds($0) } ?? "—"
        let expected = result.experiment.timing == .predicted
            ? "\(Format.seconds(result.prediction.total)) (\(Format.range(result.expectedBounds)))"
            : "untimed"
        var measured = result.measurement.map { Format.seconds($0.totalSeconds) } ?? "—"
        var verdict = result.verdict.rawValue
        if !result.repeats.isEmpty {
            let statistics = RepeatStatistics(result.repeats)
            if let low = statistics.minimum, let middle = statistics.median, let high = statistics.maximum {
                measured = "\(Format.seconds(low)) / \(Format.seconds(middle)) / \(Format.seconds(high))"
            }
            verdict += " (\(statistics.passed)/\(statistics.count) passed)"
        }
        let delta = result.experiment.timing == .predicted
            ? result.measurement.map { Format.signedSeconds($0.totalSeconds - result.prediction.total) } ?? "—"
            : "—"
        return [result.experiment.name, article, expected, measured, delta, verdict]
    }

    /// `name: sentence` for every experiment whose platform differs from the article's.
    public static func explanations(_ results: [ExperimentResult]) -> [String] {
        results.filter(\.differsFromArticlePlatform).map { "\($0.experiment.name): \($0.experiment.platformDifference)" }
    }

    /// What the runner cost beyond the experiments' own measured time, over the experiments that
    /// ran: wall time (launch to judged) minus measured; nil when none ran.
    public static func overheadLine(_ results: [ExperimentResult]) -> String? {
        let ran = results.compactMap { result in result.wallSeconds.map { ($0, result.measurement?.totalSeconds ?? 0) } }
        guard !ran.isEmpty else { return nil }
        let wall = ran.map(\.0).reduce(0, +), measured = ran.map(\.1).reduce(0, +)
        let each = (wall - measured) / Double(ran.count)
        return "runner: \(Format.seconds(wall)) wall for \(Format.seconds(measured)) measured in \(ran.count) children; overhead \(Format.seconds(wall - measured)), \(Format.number((each * 1000).rounded())) ms per experiment"
    }

    /// The host line: CPUs, OS, Swift, scale and profile; when experiments ran, how busy the
    /// machine was (its load average) and how late it woke a sleeping thread.
    public static func hostLine(_ host: Host, timeScale: Double, profile: PlatformProfile.Kind) -> String {
        var line = "host: \(host.cpus) CPUs · \(host.os) · Swift \(host.swift) · time scale \(Format.number(timeScale)) · profile \(profile.rawValue)"
        // The jitter is measured only when experiments run; the load matters only then too.
        if let jitter = host.timerJitter {
            line += (host.loadAverage.map { " · " + $0.description(cpus: host.cpus) } ?? "") + " · " + jitter.description
        }
        return line
    }
}
