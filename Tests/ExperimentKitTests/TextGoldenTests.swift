import Foundation
import Testing
@testable import ExperimentKit

/// The text a learner reads most, whole: one experiment's section and the summary, from a
/// hand-made result (no timed run, so every figure is fixed). A change to the renderers that
/// changes a character here is a change users see: update the golden only on purpose.
@Suite struct TextGoldenTests {
    /// `ReportTests`' result (one span ran, one cancelled, one still running when stopped), with
    /// printed lines, CPU work and the runner's wall time, so every row of a section shows.
    static func result() -> ExperimentResult {
        var result = ReportTests.result()
        result.measurement?.output = [
            PrintedLine(at: 0.0012, text: ReportTests.labels[0], thread: 1),
            PrintedLine(at: 0.0015, text: ReportTests.labels[1], thread: 2),
            PrintedLine(at: 0.9713, text: ReportTests.labels[2], thread: 0),
        ]
        result.measurement?.cpuCosts = [CPUCost(label: ReportTests.labels[0], seconds: 0.0123, source: .measured), CPUCost(label: ReportTests.labels[2], seconds: 0.0456, source: .calibrated)]
        result.measurement?.outcome.set("images", .strings(["/tmp/report/images/tiny-queue-1.png", "/tmp/report/images/tiny-queue-2.png"]))
        result.wallSeconds = 2.51
        return result
    }

    static let host = Host(
        cpus: 2, os: "Linux 6.0.0", swift: "6.3",
        timerJitter: TimerJitter(median: 0.000_08, maximum: 0.000_4), loadAverage: LoadAverage(oneMinute: 1.25, fiveMinutes: 0.5, fifteenMinutes: 0.25)
    )

    @Test func textSectionGolden() {
        let section = TextRenderer(colour: false).section(Self.result(), position: 2, count: 5)
        #expect(section == Self.goldenSection)
    }

    @Test func summaryGolden() {
        let results = [Self.result(), ReportTests.result(name: "tiny-queue-predicted", images: [], measured: false)]
        let summary = TextRenderer(colour: false).summary(results, host: Self.host, timeScale: 0.5, profile: .linux)
        #expect(summary == Self.goldenSummary)
    }

    static let goldenSection = """
        ── 2/5 tiny-queue · Three closures & a <queue> ─────────────────────────
          Source   article 000_test.txt, Experiment 1
          What     Three closures each sleep(1) on a default-width queue.
          Article  “All three finish in "1 second".” (1 s)
          Expects  All three labels print.

          Printed
              0.001 s  t1   Каждый 🍎
              0.002 s  t2   Tom & Jerry <b>
              0.971 s  main Фазан 🍆

          Timeline, measured
                                  0 s       0.5 s     1 s        1.5 s     2 s
            Каждый 🍎       t1    ████████████████████
            Tom & Jerry <b> t2    ░░░░░░░░░░
            Фазан 🍆        main                     ▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒▒
            1 column = 48.98 ms; █ ran, ░ ran cancelled, ▒ still running when stopped; main = the experiment's own thread

          Timeline, predicted by the apple model, the article's platform (t = pool worker)
                                  0 s       0.5 s     1 s        1.5 s     2 s
            Каждый 🍎       t1    ████████████████████
            Tom & Jerry <b> t2    ████████████████████
            Фазан 🍆        t3    ████████████████████
            1 column = 48.98 ms; █ ran, ░ ran cancelled; main = the experiment's own thread

                       article  model apple  model linux (2 CPUs)        measured
          ───────────  ───────  ───────────  ──────────────────────────  ────────
          total        1.00 s   1.00 s       1.97 s, bounds 1.82–2.15 s  2.40 s
          ran at once  —        3            2–3                         2
          enqueue                                                        300 µs
          CPU work timed where it ran: Каждый 🍎 12.30 ms; calibrated before the clock
                   (did not run): Фазан 🍆 45.60 ms; the model's figures count these
          Why      Linux's pool starts with one worker per CPU.
          Outcome
            startOrder: Каждый 🍎, Tom & Jerry <b>, Фазан 🍆
            sums: [3, 7]
            images: /tmp/report/images/tiny-queue-1.png,
              /tmp/report/images/tiny-queue-2.png
          Checks
            ✗ total 2.40 s within 1.82–2.15 s
            ✓ at most 2 ran at once (predicted 2)
          Verdict  FAIL — 'Фазан 🍆' was still running when stopped

        """
    static let goldenSummary = """

        Summary — host: 2 CPUs · Linux 6.0.0 · Swift 6.3 · time scale 0.5 · profile linux · load average 1.25, 0.50, 0.25 (1, 5, 15 min) on 2 CPUs · timer jitter 80 µs median, 400 µs max (20 × 1 ms sleeps)
          experiment            article  expected here         measured        Δ  verdict
          ────────────────────  ───────  ────────────────────  ────────  ───────  ─────────
          tiny-queue             1.00 s  1.97 s (1.82–2.15 s)    2.40 s  +0.43 s  fail
          tiny-queue-predicted   1.00 s  1.97 s (1.82–2.15 s)         —        —  predicted
          runner: 2.51 s wall for 2.40 s measured in 1 children; overhead 0.11 s, 110 ms per experiment

          Where this platform differs from the article's:
          • tiny-queue: Linux's pool starts with one worker per CPU.
          • tiny-queue-predicted: Linux's pool starts with one worker per CPU.

          2 PNG images (before | after) written to /tmp/report/images

          0 of 2 passed.

        """
}
