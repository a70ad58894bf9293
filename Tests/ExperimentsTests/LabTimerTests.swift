import ExperimentKit
import ExperimentResults
import TestSupport
import Testing

// Foundation through the instrumented module only, as a learner's file has it: imported
// directly too, each instrumented name is as near as Foundation's, and every use ambiguous.
@testable import Experiments

/// Timers an experiment's code sets, `asyncAfter`'s deadline and `Task.sleep`, are article time:
/// a run waits them times the time scale, as it does a `sleep`. The code's own thread waits on
/// Dispatch's semaphore, uninstrumented, so that only the timers are the lab's. The timers are
/// set on queues of the test's own: this runs in the test process, where earlier tests leave
/// global-pool threads blocked, and a block sent to a global queue may wait for the pool to grow
/// (a third of a second and more), while a queue of one's own gets a thread at once. A learner's `global().asyncAfter` runs in a child of its own (the corpus).
@Suite(.serialized, .oneAtATime) struct LabTimerTests {
    static let scale = 0.05
    /// What a busy 2-core machine adds to a run of 2.5 article seconds of timers at that scale:
    /// far under the 2.5 real seconds the unscaled timers would take.
    static let lateness = 0.25

    /// A deadline reads as the duration the code wrote, however long its thread waited for a CPU
    /// between reading `.now` and handing the deadline over, up to the window.
    @Test(arguments: [1, 2, 0.5, 0.25, 0.7, 1.5, 2.75, 0.01])
    func aDeadlineReadsAsTheDurationWrittenWhateverTheWaitBeforeIt(written: Double) {
        for waited in [0, 0.000_3, 0.000_7, 0.004, Lab.deadlineReadingWindow * 0.99] where waited < written {
            #expect(
                abs(Lab.articleSeconds(remaining: written - waited) - written) < 1e-12,
                "\(written) s written, \(waited) s waited")
        }
        // Written to the odd millisecond, it reads to the hundredth: the limit of reading what was written.
        #expect(abs(Lab.articleSeconds(remaining: 1.005) - 1.01) < 1e-12)
        #expect(Lab.articleSeconds(remaining: -0.001) == 0)
        #expect(Lab.articleSeconds(remaining: 0) == 0)
    }

    @Test func asyncAfterWaitsArticleSecondsTimesTheScale() throws {
        let experiment = LabDriftTests.scratch("scaled-async-after", source: PrinterQueue.source) { _ in
            let fired = DispatchSemaphore(permits: 0)
            DispatchQueue(label: "first").asyncAfter(deadline: .now() + 2) { _ = fired.dispatchSignal() }
            fired.dispatchWait()
            DispatchQueue(label: "second").asyncAfter(deadline: .now() + .milliseconds(500)) {
                _ = fired.dispatchSignal()
            }
            fired.dispatchWait()
        }
        let measurement = try #require(try LabDriftTests.judged(experiment, scale: Self.scale).measurement)
        let total = measurement.totalSeconds
        #expect(total >= 2.5 * Self.scale && total < 2.5 * Self.scale + Self.lateness, "\(total)")
    }

    @Test func taskSleepWaitsArticleSecondsTimesTheScaleAndIsRecorded() throws {
        let experiment = LabDriftTests.scratch("scaled-task-sleep", source: PrinterQueue.source) { _ in
            let woke = DispatchSemaphore(permits: 0)
            Task {
                try? await Task.sleep(nanoseconds: 2_000_000_000)
                try? await Task.sleep(for: .milliseconds(500))
                _ = woke.dispatchSignal()
            }
            woke.dispatchWait()
        }
        let measurement = try #require(try LabDriftTests.judged(experiment, scale: Self.scale).measurement)
        let total = measurement.totalSeconds
        #expect(total >= 2.5 * Self.scale && total < 2.5 * Self.scale + Self.lateness, "\(total)")
        let slept: [Double] = measurement.sleeps.map { $0.seconds }
        #expect(slept.count == 2 && slept[0] >= 2 * Self.scale && slept[1] >= 0.5 * Self.scale, "\(slept)")
    }
}
