import Dispatch
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentReports
@testable import ExperimentResults

/// What holds no thread (a timer's wait, a task suspended in `Task.sleep`) is recorded as such,
/// drawn in its own glyph and lane, and counted as no operation and no thread.
@Suite(.serialized, .oneAtATime) struct HeldNoThreadTests {
    static let timer = "timer 2.00 s"
    static let word = "Каждый"
    static let block = "two seconds later"

    /// By hand: the experiment's thread sets a 2 s timer at 0, whose block runs on t1 from 2 s
    /// and sleeps 1 s; a task on t2 prints its word at 0 and awaits `Task.sleep` from 1 ms to
    /// 2.001 s, ending at 2.002 s.
    static let measurement = MeasuredRun(
        totalSeconds: 3,
        operations: [
            OperationSpan(label: timer, start: 0, end: 2, thread: 0, kind: .timer),
            OperationSpan(label: word, start: 0, end: 2.002, thread: 2),
            OperationSpan(label: block, start: 2, end: 3, thread: 1),
        ],
        output: [],
        sleeps: [
            MeasuredSleep(at: 0.001, seconds: 2, thread: 2, suspended: true),
            MeasuredSleep(at: 2, seconds: 1, thread: 1),
        ],
        outcome: Outcome()
    )

    @Test func theTextChartDrawsATimerInItsOwnLaneAndASuspensionInsideItsBar() {
        let rows = GanttChart.rows(Self.measurement)
        let chart = GanttChart.render(rows, span: 3, indent: "")
        let lines = chart.split(separator: "\n").map(String.init)
        #expect(lines.count == 5)
        // A 17-column label column leaves 47 columns of bar for 3 s: 2 s is 31 columns.
        #expect(lines[1] == "timer 2.00 s      timer " + String(repeating: "─", count: 31))
        // The task held its thread for the instant before its sleep, then none until it ended.
        #expect(lines[2] == "Каждый            t2    █" + String(repeating: "─", count: 30))
        // The block's `sleep` blocks its thread: drawn as ran.
        #expect(
            lines[3] == "two seconds later t1    " + String(repeating: " ", count: 31)
                + String(repeating: "█", count: 16))
        #expect(lines[4].contains("█ ran, ░ ran cancelled, ─ waited holding no thread;"))
        #expect(lines[4].hasSuffix("main = the experiment's own thread; timer = a timer's wait, on no thread"))
    }

    @Test func aChartWithNothingWaitingKeepsItsLegend() {
        let rows = [GanttChart.Row(label: "A", start: 0, end: 1, thread: 1)]
        let legend = GanttChart.render(rows, span: 1, indent: "").split(separator: "\n").last
        #expect(legend?.hasSuffix("█ ran, ░ ran cancelled; main = the experiment's own thread") == true)
    }

    @Test func aSuspensionBelongsToTheRowOfItsThreadThatHoldsIt() {
        let shown = Self.measurement.showingSuspensions()
        #expect(shown.span(Self.word)?.suspensions == [0.001...2.001])
        #expect(shown.span(Self.timer)?.suspensions == nil)
        #expect(shown.span(Self.block)?.suspensions == nil)
    }

    /// A task resumes on whichever thread is free: its second `Task.sleep` begins on t1, where
    /// another task's row runs, and still belongs to its own row, which it names.
    @Test func aSuspensionFromAnotherThreadBelongsToTheRowItNames() throws {
        var measurement = Self.measurement
        measurement.operations.append(OperationSpan(label: "other", start: 0, end: 3, thread: 1))
        measurement.sleeps.append(MeasuredSleep(at: 2.5, seconds: 0.4, thread: 1, suspended: true, row: Self.word))
        measurement.operations[1].end = 3
        let shown = measurement.showingSuspensions()
        #expect(shown.span(Self.word)?.suspensions == [0.001...2.001, 2.5...2.9])
        #expect(shown.span("other")?.suspensions == nil)
        // It keeps its row through the child's event stream.
        var assembler = MeasuredRunAssembler()
        assembler.add(.clockStarted(uptimeNanoseconds: 1))
        let line = try #require(TimelineEvent.slept(measurement.sleeps[2]).jsonLine(encoder: JSONEncoder()))
        assembler.add(try JSONDecoder().decode(TimelineEvent.self, from: Data(line)))
        assembler.add(.finished(totalSeconds: 3))
        #expect(assembler.measurement(stoppedAt: nil)?.sleeps.first?.row == Self.word)
    }

    @Test func aTimerIsNoOperationThatStartedNorAThreadThatRanOne() throws {
        let timeline = Timeline(clock: MonotonicClock())
        let wait = timeline.beginTimer(Self.timer)
        let ran = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            timeline.operation(Self.block) {}
            ran.signal()
        }
        ran.wait()
        timeline.end(wait)
        let outcome = timeline.scheduleOutcome()
        #expect(outcome["startOrder"] == .strings([Self.block]))
        #expect(outcome["threads"] == .number(1))
        let measured = try #require(timeline.measurement())
        #expect(measured.span(Self.timer)?.holdsThread == false)
        #expect(measured.startOrder == [Self.block])
        #expect(Self.measurement.startOrder == [Self.word, Self.block])
    }

    @Test func theEventsSayWhatHeldNoThreadAndReadBack() throws {
        let encoder = JSONEncoder()
        let events: [(event: TimelineEvent, says: String)] = [
            (.began(label: Self.timer, at: 0, thread: 0, kind: .timer), #""kind":"timer""#),
            (.ended(OperationSpan(label: Self.timer, start: 0, end: 2, thread: 0, kind: .timer)), #""kind":"timer""#),
            (.slept(MeasuredSleep(at: 0.001, seconds: 2, thread: 2, suspended: true)), #""suspended":true"#),
        ]
        for (event, says) in events {
            let line = try #require(event.jsonLine(encoder: encoder))
            let text = String(decoding: line, as: UTF8.self)
            #expect(text.contains(says), "\(text)")
            #expect(try JSONDecoder().decode(TimelineEvent.self, from: Data(line)) == event)
        }
        // A timer still waiting when the child is stopped stays a timer.
        var assembler = MeasuredRunAssembler()
        assembler.add(events[0].event)
        #expect(assembler.measurement(stoppedAt: 1)?.operations.first?.kind == .timer)
    }

    @Test func theJSONReportSaysWhatHeldNoThread() throws {
        let experiment = HandMadeRun.experiment(name: "waits")
        let workload = experiment.workload()
        let prediction = Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
        let result = ExperimentResult(
            experiment: experiment, prediction: prediction, applePrediction: prediction,
            measurement: Self.measurement, verdict: .fail, reason: nil, checks: [], childEnding: .returned)
        let document =
            try JSONSerialization.jsonObject(
                with: Data(JSONWriter.write(JSONRenderer.document([result], conditions: HandMadeRun.conditions)).utf8))
            as? [String: Any]
        let json = try #require((document?["experiments"] as? [[String: Any]])?.first)
        let operations = try #require(json["operations"] as? [[String: Any]])
        let byLabel = Dictionary(uniqueKeysWithValues: operations.map { ($0["label"] as? String ?? "", $0) })
        #expect(byLabel[Self.timer]?["holdsThread"] as? Bool == false)
        #expect(byLabel[Self.timer]?["kind"] as? String == "timer")
        #expect(byLabel[Self.block]?["holdsThread"] as? Bool == true)
        #expect(byLabel[Self.block]?["kind"] is NSNull)
        let suspensions = try #require(byLabel[Self.word]?["suspensions"] as? [[String: Double]])
        #expect(suspensions == [["startSeconds": 0.001, "endSeconds": 2.001]])
        let sleeps = try #require(json["sleeps"] as? [[String: Any]])
        #expect(sleeps.map { $0["suspended"] as? Bool } == [true, false])
        let svg = SVGTimeline().section(ExperimentSection(result))
        #expect(svg.contains(#"<text class="thread""#) && svg.contains(">timer</text>"))
        #expect(svg.contains(#"<rect class="waiting""#) && svg.contains(GanttChart.noThreadMeaning))
        #expect(svg.contains("timer = \(GanttChart.timerLaneMeaning)".markupEscaped))
    }
}
