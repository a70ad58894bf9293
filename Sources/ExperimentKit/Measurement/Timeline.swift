import Foundation

/// Records, from inside the operations, who ran when on which thread, and every printed line.
///
/// `@unchecked Sendable`: operations on many threads record concurrently; every stored
/// property is read and written only while `lock` is held.
public final class Timeline: @unchecked Sendable {
    private let clock: MonotonicClock
    private let lock = NSLock()
    private var spans: [OperationSpan] = []
    private var lines: [PrintedLine] = []
    private var threadNumbers: [UInt: Int] = [:]
    private var enqueueDuration: Double?

    /// A timeline whose zero is the clock's zero; the calling thread becomes thread 0.
    public init(clock: MonotonicClock) {
        self.clock = clock
        _ = currentThreadNumber()
    }

    /// Seconds since the experiment's start.
    public func now() -> Double {
        clock.now()
    }

    /// Runs `body` as the operation `label`: records its start, end and thread.
    /// `body` returns whether the operation saw itself cancelled.
    @discardableResult
    public func operation(_ label: String, _ body: () throws -> Bool) rethrows -> Bool {
        let thread = currentThreadNumber()
        let start = clock.now()
        let cancelled = try body()
        let end = clock.now()
        lock.withLock {
            spans.append(OperationSpan(label: label, start: start, end: end, thread: thread, cancelled: cancelled))
        }
        return cancelled
    }

    /// Records an interval measured elsewhere (for work whose start and end happen in different callbacks).
    public func record(_ span: OperationSpan) {
        lock.withLock { spans.append(span) }
    }

    /// Records a printed line with its time and thread.
    public func print(_ text: String) {
        let thread = currentThreadNumber()
        let at = clock.now()
        lock.withLock { lines.append(PrintedLine(at: at, text: text, thread: thread)) }
    }

    /// Runs `body`, which adds operations to a queue, and records how long that took.
    public func timeEnqueueing(_ body: () -> Void) {
        let start = clock.now()
        body()
        let duration = clock.now() - start
        lock.withLock { enqueueDuration = duration }
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
    /// started, and how many threads ran them.
    public func scheduleOutcome() -> Outcome {
        let recorded = lock.withLock { spans.sorted { $0.start < $1.start } }
        return Outcome([
            Outcome.Field("startOrder", .strings(recorded.map(\.label))),
            Outcome.Field("threads", .number(Double(Set(recorded.map(\.thread)).count))),
        ])
    }

    /// Everything recorded, with the total the caller measured.
    public func measurement(totalSeconds: Double, outcome: Outcome) -> Measurement {
        lock.withLock {
            Measurement(
                totalSeconds: totalSeconds,
                enqueueSeconds: enqueueDuration,
                operations: spans.sorted { $0.start < $1.start },
                output: lines.sorted { $0.at < $1.at },
                outcome: outcome
            )
        }
    }
}
