// The instrumented print, sleep and timers, recording in a rehearsal and following the plan in a run.

import ExperimentModel
import Foundation

extension Lab {
    /// `asyncAfter` as the articles write it (`.now() + 1`, `.now() + .milliseconds(500)`): its
    /// deadline is article seconds from now. In a run they are scaled by the time scale, as a
    /// `sleep`'s are, and in a learner's code the wait is a timeline row of its own, `timer` and
    /// its seconds, from the call to the timer's firing, and the block, labelled `row` (nil: a
    /// planned operation, which draws its own row), is among the work the run waits for
    /// (``tracked(_:row:)``). The timer row ends as the block runs, which on a global queue is
    /// as the timer fires; on a serial queue, where the block may wait its turn, a timer of the
    /// lab's own ends it at the deadline (`queueMayHoldTheBlock`). Elsewhere (a rehearsal calls
    /// the block at once; outside a session Dispatch has it) the deadline and the block as given.
    public static func timer(
        until deadline: DispatchTime, row: String?, queueMayHoldTheBlock: Bool = false,
        _ block: @escaping @Sendable () -> Void
    ) -> (deadline: DispatchTime, block: @Sendable () -> Void) {
        guard let lab = current, let (scaled, articleSeconds) = lab.scaled(deadline) else { return (deadline, block) }
        guard lab.isLearners else { return (scaled, block) }
        let timeline = lab.context.timeline
        let handedOff = lab.handOff()
        let wait = timeline.beginTimer("timer \(Format.seconds(articleSeconds))")
        if queueMayHoldTheBlock { timerEnds.asyncAfter(deadline: scaled) { timeline.end(wait) } }
        let fired: @Sendable () -> Void = {
            if !queueMayHoldTheBlock { timeline.end(wait) }
            block()
        }
        // Handed off by an asynchronous operation's start, the block is that operation's work.
        guard let handedOff else { return (scaled, lab.tracked(fired, row: row)) }
        return (scaled, lab.tracked(lab.continuing(handedOff, sendable: fired)))
    }

    /// Where the lab's own timers end timer rows: a serial queue, whose threads come from the
    /// overcommit pool, not from the pool the experiment's global queues share.
    private static let timerEnds = DispatchQueue(label: "lab timer rows")

    /// The deadline of ``timer(until:row:queueMayHoldTheBlock:_:)`` without a block to follow (a work item's).
    public static func timer(until deadline: DispatchTime) -> DispatchTime {
        current?.scaled(deadline)?.deadline ?? deadline
    }

    /// In a run, `deadline` scaled and the article seconds the code asked it to lie after its
    /// `.now()` (``articleSeconds(remaining:)``). Elsewhere, or for a deadline that never comes, nil.
    private func scaled(_ deadline: DispatchTime) -> (deadline: DispatchTime, articleSeconds: Double)? {
        guard mode == .running, deadline != .distantFuture else { return nil }
        let articleSeconds = Self.articleSeconds(until: deadline)
        return (.now() + context.realSeconds(articleSeconds), articleSeconds)
    }

    /// The article seconds the code asked `deadline` to lie after its `.now()`
    /// (``articleSeconds(remaining:)``).
    public static func articleSeconds(until deadline: DispatchTime) -> Double {
        let now = DispatchTime.now()
        let nanoseconds = deadline > now ? deadline.uptimeNanoseconds - now.uptimeNanoseconds : 0
        return articleSeconds(remaining: Double(nanoseconds) / 1e9)
    }

    /// How long after the code's reading of `.now` a deadline that lies `remaining` seconds from
    /// now asked for: the roundest duration (fewest decimals, at most milliseconds) from
    /// `remaining` to ``deadlineReadingWindow`` beyond it. The code read `.now` an unknown while
    /// before this call, microseconds on an idle machine, milliseconds when its thread waited for
    /// a CPU between the two; the duration it wrote is the same in every run, so a rehearsal and
    /// a run read the same one.
    package static func articleSeconds(remaining: Double) -> Double {
        guard remaining > 0 else { return 0 }
        for decimals in 0...3 {
            let unit = pow(10, -Double(decimals))
            // A billionth of a unit below: a quotient that division leaves a hair above a
            // whole number is that number.
            let roundest = (remaining / unit - 1e-9).rounded(.up) * unit
            if roundest <= remaining + deadlineReadingWindow { return roundest }
        }
        return remaining
    }

    /// The longest the code may have waited between reading `.now` and handing its deadline to
    /// the lab for the reading to stay exact: just under a hundredth of a second, so that a
    /// duration written to the hundredth (`.milliseconds(250)`) is the only one in the window,
    /// and a thread that waited for a CPU between the two (a scheduler's slice or two, a few
    /// milliseconds) still reads it.
    package static let deadlineReadingWindow = 0.0099

    /// `Task.sleep` in article seconds: in a run it suspends the calling task for them times the
    /// time scale, holding no thread, and is recorded as a sleep; in a rehearsal it returns at
    /// once, as every wait there does; outside a session it suspends for them unscaled. A cancel
    /// ends it, throwing `CancellationError`, as `Task.sleep` does. Inside a recorded work (a
    /// task's), it is that work's suspension.
    public static func taskSleep(articleSeconds: Double) async throws {
        guard let lab = current else { return try await ContinuousClock().sleep(for: .seconds(articleSeconds)) }
        work?.suspend(articleSeconds)
        guard lab.mode == .running else { return try Task.checkCancellation() }
        let step = taskSteps?.here().begin(holdsAThread: false, articleSeconds: articleSeconds)
        defer { step.map { lab.context.timeline.end($0, cancelled: Task.isCancelled) } }
        try await lab.context.timeline.suspend(
            forSeconds: lab.context.realSeconds(articleSeconds), row: step?.label ?? taskRow?.label)
    }

    /// `duration` in seconds: a `Task.sleep`'s article seconds.
    public static func seconds(of duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    // MARK: Instrumented print and sleep

    /// The work being recorded on this thread: a block rehearsed, or a planned operation running.
    @TaskLocal static var work: RecordedWork?

    /// Whether a work is being recorded on this thread.
    package static var isRecordingWork: Bool {
        work != nil
    }

    /// The instrumented `print`: a line in the timeline (in a rehearsal, the name of the work).
    public static func print(_ text: String) {
        guard let lab = current else { return Swift.print(text) }
        work?.print(text)
        guard lab.mode == .running else { return }
        lab.context.print(text)
        handedOff?.reached(lab.context.timeline.now())
    }

    /// The instrumented `isCancelled` of `operation`: in a rehearsal of the operation's own
    /// work, the look is recorded (a work that looks before each step stops at a cancel,
    /// `RecordedWork.checksCancellation`) and answered `false`, so the work is rehearsed whole:
    /// when a cancel comes is the plan's cancels' to say. A loop that only a cancel ends is
    /// answered `true` once it has looked `RecordedWork.loopBound` times. Elsewhere, nil: the
    /// operation's own answer.
    package static func lookingAtCancellation(of operation: Operation) -> Bool? {
        guard let lab = current, lab.mode == .rehearsing, let work, work.isOwned(by: operation) else { return nil }
        return work.checkedCancellation()
    }

    /// The instrumented `sleep`, in article seconds: blocks for them scaled by the time scale;
    /// in a rehearsal, it records them without waiting (outside any work, the virtual clock moves).
    public static func sleep(articleSeconds: Double) {
        guard let lab = current else { return Thread.sleep(forTimeInterval: articleSeconds) }
        if lab.mode == .rehearsing, articleSeconds > 0, let site = synchronisedAt {
            lab.unmodelled(
                "DispatchQueue.sync of a block that sleeps",
                why:
                    "it holds the queue meanwhile, and another caller's sync waits its turn, which the model does not plan yet",
                site: site)
        }
        if let work {
            work.sleep(articleSeconds)
        } else if lab.isExperimentThread {
            return lab.threadSleeps(articleSeconds)
        }
        guard lab.mode == .running else { return }
        let step = taskSteps?.here().begin(holdsAThread: true, articleSeconds: articleSeconds)
        lab.context.sleep(articleSeconds: articleSeconds)
        step.map { lab.context.timeline.end($0) }
        handedOff?.reached(lab.context.timeline.now())
    }

    /// The experiment's own thread sleeps. Before its first wait, the rehearsal's clock moves
    /// (what it adds or cancels afterwards comes that much later); after one, the sleep begins
    /// when the wait ends, so it is planned as an operation of the thread's
    /// (``Executor/experimentThread``) that what the thread does next waits for, and in the run
    /// it is that operation's row.
    private func threadSleeps(_ articleSeconds: Double) {
        switch mode {
        case .rehearsing:
            lock.withLock {
                readCancels()
                guard waited else {
                    virtualNow += articleSeconds
                    return
                }
                let segment = RecordedWork()
                segment.sleep(articleSeconds)
                let label = "main sleeps \(Format.seconds(articleSeconds))"
                lastSegment = addPlanned(
                    Operation(), label: label, work: segment, executor: .experimentThread,
                    dependencies: awaitedByTheThread)
            }
        case .running:
            let segment: Int? = lock.withLock {
                guard waited, let plan else { return nil }
                let segments = plan.operations.indices.filter { plan.operations[$0].executor == .experimentThread }
                defer { segmentsFollowed += 1 }
                return segments[safe: segmentsFollowed]
            }
            guard let segment else {
                if lock.withLock({ waited }) {
                    drift(
                        "the experiment's thread slept \(Format.seconds(articleSeconds)) after a wait, which the plan does not have"
                    )
                }
                return context.sleep(articleSeconds: articleSeconds)
            }
            perform(segment, cancelled: { false }) { Lab.sleep(articleSeconds: articleSeconds) }
        }
    }
}
