import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentReports
@testable import ExperimentResults

/// Renderers against golden text from hand-made values.
@Suite(.serialized, .oneAtATime) struct OutputTests {
    @Test func terminalWidthsOfTheArticlesLabels() {
        #expect(TextWidth.columns("Каждый 🍎") == 9)
        #expect(TextWidth.columns("-------💧☂️") == 11)
        #expect(TextWidth.columns("abc") == 3)
        #expect(TextWidth.pad("Где 💎", to: 8) == "Где 💎  ")
    }

    @Test func tableAlignsColumnsAndNumbers() {
        let table = TextTable(header: ["name", "s"], rows: [["Где 💎", "1.00"], ["x", "12.50"]], rightAligned: [1])
        #expect(
            table.render() == """
                name        s
                ──────  ─────
                Где 💎   1.00
                x       12.50
                """)
    }

    @Test func ganttChartGolden() {
        let rows = [
            GanttChart.Row(label: "A 🍎", start: 0, end: 1, thread: 1),
            GanttChart.Row(label: "B", start: 1, end: 2, thread: 0, cancelled: true),
        ]
        let chart = GanttChart.render(rows, span: 2, indent: "")
        let lines = chart.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        // 72 columns in all: a 4-column label, thread, and 60 columns of bar, 30 per second.
        #expect(lines[1] == "A 🍎 t1    " + String(repeating: "█", count: 30))
        #expect(lines[2] == "B    main  " + String(repeating: " ", count: 30) + String(repeating: "░", count: 30))
        #expect(lines[0].hasPrefix("           0 s"))
        #expect(lines[0].contains("1 s") && lines[0].contains("2 s"))
        #expect(lines[3] == "1 column = 33.33 ms; █ ran, ░ ran cancelled; main = the experiment's own thread")
    }

    @Test func jsonWriterKeepsKeyOrderAndEscapes() {
        let value: JSONValue = .object([
            "b": .number(1),
            "a": .array([.string("q\"\n"), .null, .bool(true), .number(0.25)]),
            "e": .object([]),
            "nan": .number(.nan),
        ])
        #expect(
            JSONWriter.write(value) == """
                {
                  "b": 1,
                  "a": [
                    "q\\"\\n",
                    null,
                    true,
                    0.25
                  ],
                  "e": {},
                  "nan": null
                }

                """)
    }

    @Test func jsonNumbersAreAlwaysJSON() throws {
        // Under half a microsecond rounds to 0 (a sleep whose deadline had passed lasts that long).
        #expect(
            [4e-7, -4e-7, 0.0000015, 0.5, -2.25, 3].map(JSONWriter.format) == [
                "0", "0", "0.000002", "0.5", "-2.25", "3",
            ])
        for number in [4e-7, -1e-9, 1e-300, 123.4567891] {
            let text = JSONWriter.format(number)
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(text.utf8), options: .fragmentsAllowed)) != nil,
                "\(number) → \(text)")
        }
    }

    @Test func repeatStatisticsOfKnownSamples() {
        let samples = [
            RepeatSample(measuredSeconds: 1.2, verdict: .pass, reason: nil),
            RepeatSample(measuredSeconds: 0.9, verdict: .fail, reason: "slow"),
            RepeatSample(measuredSeconds: nil, verdict: .error, reason: "trapped"),
            RepeatSample(measuredSeconds: 1.0, verdict: .pass, reason: nil),
            RepeatSample(measuredSeconds: 1.5, verdict: .pass, reason: nil),
        ]
        let statistics = RepeatStatistics(samples)
        #expect(statistics.count == 5 && statistics.passed == 3)
        #expect(statistics.minimum == 0.9 && statistics.maximum == 1.5)
        #expect(statistics.median == 1.1, "the median of 0.9, 1.0, 1.2, 1.5: errors measure nothing")
        #expect(RepeatStatistics([RepeatSample(measuredSeconds: 2, verdict: .pass, reason: nil)]).median == 2)
        #expect(RepeatStatistics([]).median == nil)
    }

    @Test func overlapIgnoresIntervalsThatOnlyTouch() {
        #expect(Overlap.maximum(of: [(0, 1), (1, 2), (2, 3)]) == 1)
        #expect(Overlap.maximum(of: [(0, 2), (1, 3), (1.5, 2.5)]) == 3)
        #expect(Overlap.maximum(of: [(0, 0.001), (0, 0.001)]) == 0)
    }

    @Test func toleranceWidensBothSidesAndNeverBelowZero() {
        let bounds = Tolerance(relative: 0.05, absolute: 0.05).widen(4...5)
        #expect(abs(bounds.lowerBound - 3.75) < 1e-9)
        #expect(abs(bounds.upperBound - 5.3) < 1e-9)
        #expect(Tolerance.standard.widen(0...0.01).lowerBound == 0)
    }
}
