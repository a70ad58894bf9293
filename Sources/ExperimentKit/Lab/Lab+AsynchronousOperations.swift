import ExperimentModel
import Foundation

/// A learner's asynchronous `Operation` (the articles' `AsyncOperation`: `isAsynchronous`, a
/// `start()` of its own that does not call `super.start()`, a `state` whose changes announce
/// `isFinished`): executing from its start until the work it handed off announces its finish.
///
/// The rehearsal calls its `start()` once, off any queue, and holds what the start hands off
/// instead of sending it: a block sent to a global queue, a block after a deadline
/// (`asyncAfter`), an operation added to another queue (the playground's `SlowSum`, whose
/// callback finishes it). Once `start()` has returned (as the real hand-off runs after it, so a
/// `start()` that sets `.executing` after `main()` is read as it behaves), the held work is called
/// in the order it was handed off, what it hands off in turn after it, until the operation says
/// `isFinished`. The path to that finish is its plan: work that blocks a pool thread for its
/// sleeps (`Work.handedToPool`), or a timer that holds none (`Work.timer`). Work that ends
/// without the finish is an operation that never finishes (`Work.neverFinishes`), its hang
/// named at the line that handed off the last of it.
///
/// The run cannot hook the learner's `start()` (it overrides the instrumented one) nor the
/// notifications (corelibs declares them in an extension): what the start hands off is
/// recognised as made on a queue's thread outside any work the plan follows, each such piece of
/// work is the row of the asynchronous operation whose start it comes from (the first one of
/// the plan not begun), its sleeps are that operation's, and after each, an operation that now
/// says `isFinished` has ended its row.
extension Lab {
    /// What an asynchronous operation's start hands off in a rehearsal, held to be called once the
    /// start has returned. `@unchecked Sendable`: `held` is read and written only under `lock`.
    final class HandOffs: @unchecked Sendable {
        /// One piece of held work: how it was handed off, the block, and where on the way to it
        /// the operation's work stands (what blocked a thread and what waited on a timer before).
        struct Held {
            var kind: HandOffKind
            var block: () -> Void
            var blockedBefore: Double
            var timersBefore: Double
            /// The stack that handed it off, and its line in the experiment's file.
            var stack: CallSite.Stack?
            var site: String?
        }

        private let lock = NSLock()
        private var held: [Held] = []

        func hold(_ work: Held) {
            lock.withLock { held.append(work) }
        }

        func next() -> Held? {
            lock.withLock { held.isEmpty ? nil : held.removeFirst() }
        }
    }

    /// How a start hands work off: to a global queue's pool (or another queue's, which runs on it),
    /// or to a timer that holds no thread.
    public enum HandOffKind {
        case pool(ServiceClass)
        case timer(articleSeconds: Double)
    }

    /// Where a rehearsal of an asynchronous operation's start stands: what it holds, where the
    /// work being called (the start itself, or work it handed off) begins on the way to the
    /// finish, and what that work has recorded so far.
    struct HandOffContext: Sendable {
        let handOffs: HandOffs
        let current: HandOffs.Held.Position
        let work: RecordedWork
    }

    /// Set while a rehearsal calls an asynchronous operation's start or the work it handed off.
    @TaskLocal static var handOffs: HandOffContext?

    /// How many pieces of held work a start may hand off, one after another: a timer that sets
    /// itself again forever is work that never finishes.
    static let handOffBound = 1000

    /// Whether `operation` is a learner's asynchronous `Operation` the rehearsal follows through
    /// its start (one of the instrumented `Operation`'s subclasses that declares no work).
    static func isUndeclaredAsynchronous(_ operation: Operation) -> Bool {
        isUndeclaredSubclass(operation) && operation.isAsynchronous
    }

    /// In a rehearsal of an asynchronous operation's start (or of work it handed off): `block`
    /// is held as handed off so (to a global queue's pool, to a timer), with the line that hands
    /// it off, and true is returned; elsewhere false (at once: a timer's deadline runs meanwhile).
    public static func holds(_ block: @escaping () -> Void, handedOff kind: HandOffKind) -> Bool {
        guard let context = handOffs else { return false }
        let position = context.current
        let slept = context.work.totalSeconds
        var held = HandOffs.Held(
            kind: kind, block: block, blockedBefore: position.blocked + slept, timersBefore: position.timers,
            stack: CallSite.Stack.capture(), site: CallSite.inExperiment()
        )
        if case .timer(let seconds) = kind { held.timersBefore += seconds }
        context.handOffs.hold(held)
        return true
    }

    /// How adding `operation` to `queue` hands work off, in a rehearsal of an asynchronous
    /// operation's start: to the pool of the operation's class. A queue of limited width makes
    /// the work wait its turn there, which is named.
    func handOff(adding operation: Operation, to queue: OperationQueue) -> HandOffKind {
        if Lab.handOffs != nil, queue.maxConcurrentOperationCount != OperationQueue.defaultMaxConcurrentOperationCount {
            unmodelled(
                "addOperation to a queue of width \(queue.maxConcurrentOperationCount) in an asynchronous operation's work",
                why: "the work waits its turn on that queue, which the model does not plan yet")
        }
        return .pool(ServiceClass(operation.qualityOfService))
    }

    /// The work of an operation handed off by adding it to a queue: its blocks, or its `main()`.
    static func work(of operation: Operation) -> [() -> Void] {
        (operation as? ExecutesBlocks).map { $0.executionBlocks.map { block in { block() } } } ?? [{ operation.main() }]
    }

    /// Rehearses the start of the asynchronous operation `index` (see the extension's
    /// documentation) and plans its work; returns its label.
    func rehearseAsynchronousStart(of operation: Operation, planned index: Int) -> String {
        let handOffs = HandOffs()
        let started = RecordedWork(owner: operation)
        let origin = HandOffs.Held.Position(blocked: 0, timers: 0)
        Lab.$handOffs.withValue(HandOffContext(handOffs: handOffs, current: origin, work: started)) {
            Lab.$work.withValue(started) { operation.start() }
        }
        var works = [started]
        var finishing: (held: HandOffs.Held, work: RecordedWork)?
        var last: HandOffs.Held?
        var calls = 0
        while !operation.isFinished, calls < Self.handOffBound, let held = handOffs.next() {
            calls += 1
            let work = RecordedWork(owner: operation)
            let position = HandOffs.Held.Position(blocked: held.blockedBefore, timers: held.timersBefore)
            Lab.$handOffs.withValue(HandOffContext(handOffs: handOffs, current: position, work: work)) {
                Lab.$work.withValue(work) { held.block() }
            }
            works.append(work)
            last = held
            if operation.isFinished { finishing = (held, work) }
        }
        let modelled: ModelledWork
        if operation.isFinished, finishing == nil {
            // It finished inside its start: planned as a synchronous operation's work, what the
            // start slept. Nothing handed off, the run cannot see when its start runs to draw it.
            modelled = started.modelledWork
            let site = lock.withLock { workload.operations[index].calledFrom?.line?.named }
            unmodelled(
                "\(type(of: operation)), an asynchronous Operation that finishes inside its start()",
                why:
                    "it hands no work off, and the run cannot see when a start of the code's own runs, which the model does not plan yet",
                site: site)
        } else if let (held, work) = finishing {
            let blocked = held.blockedBefore + work.totalSeconds
            if started.totalSeconds > 0 || (blocked > 0 && held.timersBefore > 0) {
                unmodelled(
                    "\(type(of: operation)), an asynchronous Operation",
                    why:
                        "its work both blocks a thread and waits on a timer (or its start sleeps before it hands off), which the model does not plan as one operation yet",
                    site: held.site)
            }
            if held.timersBefore > 0 {
                modelled = ModelledWork(articleSeconds: held.timersBefore, work: .timer)
            } else {
                let serviceClass =
                    if case .pool(let serviceClass) = held.kind { serviceClass } else { ServiceClass.default }
                modelled = ModelledWork(articleSeconds: blocked, work: .handedToPool(serviceClass))
            }
        } else {
            // Nothing it handed off announced the finish: whatever waits for it waits forever. Its
            // row's line is the one that handed off the last of its work, which should have finished it.
            modelled = ModelledWork(articleSeconds: 0, work: .neverFinishes)
            if let stack = last?.stack { lock.withLock { workload.operations[index].calledFrom = stack } }
        }
        return lock.withLock {
            let printed = works.flatMap(\.printed)
            if let label = operation.name ?? printed.first, label != workload.operations[index].label {
                workload.operations[index].label = unique(label)
            }
            workload.operations[index].modelledWork = modelled
            works.forEach { attribute($0, to: index) }
            return workload.operations[index].label
        }
    }
}

extension Lab.HandOffs.Held {
    /// What blocked a thread and what waited on a timer before a piece of work, in article seconds.
    struct Position: Sendable {
        var blocked: Double
        var timers: Double
    }
}

// MARK: In a run

extension Lab {
    /// A learner's asynchronous operation in a run: the object, its queue, its planned index,
    /// and its row once its start has handed work off.
    struct AsynchronousRow {
        let operation: Operation
        let queue: OperationQueue
        let index: Int
        var span: Timeline.OpenSpan?
        var ended = false
    }

    /// The work an asynchronous operation's start handed off, in a run: what it sleeps, on any
    /// thread it goes on to, is the operation's, and the last thing it did (a piece of it began,
    /// a sleep ended, a line was printed) is when the operation's row ends if that piece finishes
    /// it. The finish itself cannot be seen as it happens, and a dependent it starts may begin
    /// before the piece returns: the row ends before that dependent, as the operation did.
    /// `@unchecked Sendable`: `lastInstant` is read and written only under `lock`; `recorded`
    /// is a constant, itself thread-safe.
    public final class HandedOff: @unchecked Sendable {
        let recorded = RecordedWork()
        private let lock = NSLock()
        private var lastInstant = 0.0

        func reached(_ instant: Double) {
            lock.withLock { lastInstant = max(lastInstant, instant) }
        }

        var last: Double {
            lock.withLock { lastInstant }
        }
    }

    /// Set while work an asynchronous operation's start handed off runs.
    @TaskLocal static var handedOff: HandedOff?

    /// In a run of a learner's code, the asynchronous operation `operation` was added to `queue`
    /// as the plan's operation `index`: its row begins when its start hands work off. Called under `lock`.
    func follows(asynchronous operation: Operation, on queue: OperationQueue, as index: Int) {
        guard isLearners, Self.isUndeclaredAsynchronous(operation) else { return }
        asynchronousRows.append(AsynchronousRow(operation: operation, queue: queue, index: index))
    }

    /// In a run, the hand-off the caller makes: within work handed off before, that work's; made
    /// by an asynchronous operation's start (on a queue's thread, outside any work the plan
    /// follows), a new one, which begins the row of the first operation of that queue whose row
    /// has not begun. Nil for any other caller.
    func handOff() -> HandedOff? {
        if let handedOff = Lab.handedOff { return handedOff }
        guard mode == .running, isLearners, Lab.work == nil, let current = OperationQueue.current else { return nil }
        return lock.withLock {
            guard experimentThread != ObjectIdentifier(Thread.current),
                let row = asynchronousRows.firstIndex(where: { $0.span == nil && $0.queue === current }),
                let label = plan?.operations[safe: asynchronousRows[row].index]?.label
            else { return nil }
            asynchronousRows[row].span = context.timeline.begin(label)
            return HandedOff()
        }
    }

    /// `block`, handed off as part of `handedOff`: its sleeps are the operation's, what it hands
    /// off in turn is too, and once it has run, an asynchronous operation that now says
    /// `isFinished` has ended its row.
    func continuing(_ handedOff: HandedOff, _ block: @escaping () -> Void) -> () -> Void {
        { [self] in run(handedOff, block) }
    }

    /// Runs `body` as part of `handedOff` (see ``continuing(_:_:)``).
    private func run(_ handedOff: HandedOff, _ body: () -> Void) {
        handedOff.reached(context.timeline.now())
        Lab.$handedOff.withValue(handedOff) { Lab.$work.withValue(handedOff.recorded, operation: body) }
        endFinishedRows(after: handedOff)
    }

    /// ``continuing(_:_:)`` of a block Dispatch requires to be `Sendable`.
    func continuing(_ handedOff: HandedOff, sendable block: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        nonisolated(unsafe) let continued = continuing(handedOff, block)
        return { continued() }
    }

    /// The operations added by work an asynchronous operation's start handed off (the playground's
    /// `additionQueue.addOperation { … }`), each with that work.
    func handedOff(_ operation: Operation) -> HandedOff? {
        lock.withLock { handOffOperations[ObjectIdentifier(operation)] }
    }

    /// Runs `body`, the work of `operation`, as the work an asynchronous operation's start handed
    /// off when `operation` was added by that work; returns false, not running it, otherwise.
    public func runsHandedOff(_ operation: Operation, _ body: () -> Void) -> Bool {
        guard let handedOff = handedOff(operation) else { return false }
        run(handedOff, body)
        return true
    }

    /// After a piece of handed-off work: each asynchronous operation whose row is open and that
    /// says `isFinished` ends its row, its sleeps (those of the work that finished it) compared
    /// with the plan's.
    private func endFinishedRows(after handedOff: HandedOff) {
        let open = lock.withLock {
            asynchronousRows.indices.filter { asynchronousRows[$0].span != nil && !asynchronousRows[$0].ended }.map {
                ($0, asynchronousRows[$0].operation)
            }
        }
        for (row, operation) in open where operation.isFinished {
            guard
                let (span, planned) = lock.withLock({ () -> (Timeline.OpenSpan, PlannedOperation)? in
                    guard !asynchronousRows[row].ended, let span = asynchronousRows[row].span,
                        let planned = plan?.operations[safe: asynchronousRows[row].index]
                    else { return nil }
                    asynchronousRows[row].ended = true
                    return (span, planned)
                })
            else { continue }
            context.timeline.end(span, at: handedOff.last)
            if planned.modelledWork.work != Work.timer {
                compareSleeps(handedOff.recorded.totalSeconds, with: planned, cancelled: { false })
            }
        }
    }
}
