// Blocks the code sends to Dispatch queues, rehearsed as planned operations or named as outside the plan.

import ExperimentModel
import Foundation

extension Lab {
    /// `queue.async { … }`. From the experiment's thread, to a global queue: in a rehearsal the
    /// block is a planned operation of that queue's pool, rehearsed now; in a run, its row. In a
    /// run, from inside an asynchronous operation's work (`Operation.asyncWork(_:)`),
    /// its sleeps are that work's, wherever they run. What the plan cannot hold (a queue of the
    /// code's own, a block sent from inside a rehearsed work, which runs beside it) is named, and
    /// rehearsed where it is sent. `submit` hands a block to Dispatch.
    package func dispatching(
        _ block: @escaping @Sendable () -> Void, to queue: DispatchQueue, group: DispatchGroup?,
        submit: (@escaping @Sendable () -> Void) -> Void
    ) {
        let serviceClass = Self.globalServiceClass(of: queue)
        guard mode == .rehearsing else {
            if let handedOff = handOff() { return submit(tracked(continuing(handedOff, sendable: block))) }
            if Lab.work != nil { return submit(tracked(Lab.handingOver(block))) }
            guard serviceClass != nil, isExperimentThread,
                let index = lock.withLock({ follow(nil, as: .dispatched, queueName: nil)?.operations.first })
            else {
                return submit(
                    tracked(
                        block,
                        row: queue.label == DispatchQueue.main.label
                            ? "DispatchQueue.main.async" : "async on '\(queue.label)'"))
            }
            return submit(tracked { [self] in perform(index, cancelled: { false }, block) })
        }
        if let serviceClass, Lab.holds(block, handedOff: .pool(serviceClass)) { return }
        if Lab.work != nil {
            unmodelled(
                "DispatchQueue.async inside an operation's work",
                why:
                    "the block runs beside that work, at an instant the plan cannot tell (an asynchronous operation that declares its work can hand work off)"
            )
            return Self.unplanned(block)
        }
        // Dispatch hands out a new object for its main queue each time it is asked.
        if queue.label == DispatchQueue.main.label {
            unmodelled("DispatchQueue.main.async", why: Self.mainThreadRuns)
            return Self.unplanned(block)
        }
        guard let serviceClass else {
            unmodelled(
                "async on DispatchQueue '\(queue.label)'",
                why: "the plan has the global queues' pool only, not a queue of the code's own")
            return Self.unplanned(block)
        }
        let work = Self.rehearseBlocks([block])[0]
        lock.withLock {
            let index = addPlanned(
                Operation(), label: work.printed.first ?? "block \(workload.operations.count + 1) on \(queue.label)",
                work: work,
                executor: .globalQueue(serviceClass), dependencies: awaitedByTheThread
            )
            if let group {
                synchronisers[ObjectIdentifier(group), default: Synchroniser()].members.append((index, true))
            }
            registrations.append(Workload.Registration(kind: .dispatched, operations: [index], completion: nil))
        }
    }

    /// In a rehearsal, a block the plan does not hold (sent to a queue of the code's own, after a
    /// delay, to a thread of its own) is called here, once, as every block is, so what it leaves
    /// or signals is left or signalled; nothing runs on Dispatch while the rehearsal goes on, or
    /// after it. Outside a rehearsal, false: the caller runs it as Dispatch does.
    package static func rehearsesUnplanned(_ block: () -> Void) -> Bool {
        guard current?.mode == .rehearsing else { return false }
        unplanned(block)
        return true
    }

    /// Runs `block`, work the plan does not hold, on the calling thread: its sleeps are its own,
    /// not the experiment's thread's (an iteration of `concurrentPerform` made there, a work
    /// item performed in place).
    public static func unplanned(_ block: () -> Void) {
        $work.withValue(RecordedWork()) { block() }
    }

    /// `DispatchQueue.sync`, which `sync` makes as Dispatch does: the block runs on the calling
    /// thread once the queue has run what it holds before it. The plan holds the block as the
    /// caller's own work, which it is while it takes no time (a counter guarded, a value read).
    /// One that sleeps holds the queue meanwhile, and any other caller waits its turn behind
    /// it, which the model does not plan yet: named at the `sync`'s line.
    package static func synchronising<T>(_ sync: () throws -> T) rethrows -> T {
        guard let lab = current, lab.mode == .rehearsing else { return try sync() }
        return try $synchronisedAt.withValue(CallSite.inExperiment()) { try sync() }
    }

    /// Whether a rehearsal runs the block of a `sync` on `queue` in place: on the main queue,
    /// whose thread is the experiment's own and runs it only once the code returns, it is named.
    package static func rehearsesInPlace(syncOn queue: DispatchQueue) -> Bool {
        guard let lab = current, lab.mode == .rehearsing, queue.label == DispatchQueue.main.label else { return false }
        lab.unmodelled("DispatchQueue.main.sync", why: mainThreadRuns)
        return true
    }

    /// The line of the `DispatchQueue.sync` whose block the rehearsal is running, if any.
    @TaskLocal static var synchronisedAt: String?

    /// The class of a global queue (`DispatchQueue.global(qos:)`), read from its label; nil for
    /// any other queue.
    static func globalServiceClass(of queue: DispatchQueue) -> ServiceClass? {
        let classes: [String: ServiceClass] = [
            "com.apple.root.user-interactive-qos": .userInteractive,
            "com.apple.root.user-initiated-qos": .userInitiated,
            "com.apple.root.default-qos": .default, "com.apple.root.utility-qos": .utility,
            "com.apple.root.background-qos": .background,
        ]
        return classes[queue.label]
    }

    /// The run did what the plan does not have; in a learner's code, at the line that did it.
    func drift(_ difference: String) {
        let site = isLearners ? CallSite.inExperiment() : nil
        context.timeline.modelOutOfDate(site.map { "\($0): \(difference)" } ?? difference)
    }
}
