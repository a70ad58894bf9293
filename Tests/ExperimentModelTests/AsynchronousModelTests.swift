import Dispatch
import ExperimentModel
import TestSupport
import Testing

@testable import ExperimentKit

/// The model's asynchronous work and cancellation, against timelines computed by hand.
@Suite(.serialized, .oneAtATime) struct AsynchronousModelTests: TwoCPUProfiles {

    func queue(width: Int? = nil) -> Workload {
        var workload = Workload()
        workload.addQueue(QueueSpec(name: "q", maxConcurrentOperationCount: width))
        return workload
    }

    func rounded(_ value: Double) -> Double {
        toTheMillisecond(value)
    }

    @Test func workHandedToThePoolOccupiesItsWorkers() {
        // Six AsyncOperations whose 1 s of work blocks the default pool: every main() runs at 0,
        // the work two at a time plus one per tick: 0, 0, 0.97, 1, 1, 1.97 → the last ends 2.97 s.
        var workload = queue()
        for index in 1...6 {
            workload.add(
                PlannedOperation(
                    label: "sum\(index)", articleSeconds: 1, executor: .queue(0), work: .handedToPool(.default)))
        }
        let linux = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(linux.nominal.spans.allSatisfy { $0!.start == 0 })
        #expect(linux.nominal.spans.map { rounded($0!.end) }.sorted() == [1, 1, 1.97, 2, 2, 2.97])
        #expect(rounded(Scheduler.predict(workload, profile: Self.apple, timeScale: 1).total) == 1)
    }

    @Test func theFirstWorkerMayWakeAfterAnyAdd() {
        // The same six: had the workers woken after the fourth add (the adding thread preempted),
        // they would take the four handed-off works ahead of the last two main()s, which then
        // start only when two works end. Every branch from "after the last add" to "after each
        // add" is followed, so the predicted window of the last two starts reaches 1 s.
        var workload = queue()
        for index in 1...6 {
            workload.add(
                PlannedOperation(
                    label: "sum\(index)", articleSeconds: 1, executor: .queue(0), work: .handedToPool(.default)))
        }
        let linux = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        let starts = linux.branches.map { $0.spans.map { rounded($0!.start) } }
        #expect(starts.contains([0, 0, 0, 0, 0, 0]), "after the last add")
        #expect(starts.contains([0, 0, 0, 0, 1, 1]), "after the fourth add")
        #expect(
            rounded(linux.total) == 2.97, "the nominal branch, after the last add, is the one the idle machine shows")
    }

    @Test func aTimerHoldsNoThread() {
        var workload = queue()
        for index in 1...6 {
            workload.add(PlannedOperation(label: "load\(index)", articleSeconds: 1, executor: .queue(0), work: .timer))
        }
        #expect(Scheduler.predict(workload, profile: Self.linux, timeScale: 1).total == 1)
    }

    /// A loop of five 1 s steps, cancelled at `instant`.
    func loop(checks: Bool, cancelAt instant: Double) -> Prediction {
        var workload = queue()
        let loop = workload.add(
            PlannedOperation(
                label: "loop", articleSeconds: 1, executor: .queue(0), steps: 5, checksCancellation: checks))
        workload.cancel(.operation(loop), atArticleSeconds: instant)
        return Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
    }

    @Test func aLoopThatChecksStopsAtTheNextStep() {
        let early = loop(checks: true, cancelAt: 1.75)
        #expect(early.stepsCompleted(0) == [2])
        #expect(early.total == 2)
        #expect(early.branches.count == 1)
    }

    @Test func aCancelOnAStepBoundaryIsFollowedBothWays() {
        // At exactly 2 s the cancel and the end of the second step race: 2 or 3 sums.
        let raced = loop(checks: true, cancelAt: 2)
        #expect(raced.stepsCompleted(0) == [2, 3])
        #expect(raced.totalRange == 2...3)
    }

    @Test func aLoopThatNeverLooksRunsToTheEnd() {
        let ignored = loop(checks: false, cancelAt: 2)
        #expect(ignored.stepsCompleted(0) == [5])
        #expect(ignored.total == 5)
    }

    /// GroupAdd: five 1 s sums, two at a time, the queue cancelled at `instant`.
    func group(cancelAt instant: Double) -> Prediction {
        var workload = queue(width: 2)
        for index in 1...5 {
            workload.add(PlannedOperation(label: "sum\(index)", articleSeconds: 1, executor: .queue(0)))
        }
        workload.cancel(.queue(0), atArticleSeconds: instant)
        return Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
    }

    func ranCounts(_ prediction: Prediction) -> Set<Int> {
        Set(prediction.branches.map { $0.spans.filter { $0?.ranWork == true }.count })
    }

    @Test func cancellingAGroupStopsWhatHasNotStarted() {
        #expect(ranCounts(group(cancelAt: 0.5)) == [2])
        #expect(ranCounts(group(cancelAt: 1.5)) == [4])
        // At 1 s the first two sums end with the cancel: it may come before both, between them, or after.
        #expect(ranCounts(group(cancelAt: 1)) == [2, 3, 4])
        // Cancelled operations still finish (without their work), so nothing is left hanging.
        #expect(group(cancelAt: 0.5).branches.allSatisfy { !$0.hangs })
    }

    @Test func cancelledBeforeAddingNeverRunsItsWork() {
        var workload = queue()
        workload.add(PlannedOperation(label: "a", articleSeconds: 1, executor: .queue(0)))
        workload.cancel(.operation(0), atArticleSeconds: 0)
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(prediction.workRuns(0) == [false])
        #expect(prediction.total == 0)
    }

    @Test func aSuspendedQueueStartsNothingUntilResumed() {
        // Width 2, four 1 s operations, suspended at 0.5 s and resumed at 2.5 s: the first two
        // finish at 1 s; the others wait for the resume.
        var workload = queue(width: 2)
        for index in 1...4 {
            workload.add(PlannedOperation(label: "op\(index)", articleSeconds: 1, executor: .queue(0)))
        }
        workload.setSuspended(true, queue: 0, atArticleSeconds: 0.5)
        workload.setSuspended(false, queue: 0, atArticleSeconds: 2.5)
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(prediction.nominal.spans.map { $0!.start } == [0, 0, 2.5, 2.5])
        #expect(prediction.total == 3.5)
    }

    @Test func anOperationThatNeverFinishesHoldsItsDependents() {
        var workload = queue()
        let stuck = workload.add(
            PlannedOperation(label: "stuck", articleSeconds: 0, executor: .queue(0), work: .neverFinishes))
        workload.add(PlannedOperation(label: "after", articleSeconds: 1, executor: .queue(0), dependencies: [stuck]))
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(prediction.nominal.hangs)
        #expect(prediction.nominal.spans[1] == nil)
        #expect(prediction.nominal.spans[0]!.end == .infinity)
    }
}

/// Rebuilding a measurement from a child's events, complete or cut short.
@Suite(.serialized, .oneAtATime) struct MeasuredRunAssemblerTests {
    @Test func aFinishedRunIsComplete() {
        var assembler = MeasuredRunAssembler()
        assembler.add(.clockStarted(uptimeNanoseconds: 1_000_000_000))
        assembler.add(.began(label: "a", at: 0.1, thread: 1))
        assembler.add(.ended(OperationSpan(label: "a", start: 0.1, end: 0.5, thread: 1)))
        assembler.add(.printed(PrintedLine(at: 0.2, text: "hi", thread: 1)))
        assembler.add(.outcome(Outcome.Field("sums", .array([.number(3)]))))
        assembler.add(.finished(totalSeconds: 0.6))
        let run = assembler.measurement(stoppedAt: nil)
        #expect(assembler.isFinished)
        #expect(run?.totalSeconds == 0.6)
        #expect(run?.operations == [OperationSpan(label: "a", start: 0.1, end: 0.5, thread: 1)])
        #expect(run?.output.map(\.text) == ["hi"])
        #expect(run?.outcome["sums"] == .array([.number(3)]))
    }

    @Test func aStoppedRunShowsWhatWasStillRunning() {
        var assembler = MeasuredRunAssembler()
        assembler.add(.clockStarted(uptimeNanoseconds: 1_000_000_000))
        assembler.add(.began(label: "stuck", at: 0.2, thread: 2))
        #expect(!assembler.isFinished)
        #expect(assembler.measurement(stoppedAt: nil) == nil)
        let run = assembler.measurement(stoppedAt: 3)
        #expect(run?.totalSeconds == 3)
        #expect(run?.operations == [OperationSpan(label: "stuck", start: 0.2, end: 3, thread: 2, finished: false)])
        #expect(assembler.experimentSeconds(at: .init(uptimeNanoseconds: 3_500_000_000)) == 2.5)
    }
}
