import ExperimentKit
import ExperimentModel
import ExperimentResults
import Foundation

/// A Gantt-style chart: a row per operation, bars from start to end on a shared time axis.
package enum GanttChart {
    /// One bar: an operation's span, measured, or predicted with its worker as the thread.
    package typealias Row = OperationSpan

    /// The whole chart is about this many columns wide.
    package static let width = 72
    /// Longer labels are shortened with an ellipsis; a label's control characters are written
    /// out (``Format/shown(_:limit:)``), so a newline in one cannot break its row.
    static let labelColumns = 28

    /// Renders the rows over `0...span` seconds; each line starts with `indent`. Charts meant to
    /// be read one above the other pass the same `labelWidth`, so their columns line up.
    package static func render(_ rows: [Row], span: Double, indent: String = "  ", labelWidth: Int? = nil) -> String {
        let labelWidth = labelWidth ?? self.labelWidth(rows)
        let barColumns = max(30, width - labelWidth - 8)
        let span = max(span, 1e-6)
        let secondsPerColumn = span / Double(barColumns)
        var lines = [indent + String(repeating: " ", count: labelWidth + 7) + axis(span: span, columns: barColumns)]
        for row in rows {
            let first = min(barColumns - 1, Int((row.start / secondsPerColumn).rounded(.down)))
            let last = max(first + 1, min(barColumns, Int((row.end / secondsPerColumn).rounded())))
            let fill: Character = !row.finished ? "▒" : row.cancelled ? "░" : "█"
            let bar = (first..<last).map { column in
                heldNoThread(row, from: Double(column) * secondsPerColumn, to: Double(column + 1) * secondsPerColumn)
                    ? noThread : fill
            }
            lines.append(
                indent + TextWidth.pad(TextWidth.truncate(Format.shown(row.label), to: labelWidth), to: labelWidth)
                    + " " + TextWidth.pad(lane(row), to: 5) + " " + String(repeating: " ", count: first)
                    + String(bar))
        }
        let stopped = rows.contains { !$0.finished } ? ", ▒ still running when stopped" : ""
        let waited = drawsWaiting(rows) ? ", \(noThread) \(noThreadMeaning)" : ""
        let timers = drawsTimers(rows) ? "; timer = \(timerLaneMeaning)" : ""
        lines.append(
            indent
                + "1 column = \(Format.shortDuration(secondsPerColumn)); █ ran, ░ ran cancelled\(stopped)\(waited); main = the experiment's own thread\(timers)"
        )
        return lines.joined(separator: "\n")
    }

    /// The glyph of a stretch that holds no thread: a timer's wait, a task's suspension.
    package static let noThread: Character = "─"
    /// What ``noThread`` means, as every legend says it.
    package static let noThreadMeaning = "waited holding no thread"
    /// What the `timer` lane means, as every legend says it.
    package static let timerLaneMeaning = "a timer's wait, on no thread"

    /// Whether a row, or a stretch of one, holds no thread: the legend then says what that looks like.
    package static func drawsWaiting(_ rows: [Row]) -> Bool {
        rows.contains { !$0.holdsThread || $0.suspensions != nil }
    }

    /// Whether a row is drawn in the `timer` lane: the legend then says what that lane is.
    package static func drawsTimers(_ rows: [Row]) -> Bool {
        rows.contains { $0.kind == .timer }
    }

    /// The lane a row is drawn in: its thread, or, for a row that holds none, what it is (`timer`).
    package static func lane(_ row: Row) -> String {
        row.kind?.rawValue ?? Format.thread(row.thread)
    }

    /// Whether the row held no thread all through its part of `start...end`: a timer always; an
    /// operation where one of its suspensions covers that part. A row too short to reach into
    /// the stretch (drawn one column wide) held its thread there.
    static func heldNoThread(_ row: Row, from start: Double, to end: Double) -> Bool {
        guard row.holdsThread else { return true }
        let from = max(start, row.start), to = min(end, row.end)
        return from < to && (row.suspensions ?? []).contains { $0.lowerBound <= from && to <= $0.upperBound }
    }

    /// The columns the rows' labels take, at most ``labelColumns``.
    static func labelWidth(_ rows: [Row]) -> Int {
        min(labelColumns, rows.map { TextWidth.columns(Format.shown($0.label)) }.max() ?? 0)
    }

    /// Time labels at a round step, placed at their columns: `0 s       1 s       2 s`.
    static func axis(span: Double, columns: Int) -> String {
        let steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300]
        // At most one label per 9 columns, so labels such as `0.25 s` keep a space between them.
        let step = steps.first { span / $0 <= min(8, Double(columns) / 9) } ?? span
        var axis = ""
        var mark = 0.0
        while mark <= span + 1e-9 {
            let column = Int((mark / span * Double(columns)).rounded())
            let label = (step < 1 ? String(format: "%.2g", mark) : String(Int(mark))) + " s"
            if column >= axis.count + (axis.isEmpty ? 0 : 1), column + label.count <= columns + 4 {
                axis += String(repeating: " ", count: column - axis.count) + label
            }
            mark += step
        }
        return axis
    }
}

extension GanttChart {
    /// The measured spans as rows, each with the stretches it was suspended.
    static func rows(_ measurement: MeasuredRun) -> [Row] {
        measurement.showingSuspensions().operations
    }

    /// A model's nominal timeline as rows, its workers as threads; work that never ends keeps
    /// its infinite end, unfinished (a drawing cuts it where it needs to).
    static func rows(_ prediction: Prediction) -> [Row] {
        zip(prediction.nominal.spans, prediction.workload.operations).compactMap { span, operation in
            span.map {
                Row(
                    label: $0.label, start: $0.start, end: $0.end, thread: $0.lane, cancelled: $0.cancelled,
                    finished: $0.end.isFinite, line: operation.line)
            }
        }
    }
}

extension ExperimentResult {
    /// Whether the timelines show the Apple model's beside this platform's: for every timed
    /// experiment run or predicted for another platform, so the article's picture (seven bars
    /// side by side) sits above the one measured here.
    package var showsApplePicture: Bool {
        experiment.timing == .predicted && prediction.profile.kind != .apple
    }

    /// The seconds every timeline of this result spans, so their bars line up.
    package var chartSpan: Double {
        max(measurement?.totalSeconds ?? 0, prediction.total, showsApplePicture ? applePrediction.total : 0)
    }
}
