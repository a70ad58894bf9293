import ExperimentModel
import ExperimentReports
import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentResults

/// The text a learner reads most, whole: one experiment's section and the summary, from a
/// hand-made result (no timed run, so every figure is fixed). A change to the renderers that
/// changes a character here is a change users see: update the golden (Goldens/) only on purpose.
@Suite(.serialized, .oneAtATime) struct TextGoldenTests {
    /// `ReportTests`' result (one span ran, one cancelled, one still running when stopped), with
    /// printed lines, CPU work and the runner's wall time, so every row of a section shows.
    static func result() -> ExperimentResult {
        var result = HandMadeRun.result()
        result.measurement?.output = [
            PrintedLine(at: 0.0012, text: HandMadeRun.labels[0], thread: 1),
            PrintedLine(at: 0.0015, text: HandMadeRun.labels[1], thread: 2),
            PrintedLine(at: 0.9713, text: HandMadeRun.labels[2], thread: 0),
        ]
        result.measurement?.cpuCosts = [
            CPUCost(label: HandMadeRun.labels[0], seconds: 0.0123, source: .measured),
            CPUCost(label: HandMadeRun.labels[2], seconds: 0.0456, source: .calibrated),
        ]
        result.measurement?.outcome.set(
            "images", .strings(["/tmp/report/images/tiny-queue-1.png", "/tmp/report/images/tiny-queue-2.png"]))
        result.wallSeconds = 2.51
        return result
    }

    static let host = HostMachine(
        cpus: 2, os: "Linux 6.0.0", swift: "6.3",
        timerJitter: TimerJitter(median: 0.000_08, maximum: 0.000_4),
        loadAverage: LoadAverage(oneMinute: 1.25, fiveMinutes: 0.5, fifteenMinutes: 0.25)
    )

    @Test func textSectionGolden() throws {
        let section = TextRenderer(colour: false).section(Self.result(), position: 2, count: 5)
        #expect(try section == Golden.text("section", in: .module))
    }

    @Test func summaryGolden() throws {
        let results = [Self.result(), HandMadeRun.result(name: "tiny-queue-predicted", images: [], measured: false)]
        let summary = TextRenderer(colour: false).summary(
            results, conditions: RunConditions(host: Self.host, timeScale: 0.5, profile: .linux))
        #expect(try summary == Golden.text("summary", in: .module))
    }
}
