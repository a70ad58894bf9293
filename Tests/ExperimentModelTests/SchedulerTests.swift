import ExperimentKit
import ExperimentModel
import TestSupport
import Testing

/// The model against timelines computed by hand from the platform facts (ExperimentModel.docc, Foundation and Dispatch on Linux).
@Suite(.serialized, .oneAtATime) struct SchedulerTests: TwoCPUProfiles {

    /// `count` operations of `seconds` each on one queue of the given width.
    func sleepers(_ count: Int, seconds: Double, width: Int?) -> Workload {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "q", maxConcurrentOperationCount: width))
        for index in 1...count {
            workload.add(PlannedOperation(label: "op\(index)", articleSeconds: seconds, executor: .queue(queue)))
        }
        return workload
    }

    func starts(_ timeline: PredictedTimeline) -> [Double] {
        timeline.startsToTheMillisecond
    }

    /// The operations whose work runs, one set per branch.
    func workingOperations(_ prediction: Prediction) -> Set<[Int]> {
        Set(
            prediction.branches.map { branch in
                branch.spans.indices.filter { branch.spans[$0]?.ranWork == true }
            })
    }

    @Test func sevenSleepersOnLinuxGrowOneWorkerPerTick() {
        // Two workers at 0 s; ticks at 0.97 s and 1.97 s each add one while all sleep;
        // the first two free up at 2 s; the tick at 2.97 s meets op3's end, and either way op7 starts then.
        let prediction = Scheduler.predict(sleepers(7, seconds: 2, width: nil), profile: Self.linux, timeScale: 1)
        #expect(starts(prediction.nominal) == [0, 0, 0.97, 1.97, 2, 2, 2.97])
        #expect(abs(prediction.total - 4.97) < 1e-9)
        #expect(
            abs(prediction.totalRange.lowerBound - 4.97) < 1e-9 && abs(prediction.totalRange.upperBound - 4.97) < 1e-9)
        #expect(prediction.maximumOverlapRange == 4...4)
        // The tick at 1.97 s and the completions at 2 s are 30 ms apart: the model follows both orders.
        #expect(prediction.branches.count > 1)
        #expect(prediction.startRanges[3] == 1.97...2.0)
    }

    /// Tasks on the cooperative pool: one a CPU at once whatever they block for (no tick adds a
    /// thread), a task suspended in a timer holds no place, and on Linux each priority's queue is
    /// as wide as the CPUs on its own, where Apple's one pool serves every priority.
    @Test func theCooperativePoolRunsATaskACPU() {
        func tasks(_ priorities: [String], work: Work = .blocking) -> Workload {
            var workload = Workload()
            for (index, priority) in priorities.enumerated() {
                let classes: [String: ServiceClass] = ["high": .userInitiated, "medium": .default, "low": .utility]
                let pool =
                    workload.queues.firstIndex { $0.name == priority }
                    ?? workload.addQueue(
                        QueueSpec(name: priority, isCooperativePool: true, priorityClass: classes[priority]!))
                workload.add(
                    PlannedOperation(label: "task \(index + 1)", articleSeconds: 1, executor: .queue(pool), work: work))
            }
            return workload
        }
        let eight = Scheduler.predict(tasks(Array(repeating: "medium", count: 8)), profile: Self.linux, timeScale: 1)
        #expect(starts(eight.nominal) == [0, 0, 1, 1, 2, 2, 3, 3])
        #expect(abs(eight.total - 4) < 1e-9)
        let suspended = tasks(Array(repeating: "medium", count: 8), work: .timer)
        #expect(abs(Scheduler.predict(suspended, profile: Self.linux, timeScale: 1).total - 1) < 1e-9)
        let mixed = tasks(["high", "high", "low", "low"])
        #expect(abs(Scheduler.predict(mixed, profile: Self.linux, timeScale: 1).total - 1) < 1e-9)
        #expect(abs(Scheduler.predict(mixed, profile: Self.apple, timeScale: 1).total - 2) < 1e-9)
    }

    /// On Linux a task's queue runs on its priority's root pool, whose workers the global queue
    /// of that class shares: a task sent behind two blocks sleeping 3 s on the default pool
    /// waits for the monitor's tick (measured: 0.97 s), as a third block would. Apple's
    /// cooperative pool is its own, and the task starts at once.
    @Test func aTaskSharesItsPrioritysRootPoolOnLinux() {
        var workload = Workload()
        for index in 1...2 {
            workload.add(
                PlannedOperation(label: "block \(index)", articleSeconds: 3, executor: .globalQueue(.default)))
        }
        let medium = workload.addQueue(QueueSpec(name: "medium", isCooperativePool: true, priorityClass: .default))
        workload.add(PlannedOperation(label: "task", articleSeconds: 1, executor: .queue(medium)))
        let linux = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(starts(linux.nominal) == [0, 0, 0.97])
        #expect(starts(Scheduler.predict(workload, profile: Self.apple, timeScale: 1).nominal) == [0, 0, 0])
        // A task of another priority has its class's pool to itself.
        workload.queues[medium].priorityClass = .userInitiated
        #expect(starts(Scheduler.predict(workload, profile: Self.linux, timeScale: 1).nominal) == [0, 0, 0])
    }

    /// Three serial DispatchQueues, each sent one 2 s block: their overcommit pool gives each a
    /// thread at once, where three blocks on one concurrent queue wait for the monitor's tick.
    @Test func serialDispatchQueuesGetAThreadEachAtOnce() {
        func threeQueues(overcommit: Bool) -> Workload {
            var workload = Workload()
            for index in 1...3 {
                let queue = workload.addQueue(
                    QueueSpec(name: "serial \(index)", maxConcurrentOperationCount: 1, overcommits: overcommit))
                workload.add(PlannedOperation(label: "block \(index)", articleSeconds: 2, executor: .queue(queue)))
            }
            return workload
        }
        let serial = Scheduler.predict(threeQueues(overcommit: true), profile: Self.linux, timeScale: 1)
        #expect(starts(serial.nominal) == [0, 0, 0])
        #expect(abs(serial.total - 2) < 1e-9)
        let concurrent = Scheduler.predict(sleepers(3, seconds: 2, width: nil), profile: Self.linux, timeScale: 1)
        #expect(starts(concurrent.nominal) == [0, 0, 0.97])
        #expect(Scheduler.predict(threeQueues(overcommit: true), profile: Self.apple, timeScale: 1).total == 2)
    }

    @Test func sevenSleepersAtScaleOneTenthFinishBeforeTheFirstTick() {
        let prediction = Scheduler.predict(sleepers(7, seconds: 2, width: nil), profile: Self.linux, timeScale: 0.1)
        #expect(starts(prediction.nominal) == [0, 0, 0.2, 0.2, 0.4, 0.4, 0.6])
        #expect(abs(prediction.total - 0.8) < 1e-9)
        #expect(prediction.branches.count == 1)
    }

    @Test func appleStartsEveryReadyOperationAtOnce() {
        for scale in [1.0, 0.1] {
            let prediction = Scheduler.predict(
                sleepers(7, seconds: 2, width: nil), profile: Self.apple, timeScale: scale)
            #expect(prediction.nominal.spans.allSatisfy { $0!.start == 0 })
            #expect(abs(prediction.total - 2 * scale) < 1e-9)
            #expect(prediction.maximumOverlapRange == 7...7)
        }
    }

    /// `DispatchQueue.global().async` after three adds to a width-2 queue: the two operations the
    /// adds started reach the pool first, so on two CPUs the block waits for one of them to end
    /// (all of it before the monitor's first tick, which would add a worker).
    @Test func aBlockSentAfterTheAddsQueuesBehindTheOperationsTheyStarted() {
        var workload = sleepers(3, seconds: 0.4, width: 2)
        workload.add(PlannedOperation(label: "sent", articleSeconds: 0.2, executor: .globalQueue(.default)))
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        for branch in prediction.branches {
            #expect(starts(branch) == [0, 0, 0.4, 0.4], "every branch: op1 and op2 at once, then op3 and the block")
        }
        #expect(abs(prediction.total - 0.8) < 1e-9)
        // Sent before the adds, the block is first in the pool: op2 waits for it.
        var sentFirst = Workload()
        sentFirst.add(PlannedOperation(label: "sent", articleSeconds: 0.2, executor: .globalQueue(.default)))
        let queue = sentFirst.addQueue(QueueSpec(name: "q", maxConcurrentOperationCount: 2))
        for index in 1...3 {
            sentFirst.add(PlannedOperation(label: "op\(index)", articleSeconds: 0.4, executor: .queue(queue)))
        }
        #expect(starts(Scheduler.predict(sentFirst, profile: Self.linux, timeScale: 1).nominal) == [0, 0, 0.2, 0.4])
    }

    @Test func widthTwoRunsInPairsOnBothProfiles() {
        for profile in [Self.linux, Self.apple] {
            let prediction = Scheduler.predict(sleepers(7, seconds: 2, width: 2), profile: profile, timeScale: 1)
            #expect(starts(prediction.nominal) == [0, 0, 2, 2, 4, 4, 6])
            #expect(prediction.total == 8)
            #expect(prediction.maximumOverlapRange == 2...2)
        }
    }

    @Test func higherPriorityTakesTheFirstFreeSlotButOnlyOnAWiderQueue() {
        var workload = sleepers(3, seconds: 1, width: 2)
        workload.operations[0].articleSeconds = 0.5
        workload.add(
            PlannedOperation(label: "urgent", articleSeconds: 1, executor: .queue(0), serviceClass: .userInitiated))
        let wide = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        // op1 and op2 start as they are added; urgent, added last, beats op3 to the first free slot (0.5 s).
        #expect(starts(wide.nominal) == [0, 0, 1, 0.5])
        workload.queues[0].maxConcurrentOperationCount = 1
        let serial = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        // Width 1: priorities are ignored, the order of adding wins.
        #expect(starts(serial.nominal) == [0, 0.5, 1.5, 2.5])
    }

    @Test func anExplicitQueuePriorityDecidesEvenOnAQueueOfWidthOne() {
        // op1 runs; op2 (set to .low), op3 (set to .high) and urgent (.userInitiated, no
        // priority set) wait. Width 1 ignores the priority derived from QoS, not one that was
        // set: op3 first, then urgent (normal here), then op2, though op2 was added first.
        var workload = sleepers(3, seconds: 1, width: 1)
        workload.operations[1].queuePriority = -4
        workload.operations[2].queuePriority = 4
        workload.add(
            PlannedOperation(label: "urgent", articleSeconds: 1, executor: .queue(0), serviceClass: .userInitiated))
        let serial = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(starts(serial.nominal) == [0, 3, 1, 2])
    }

    @Test func aRemovedDependencyKeepsItsOperationWaitingOnLinuxOnly() {
        // op2's dependency on op1 was removed: corelibs keeps the count, Apple's forgets it.
        var workload = sleepers(2, seconds: 1, width: nil)
        workload.operations[1].hasRemovedDependency = true
        let linux = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(linux.nominal.spans[1] == nil)
        #expect(abs(linux.total - 1) < 1e-9)
        #expect(starts(Scheduler.predict(workload, profile: Self.apple, timeScale: 1).nominal) == [0, 0])
        // A cancel clears the count: the operation becomes ready and finishes without its work.
        workload.cancel(.operation(1), atArticleSeconds: 0.5)
        let cancelled = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(cancelled.nominal.spans[1].map { $0.start == 0.5 && !$0.ranWork } == true)
    }

    @Test func dependenciesWaitAndReuseTheFreedWorker() {
        var workload = sleepers(2, seconds: 1, width: nil)
        workload.operations[1].dependencies = [0]
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(starts(prediction.nominal) == [0, 1])
        #expect(prediction.nominal.spans[0]!.lane == prediction.nominal.spans[1]!.lane)
    }

    @Test func blockOperationBlocksRunInSequenceOnLinuxAndTogetherOnApple() {
        var workload = Workload()
        let blocks = (1...3).map {
            workload.add(PlannedOperation(label: "b\($0)", articleSeconds: 0.5, executor: .blockOperationBlock))
        }
        workload.add(
            PlannedOperation(label: "done", articleSeconds: 0, executor: .globalQueue(.default), dependencies: blocks))
        let linux = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(starts(linux.nominal) == [0, 0.5, 1, 1.5])
        #expect(linux.nominal.spans[0...2].allSatisfy { $0!.lane == 0 })
        let apple = Scheduler.predict(workload, profile: Self.apple, timeScale: 1)
        #expect(starts(apple.nominal) == [0, 0, 0, 0.5])
    }

    /// A `DispatchQueue.concurrentPerform` of iterations lasting `seconds`, after what `workload` holds.
    func concurrentPerform(_ seconds: [Double], after workload: Workload = Workload()) -> Workload {
        var workload = workload
        let first = workload.operations.count
        for (index, length) in seconds.enumerated() {
            workload.add(
                PlannedOperation(
                    label: "iteration \(index)", articleSeconds: length,
                    executor: .concurrentPerformIteration(firstAt: first)))
        }
        return workload
    }

    /// libdispatch's `dispatch_apply_f`: as many threads as iterations, one per CPU at most: the
    /// calling thread and one continuation on the pool, each claiming the next iteration as it
    /// frees; neither profile grows the pool for it, so on two CPUs 4 × 1 s take 2 s and 8 take 4 s,
    /// as they do on this platform.
    @Test func concurrentPerformRunsOnTheCallingThreadAndOneWorkerPerOtherCPU() {
        for profile in [Self.linux, Self.apple] {
            let four = Scheduler.predict(concurrentPerform([1, 1, 1, 1]), profile: profile, timeScale: 1)
            #expect(starts(four.nominal) == [0, 0, 1, 1])
            #expect(four.total == 2)
            #expect(four.nominal.spans[0]!.lane == 0 && four.nominal.spans[1]!.lane != 0)
            #expect(Set(four.nominal.spans.map { $0!.lane }).count == 2)
            let eight = Scheduler.predict(
                concurrentPerform(Array(repeating: 1, count: 8)), profile: profile, timeScale: 1)
            #expect(eight.total == 4)
            let one = Scheduler.predict(concurrentPerform([1]), profile: profile, timeScale: 1)
            #expect(one.total == 1 && one.nominal.spans[0]!.lane == 0)
            // Claimed as the threads free, not split beforehand: the two short ones go to the worker.
            let uneven = Scheduler.predict(concurrentPerform([3, 1, 1]), profile: profile, timeScale: 1)
            #expect(starts(uneven.nominal) == [0, 0, 1])
            #expect(uneven.total == 3)
            #expect(uneven.nominal.spans[2]!.lane == uneven.nominal.spans[1]!.lane)
        }
    }

    /// With both of the Linux pool's workers blocked, the continuation waits: the calling thread
    /// runs the iterations alone until the monitor's tick (0.97 s) adds a worker for it, which
    /// takes the second iteration then, as on this platform. Apple's pool gives it a thread at once.
    @Test func aBusyPoolLeavesTheIterationsToTheCallingThreadUntilTheMonitorAddsAWorker() {
        var busy = Workload()
        for index in 1...2 {
            busy.add(PlannedOperation(label: "busy \(index)", articleSeconds: 3, executor: .globalQueue(.default)))
        }
        let workload = concurrentPerform([1, 1, 1, 1], after: busy)
        let linux = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(starts(linux.nominal) == [0, 0, 0, 0.97, 1, 1.97])
        #expect(linux.nominal.spans[2]!.lane == 0 && linux.nominal.spans[4]!.lane == 0)
        #expect(abs(linux.nominal.spans[5]!.end - 2.97) < 1e-9)
        #expect(linux.totalRange == 3...3)
        let apple = Scheduler.predict(workload, profile: Self.apple, timeScale: 1)
        #expect(starts(apple.nominal) == [0, 0, 0, 0, 1, 1])
    }

    /// `cancelAllOperations()` on a serial queue as its first operation ends: the cancel may
    /// come first (only op1 works), the end first (op2 starts before the loop flags it), or the
    /// end in the middle of the loop, after op2 was flagged and before op3 was: the freed slot
    /// runs through op2 at once and starts op3, which works to its end.
    @Test func aCompletionDuringTheCancelLoopStartsTheFirstOperationNotYetFlagged() {
        var workload = sleepers(3, seconds: 1, width: 1)
        workload.cancel(.queue(0), atArticleSeconds: 1.005)
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        let worked = workingOperations(prediction)
        #expect(worked == [[0], [0, 1], [0, 2]])
        // Apart from the race, the loop flags every operation at once.
        var later = sleepers(3, seconds: 1, width: 1)
        later.cancel(.queue(0), atArticleSeconds: 1.5)
        #expect(Scheduler.predict(later, profile: Self.linux, timeScale: 1).branches.count == 1)
    }

    /// On a queue wider than the pool (width 4, two workers under `linux`, ends before the first
    /// tick at scale 0.05), the queue has handed op3 and op4 to the pool before op1 and op2 end;
    /// the cancel, 5 ms after the ends, can still flag op3 before a freed worker begins it,
    /// which then runs through op3 at once and starts op4: op4 works without op3.
    @Test func theCancelLoopCanFlagWorkThePoolHoldsBeforeAWorkerBeginsIt() {
        var workload = sleepers(6, seconds: 1, width: 4)
        workload.cancel(.queue(0), atArticleSeconds: 1.1)
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 0.05)
        let worked = workingOperations(prediction)
        #expect(worked.contains([0, 1, 3]))
        #expect(worked.contains([0, 1, 2]))
        #expect(worked.contains([0, 1]))
    }

    /// Work the plan makes instant counts among the operations at once neither in the model nor
    /// in a run, where a preempted thread stretched it to 5 ms beside three lasting operations.
    @Test func instantWorkIsNotCountedAmongTheOperationsAtOnce() {
        var workload = sleepers(3, seconds: 1, width: nil)
        workload.add(PlannedOperation(label: "instant", articleSeconds: 0, executor: .queue(0)))
        #expect(Scheduler.predict(workload, profile: Self.linux, timeScale: 1).maximumOverlapRange == 2...3)
        let spans = ["op1", "op2", "op3"].map { OperationSpan(label: $0, start: 0, end: 1, thread: 1) }
        let stretched = OperationSpan(label: "instant", start: 0.01, end: 0.015, thread: 2)
        #expect(
            MeasuredRun(totalSeconds: 1, operations: spans + [stretched], output: [], outcome: Outcome())
                .maximumOverlap(of: workload) == 3)
    }

    @Test func aDependencyCycleIsADeadlock() {
        var workload = sleepers(2, seconds: 1, width: nil)
        workload.operations[0].dependencies = [1]
        workload.operations[1].dependencies = [0]
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(prediction.nominal.deadlocked)
        #expect(prediction.startRanges.allSatisfy { $0 == nil })
    }

    @Test func idleWorkersLeaveAfterFiveSeconds() {
        // Three 2 s sleepers and a 7.5 s gap: a tick at 1.97 s gives the gap a fourth worker, which
        // ends it at 9.47 s. By then the other three have idled for over 5 s and are gone, so of the
        // three operations waiting on the gap, two start at once (the gap's worker and one created
        // on demand) and the third waits for the tick at 9.97 s.
        var workload = sleepers(3, seconds: 2, width: nil)
        let gap = workload.add(PlannedOperation(label: "gap", articleSeconds: 7.5, executor: .queue(0)))
        for index in 0..<3 {
            workload.add(
                PlannedOperation(label: "late\(index)", articleSeconds: 2, executor: .queue(0), dependencies: [gap]))
        }
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(starts(prediction.nominal)[4...].sorted() == [9.47, 9.47, 9.97])
    }
}
