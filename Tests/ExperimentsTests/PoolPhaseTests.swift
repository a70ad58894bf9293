import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import Experiments

extension TimedRuns {
    /// The pool monitor's phase is what the child measured: a child primed ahead
    /// touches the pool while the experiment before it ends, so its clock may start later than
    /// the usual settle after the touch; the model then places the ticks from the settle it
    /// measured. With the ticks at 0.97 s, 1.97 s …, 7 × `sleep(0.2)` takes 0.80 s; with the pool
    /// first used 0.5 s before the clock, a tick 0.5 s into the run adds a third worker and it
    /// takes 0.70 s (ExperimentModel.docc, Foundation and Dispatch on Linux).
    @Suite struct PoolPhase: TwoCPUProfiles {
        static func measured(settle: Double) -> MeasuredRun {
            MeasuredRun(
                totalSeconds: 0, enqueueSeconds: nil, poolSettleSeconds: settle, operations: [], output: [],
                outcome: Outcome())
        }

        static var planned: Prediction {
            Scheduler.predict(
                concurrentPrinterQueue.workload(concurrentPrinterQueue.defaultParameters), profile: linux,
                timeScale: 0.1)
        }

        @Test func theTicksFollowTheSettleTheChildMeasured() throws {
            let planned = Self.planned
            #expect(abs(planned.total - 0.8) < 1e-9, "two at a time, no tick before 0.97 s: \(planned.total)")
            let late = planned.remade(for: Self.measured(settle: 0.5))
            #expect(late.profile.firstTickSeconds == 0.5)
            #expect(abs(late.total - 0.7) < 1e-9, "the tick at 0.5 s adds a third worker: \(late.total)")
            let seventh = try #require(late.nominal.spans.last ?? nil)
            #expect(abs(seventh.start - 0.5) < 1e-9, "the 7th closure starts on the tick's worker: \(seventh.start)")
            // A settle within a millisecond of the usual one, or a whole monitor interval longer,
            // leaves the ticks where they were: the prediction is not made again.
            #expect(planned.remade(for: Self.measured(settle: PlatformProfile.settleSeconds + 0.0005)) == planned)
            #expect(planned.remade(for: Self.measured(settle: 1 + PlatformProfile.settleSeconds)) == planned)
            // Apple's pool has no monitor: nothing moves.
            let apple = Scheduler.predict(
                concurrentPrinterQueue.workload(concurrentPrinterQueue.defaultParameters), profile: Self.apple,
                timeScale: 0.1)
            #expect(apple.remade(for: Self.measured(settle: 0.5)) == apple)
        }

        /// End to end: a child started ahead and primed half a second before its go measures that
        /// settle, meets the tick 0.5 s into its run, and passes against the prediction made again
        /// from its settle (it would fail against the one made for the usual settle: 0.70 s is
        /// outside 0.80 s's bounds).
        @Test func aChildPrimedHalfASecondEarlyMeetsTheTickItWasPredictedToMeet() throws {
            let child = ChildProcess.Child.start(
                executable: BuiltBinary.url,
                request: ChildProcess.Request(
                    experiment: concurrentPrinterQueue.name, timeScale: 0.1,
                    parameters: concurrentPrinterQueue.defaultParameters),
                plan: concurrentPrinterQueue.workload(), ahead: true
            )
            defer { child.abandon() }
            try #require(child.waitUntilPrepared())
            child.prime()
            pause(0.5)
            child.go()
            let report = child.finish(watchdogSeconds: 10)
            let measurement = try #require(report.measurement)
            let settle = try #require(measurement.poolSettleSeconds)
            // Half a second, less the touch's own milliseconds (the settle counts from the touch
            // having run), plus a late go on a loaded machine: the tick falls between the second
            // pair's end (0.4 s) and the third's (0.6 s).
            #expect(settle > 0.45 && settle < 0.6, "settled \(settle) s")
            let runner = Runner(executable: BuiltBinary.url, timeScale: 0.1, profile: .linux)
            let predicted = runner.predictions(concurrentPrinterQueue)
            let result = ExperimentResult.judging(
                report, of: concurrentPrinterQueue, prediction: predicted.chosen, applePrediction: predicted.apple)
            #expect(result.verdict == .pass, "\(result.reason ?? "")")
            #expect(result.prediction.total < predicted.chosen.total, "judged against \(result.prediction.total) s")
            #expect(measurement.totalSeconds < 0.75, "the tick added a worker: \(measurement.totalSeconds) s")
            // The same run judged as if its settle were unknown fails: the phase matters here.
            var unknown = report
            unknown.measurement?.poolSettleSeconds = nil
            let unphased = ExperimentResult.judging(
                unknown, of: concurrentPrinterQueue, prediction: predicted.chosen, applePrediction: predicted.apple)
            #expect(unphased.verdict == .fail)
        }
    }
}
