import ExperimentKit
import ExperimentModel
import Testing

@testable import ExperimentResults

/// How many ran at once, held to the prediction with the lateness the start check forgives.
@Suite(.serialized, .oneAtATime) struct OverlapCheckTests {
    /// Two 0.25 s operations on a queue of width 2, at scale 0.05: 12.5 ms each, both predicted
    /// to start at once.
    static let together: Prediction = {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "q", maxConcurrentOperationCount: 2))
        for label in ["a", "b"] {
            workload.add(PlannedOperation(label: label, articleSeconds: 0.25, executor: .queue(queue)))
        }
        return Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.05)
    }()

    static func run(bStartsAt start: Double) -> MeasuredRun {
        MeasuredRun(
            totalSeconds: start + 0.0125, enqueueSeconds: nil,
            operations: [
                OperationSpan(label: "a", start: 0, end: 0.0125, thread: 1),
                OperationSpan(label: "b", start: start, end: start + 0.0125, thread: 2),
            ],
            output: [], outcome: Outcome())
    }

    static func overlapCheck(_ run: MeasuredRun, _ prediction: Prediction) -> Check {
        TimingChecks.checks(run, against: prediction, includeTotal: false)[1]
    }

    @Test func aStartLateInsideItsWindowStillCountsAsTogether() {
        #expect(Self.together.maximumOverlapRange == 2...2)
        // A busy machine woke b's thread 13 ms late: the two never met, yet b's start is one
        // the start check accepts.
        let late = Self.run(bStartsAt: 0.013)
        let starts = TimingChecks.checks(late, against: Self.together, includeTotal: false)[0]
        #expect(starts.passed, "\(starts.description)")
        let check = Self.overlapCheck(late, Self.together)
        #expect(check.passed)
        #expect(
            check.description
                == "at most 1 ran at once, 2 with each start late inside its window counted at its predicted instant (predicted 2)"
        )
    }

    @Test func aStartPastItsWindowIsNotForgiven() {
        let check = Self.overlapCheck(Self.run(bStartsAt: 0.2), Self.together)
        #expect(!check.passed)
        #expect(check.description == "at most 1 ran at once, not the 2 predicted")
    }

    @Test func moreAtOnceThanPredictedIsNeverForgiven() {
        // One at a time, predicted: b starts 5 ms early, while a still runs.
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "q", maxConcurrentOperationCount: 1))
        for label in ["a", "b"] {
            workload.add(PlannedOperation(label: label, articleSeconds: 0.25, executor: .queue(queue)))
        }
        let serial = Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 0.05)
        let check = Self.overlapCheck(Self.run(bStartsAt: 0.0075), serial)
        #expect(!check.passed)
        #expect(check.description == "at most 2 ran at once, not the 1 predicted")
    }
}
