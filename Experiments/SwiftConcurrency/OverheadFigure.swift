import ExperimentKit
import Foundation

/// One mechanism at one size: each run's time per task, and whether every task ran once.
struct OverheadFigure {
    var mechanism: OverheadMechanism
    var tasks: Int
    /// Each run's time divided by its tasks, in µs, in the order measured.
    var microsecondsPerTask: [Double]
    var everyTaskRanOnce: Bool

    /// The median run's time per task, in µs.
    var median: Double {
        let sorted = microsecondsPerTask.sorted()
        return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
    }

    /// Runs `tasks` empty tasks `repeats` times, each with a fresh tally.
    static func measure(_ mechanism: OverheadMechanism, tasks: Int, repeats: Int) throws -> OverheadFigure {
        var figure = OverheadFigure(mechanism: mechanism, tasks: tasks, microsecondsPerTask: [], everyTaskRanOnce: true)
        for _ in 0..<repeats {
            let run = try secondsPerRun(mechanism, tasks: tasks)
            figure.microsecondsPerTask.append(run.seconds / Double(tasks) * 1e6)
            figure.everyTaskRanOnce = figure.everyTaskRanOnce && run.everyTaskRanOnce
        }
        return figure
    }

    /// One run: from the first task started until the last has run.
    static func secondsPerRun(_ mechanism: OverheadMechanism, tasks: Int) throws -> (
        seconds: Double, everyTaskRanOnce: Bool
    ) {
        let tally = TaskTally(count: tasks)
        let start = DispatchTime.now().uptimeNanoseconds
        try mechanism.runEmptyTasks(tally)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        return (seconds, tally.everyTaskRanOnce)
    }

    /// The figure in the outcome: keyed by mechanism and size, so each reads as one line.
    var outcomeField: Outcome.Field {
        Outcome.Field(
            "\(mechanism.rawValue) × \(Self.groupedThousands(tasks))",
            .object([
                Outcome.Field("medianMicrosecondsPerTask", .number(median)),
                Outcome.Field("microsecondsPerTask", .array(microsecondsPerTask.map { .number($0) })),
                Outcome.Field("everyTaskRanOnce", .bool(everyTaskRanOnce)),
            ]))
    }

    /// A figure as read back from a reported outcome, for the checks.
    struct Reported {
        var microsecondsPerTask: [Double]
        var everyTaskRanOnce: Bool

        init?(_ field: Outcome.Field) {
            guard case .object(let values) = field.value,
                let ranOnce = values.first(where: { $0.key == "everyTaskRanOnce" }),
                case .bool(let everyTaskRanOnce) = ranOnce.value,
                let runs = values.first(where: { $0.key == "microsecondsPerTask" }),
                case .array(let items) = runs.value
            else { return nil }
            microsecondsPerTask = items.compactMap(\.numberValue)
            self.everyTaskRanOnce = everyTaskRanOnce
        }
    }

    /// The heading of the article's column: its words are about how long the work put in each
    /// lasts, not about what starting one costs, which the other columns measure.
    static let articleHeading = "how long its work lasts, article 000 says"

    /// The figures as aligned lines: medians in µs per task, one row per mechanism, one column
    /// per size, and what the article says of each beside them.
    static func table(_ figures: [OverheadFigure]) -> [String] {
        let sizes = Array(Set(figures.map(\.tasks))).sorted()
        let nameWidth = OverheadMechanism.allCases.map(\.rawValue.count).max() ?? 0
        func row(_ name: String, _ cells: [String], _ article: String) -> String {
            name.padding(toLength: nameWidth, withPad: " ", startingAt: 0)
                + cells.map { String(repeating: " ", count: max(0, 10 - $0.count)) + $0 }.joined()
                + "   " + article
        }
        let header = row("µs per task, median", sizes.map(groupedThousands), articleHeading)
        return [header]
            + OverheadMechanism.allCases.map { mechanism in
                let medians = sizes.map { size in
                    figures.first { $0.mechanism == mechanism && $0.tasks == size }.map {
                        String(format: "%.2f", $0.median)
                    } ?? "—"
                }
                return row(mechanism.rawValue, medians, mechanism.articleSays)
            }
    }

    /// How precise a figure's median is: the median distance of its runs from it, as a fraction
    /// of it (half the runs lie closer). Robust to the one cold run that starts the pool's
    /// threads, which a largest distance would report instead of the figure's precision.
    var spread: Double {
        let distances = microsecondsPerTask.map { abs($0 - median) / median }.sorted()
        return distances.isEmpty ? .nan : distances[distances.count / 2]
    }

    /// The line under the table that says what the medians are worth, and at which size.
    static func precision(_ figures: [OverheadFigure], repeats: Int, timeScale: Double) -> String {
        let sizes = Array(Set(figures.map(\.tasks))).sorted().map(groupedThousands).joined(separator: " and ")
        let scaled = timeScale < 1 ? ", sized to time scale \(timeScale.decimalText)" : ""
        let widest = figures.map(\.spread).max() ?? .nan
        return
            "each figure: the median of \(repeats) runs of \(sizes) tasks\(scaled); half the runs of every figure within ±\(String(format: "%.0f", widest * 100)) % of its median"
    }

    /// `100 000`: a count as the article's translation writes it.
    static func groupedThousands(_ count: Int) -> String {
        let digits = Array(String(count))
        return stride(from: digits.count, to: 0, by: -3).reversed().map { end in
            String(digits[max(0, end - 3)..<end])
        }.joined(separator: " ")
    }
}
