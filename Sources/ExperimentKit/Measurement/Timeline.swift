import ExperimentModel
import Foundation

/// Records, from inside the operations, who ran when on which thread, and every printed line.
///
/// Each record is a ``TimelineEvent``, kept here and also handed to `sink` as it happens (a
/// child process streams them to the runner).
///
/// `@unchecked Sendable`: operations on many threads record concurrently; every stored
/// property is read and written only while `lock` is held, and `sink` is called under it, so
/// events reach it whole and in order.
public final class Timeline: @unchecked Sendable {
    private let clock: MonotonicClock
    private let sink: (@Sendable (TimelineEvent) -> Void)?
    private let lock = NSLock()
    private var assembler = MeasuredRunAssembler()
    private var ended: [OperationSpan] = []
    private var threadNumbers: [UInt: Int] = [:]
    private var stoppedAt: Double?

    /// A timeline whose zero is the clock's zero; the calling thread becomes thread 0.
    /// `poolTouched`: when the process first used the thread pool (`PoolPriming`), recorded
    /// with the clock's start as the settle between them.
    public init(
        clock: MonotonicClock, poolTouched: DispatchTime? = nil, sink: (@Sendable (TimelineEvent) -> Void)? = nil
    ) {
        self.clock = clock
        self.sink = sink
        _ = currentThreadNumber()
        let settle = poolTouched.map(clock.secondsToStart(from:))
        emit(.clockStarted(uptimeNanoseconds: clock.originUptimeNanoseconds, poolSettleSeconds: settle))
    }

    /// Makes a timeline and records into it once, its events written as a child writes them,
    /// before any clock that counts starts: what a process sets up for its first timeline (the
    /// first entry of a thread table took 0.1–0.2 ms) is then not counted in the run's, made as
    /// its clock starts.
    public static func prepare() {
        let encoder = JSONEncoder()
        let timeline = Timeline(clock: MonotonicClock()) { _ = $0.jsonLine(encoder: encoder) }
        timeline.end(timeline.begin("prepare"))
    }

    /// Seconds since the experiment's start.
    public func now() -> Double {
        clock.now()
    }

    private func emit(_ event: TimelineEvent) {
        lock.withLock {
            if case .ended(let span) = event { ended.append(span) }
            assembler.add(event)
            sink?(event)
        }
    }

    /// Runs `body` as the operation `label`, which runs its work whole: records its start, end
    /// and thread, and returns what `body` returns.
    @discardableResult
    public func operation<Result>(_ label: String, _ body: () throws -> Result) rethrows -> Result {
        let span = begin(label)
        let result = try body()
        end(span)
        return result
    }

    /// Runs `body` as the operation `label`, one that may see itself cancelled part-way:
    /// `body` returns whether it did, and the span records it.
    @discardableResult
    public func cancellableOperation(_ label: String, _ body: () throws -> Bool) rethrows -> Bool {
        let span = begin(label)
        let cancelled = try body()
        end(span, cancelled: cancelled)
        return cancelled
    }

    /// An operation that has begun and will end in another callback (asynchronous work).
    public struct OpenSpan: Sendable {
        public let label: String
        public let start: Double
        public let thread: Int
        public let kind: OperationSpan.Kind?
    }

    /// Records that the operation `label` began on the calling thread; pass the result to
    /// ``end(_:cancelled:)`` when it ends. One that never ends shows as unfinished.
    public func begin(_ label: String) -> OpenSpan {
        opening(label, kind: nil)
    }

    /// Records that a timer the calling thread sets (`asyncAfter`) began its wait, the row
    /// `label`, which holds no thread; pass the result to ``end(_:cancelled:)`` as it fires.
    public func beginTimer(_ label: String) -> OpenSpan {
        opening(label, kind: .timer)
    }

    private func opening(_ label: String, kind: OperationSpan.Kind?) -> OpenSpan {
        let span = OpenSpan(label: label, start: clock.now(), thread: currentThreadNumber(), kind: kind)
        emit(.began(label: label, at: span.start, thread: span.thread, kind: kind))
        return span
    }

    /// Records the end of an operation begun with ``begin(_:)``.
    public func end(_ span: OpenSpan, cancelled: Bool = false) {
        end(span, at: clock.now(), cancelled: cancelled)
    }

    /// Records the end of an operation begun with ``begin(_:)`` at `instant`, an earlier reading
    /// of ``now()`` (its last act, when what ends it cannot be seen as it happens).
    public func end(_ span: OpenSpan, at instant: Double, cancelled: Bool = false) {
        emit(
            .ended(
                OperationSpan(
                    label: span.label, start: span.start, end: instant, thread: span.thread, cancelled: cancelled,
                    kind: span.kind)))
    }

    /// Records a printed line with its time, its thread and the stack that printed it (read
    /// after the time, so the capture does not make the line late).
    public func print(_ text: String) {
        let at = clock.now()
        emit(
            .printed(
                PrintedLine(at: at, text: text, thread: currentThreadNumber(), calledFrom: CallSite.Stack.capture())))
    }

    /// Blocks the calling thread until `seconds` after the experiment's start, and records the
    /// sleep with the stack that slept; the stack is read first, so the sleep still ends on time.
    public func sleep(untilSeconds deadline: Double) {
        let stack = CallSite.Stack.capture()
        let start = clock.now()
        if deadline > start { Thread.sleep(forTimeInterval: deadline - start) }
        emit(
            .slept(
                MeasuredSleep(at: start, seconds: clock.now() - start, thread: currentThreadNumber(), calledFrom: stack)
            ))
    }

    /// Suspends the calling task for `seconds` (`Task.sleep`, which holds no thread) and records
    /// the sleep as ``sleep(untilSeconds:)`` does, as long as it lasted, marked suspended, on the
    /// thread the task suspended from and with the `row` of its task, when known: a cancel ends
    /// it early, throwing `CancellationError`.
    public func suspend(forSeconds seconds: Double, row: String? = nil) async throws {
        let stack = CallSite.Stack.capture()
        let start = clock.now()
        let thread = currentThreadNumber()
        defer {
            emit(
                .slept(
                    MeasuredSleep(
                        at: start, seconds: clock.now() - start, thread: thread, suspended: true, row: row,
                        calledFrom: stack)))
        }
        try await ContinuousClock().sleep(for: .seconds(max(0, seconds)))
    }

    /// Records one experiment-specific result as soon as it is known.
    public func record(_ key: String, _ value: JSONValue) {
        emit(.outcome(Outcome.Field(key, value)))
    }

    /// Runs an operation that computes (an image filter) as the operation `label`: its row
    /// from start to end, like ``operation(_:_:)``; first `waiting` (the sleep some begin with),
    /// then `work`. Records as its CPU work the whole row but the wait, timed here, where and
    /// while it runs: that work does not follow the time scale and takes longer on a busy
    /// machine, and a thread preempted anywhere in the operation, not only inside the filter,
    /// delays it as much. The cost is sent after the row has ended, so sending it is not timed.
    public func computing<Result>(_ label: String, after waiting: () -> Void = {}, _ work: () throws -> Result) rethrows
        -> Result
    {
        let span = begin(label)
        let waitStart = clock.now()
        waiting()
        let waited = clock.now() - waitStart
        let result = try work()
        let end = clock.now()
        emit(.ended(OperationSpan(label: label, start: span.start, end: end, thread: span.thread)))
        emit(.cpuCost(CPUCost(label: label, seconds: end - span.start - waited, source: .measured)))
        return result
    }

    /// Records what the workload's CPU work was calibrated to cost in this process, before the
    /// clock started: the figure for work the run then never does (a cancelled filter).
    public func calibrated(_ workload: Workload) {
        CPUCost.calibrated(workload).forEach { emit(.cpuCost($0)) }
    }

    /// Ends the timed part of the run now: the total is taken here, and what the experiment does
    /// after it (writing its pictures as PNG files, checking an output) is not timed. Without a
    /// call, the total is taken when the experiment returns.
    public func stopClock() {
        let now = clock.now()
        lock.withLock { if stoppedAt == nil { stoppedAt = now } }
    }

    /// Records how long adding the operations has taken so far (each add reports it again, so a
    /// run that never returns still has it).
    public func enqueued(seconds: Double) {
        emit(.enqueued(seconds: seconds))
    }

    /// Records that the run did something its plan did not foresee.
    public func modelOutOfDate(_ difference: String) {
        emit(.modelOutOfDate(difference))
    }

    /// The small stable number of the calling thread, assigned in order of first appearance.
    public func currentThreadNumber() -> Int {
        #if canImport(Glibc)
        let key = UInt(pthread_self())
        #else
        let key = UInt(bitPattern: pthread_self())
        #endif
        return lock.withLock {
            if let number = threadNumbers[key] { return number }
            let number = threadNumbers.count
            threadNumbers[key] = number
            return number
        }
    }

    /// The outcome every scheduling experiment reports: labels in the order their operations
    /// started, and how many threads ran them; a timer, which no thread runs, is neither.
    public func scheduleOutcome() -> Outcome {
        let recorded = lock.withLock { ended.filter(\.holdsThread).sorted { $0.start < $1.start } }
        return Outcome([
            Outcome.Field("startOrder", .strings(recorded.map(\.label))),
            Outcome.Field("threads", .number(Double(Set(recorded.map(\.thread)).count))),
        ])
    }

    /// Records the experiment's return: its outcome fields, then its total (up to
    /// ``stopClock()``, if the experiment stopped it).
    public func finish(outcome: Outcome) {
        let now = clock.now()
        let total = lock.withLock { stoppedAt } ?? now
        for field in outcome.fields {
            emit(.outcome(field))
        }
        emit(.finished(totalSeconds: total))
    }

    /// Everything recorded so far (complete once ``finish(outcome:)`` was called).
    public func measurement() -> MeasuredRun? {
        lock.withLock { assembler.measurement(stoppedAt: clock.now()) }
    }
}
