// The ledger of the DispatchGroups and DispatchSemaphores the code uses, and the waits on them.

import ExperimentModel
import Foundation

extension Lab {
    /// What the rehearsal knows of a `DispatchGroup` or `DispatchSemaphore` the code uses: which
    /// planned operations leave or signal it, so a wait on the experiment's thread is a wait for
    /// them.
    struct Synchroniser {
        /// A semaphore's permits from its creation, not yet taken.
        var permits = 0
        var entered = 0
        var left = 0
        /// A group's planned operations: those that leave it, or were sent into it, and whether as
        /// their work ends (a leave partway through comes at an instant the plan does not have).
        var members: [(operation: Int, atItsEnd: Bool)] = []
        /// A semaphore's signals not yet taken, in order: by which planned operation (nil: the
        /// experiment's thread), and whether as its work ends (a signal partway through comes at
        /// an instant the plan does not have).
        var signals: [(operation: Int?, atItsEnd: Bool)] = []
    }

    /// `DispatchSemaphore(value:)` in a rehearsal: its permits.
    package func madeSemaphore(_ semaphore: DispatchSemaphore, value: Int) {
        guard mode == .rehearsing else { return }
        lock.withLock {
            synchroniserObjects.append(semaphore)
            synchronisers[ObjectIdentifier(semaphore), default: Synchroniser()].permits = value
        }
    }

    /// `group.enter()`, `group.leave()` or `semaphore.signal()` in a rehearsal: inside an
    /// operation's work, the work's (see `attribute(_:to:)`); on the experiment's thread, now.
    /// Returns true in a rehearsal, where the call is only recorded: nothing waits on Dispatch
    /// there, and a group left entered, or a semaphore waited on more than it was signalled, would trap
    /// when it is freed.
    package func synchronising(_ object: AnyObject, _ event: RecordedWork.SynchronisingEvent) -> Bool {
        guard mode == .rehearsing else { return false }
        if let work = Lab.work {
            work.synchronised(object, event)
        } else {
            lock.withLock { record(event, on: object, by: nil, atItsEnd: true) }
        }
        return true
    }

    func record(_ event: RecordedWork.SynchronisingEvent, on object: AnyObject, by operation: Int?, atItsEnd: Bool) {
        let key = ObjectIdentifier(object)
        if synchronisers[key] == nil { synchroniserObjects.append(object) }
        switch event {
        case .entered: synchronisers[key, default: Synchroniser()].entered += 1
        case .left:
            synchronisers[key, default: Synchroniser()].left += 1
            if let operation { synchronisers[key, default: Synchroniser()].members.append((operation, atItsEnd)) }
        case .signalled: synchronisers[key, default: Synchroniser()].signals.append((operation, atItsEnd))
        }
    }

    /// The leaves and signals `work` made are the planned operation `index`'s.
    func attribute(_ work: RecordedWork, to index: Int) {
        for (object, event, waitsBefore) in work.synchronising {
            record(event, on: object, by: index, atItsEnd: waitsBefore == work.waitCount)
        }
    }

    /// `group.wait()`: on the experiment's thread, a wait for the planned operations that leave
    /// the group; one entered more often than its operations leave it waits for what the plan
    /// cannot tell. Returns true when the wait is to be skipped (a rehearsal).
    public func skipsWaiting(forGroup group: DispatchGroup) -> Bool {
        skipsWaiting("DispatchGroup.wait()") { members(of: group) }
    }

    /// The planned operations whose ends empty `group`: those that leave it, or were sent into
    /// it. One entered more often than its operations leave it, or left partway through a work,
    /// empties at an instant the plan cannot tell. Called with `lock` held.
    func members(of group: DispatchGroup) -> Result<[Int], Unplannable> {
        let known = synchronisers[ObjectIdentifier(group)] ?? Synchroniser()
        guard known.entered <= known.left else {
            return .failure(
                Unplannable(
                    why:
                        "entered \(Format.count(known.entered, "time")) and left \(Format.count(known.left, "time")) by the work the plan holds: the plan cannot tell what it waits for"
                ))
        }
        if let partway = known.members.first(where: { !$0.atItsEnd }) {
            return .failure(
                Unplannable(
                    why:
                        "'\(workload.operations[partway.operation].label)' leaves it partway through its work, at an instant the plan does not have"
                ))
        }
        return .success(known.members.map(\.operation))
    }

    /// `semaphore.wait()`: on the experiment's thread, a wait for the planned operation whose work
    /// ends with the signal it takes; a signal partway through a work, or none at all, is what
    /// the plan cannot tell. Inside an operation's work, a permit it was made with is taken;
    /// waiting for another's signal is named. Returns true when the wait is to be skipped.
    public func skipsWaiting(forSemaphore semaphore: DispatchSemaphore) -> Bool {
        let key = ObjectIdentifier(semaphore)
        if mode == .rehearsing, Lab.work != nil {
            let permitted = lock.withLock {
                guard synchronisers[key, default: Synchroniser()].permits > 0 else { return false }
                synchronisers[key]!.permits -= 1
                return true
            }
            if !permitted {
                unmodelled(
                    "DispatchSemaphore.wait() inside an operation's work", why: "the plan cannot tell how long it waits"
                )
            }
            return true
        }
        return skipsWaiting("DispatchSemaphore.wait()") {
            var known = synchronisers[key] ?? Synchroniser()
            defer { synchronisers[key] = known }
            if known.permits > 0 {
                known.permits -= 1
                return .success([])
            }
            guard !known.signals.isEmpty else {
                return .failure(
                    Unplannable(why: "nothing the plan holds signals it first: the plan cannot tell what it waits for"))
            }
            let signal = known.signals.removeFirst()
            guard let operation = signal.operation else { return .success([]) }
            guard signal.atItsEnd else {
                return .failure(
                    Unplannable(
                        why:
                            "'\(workload.operations[operation].label)' signals it partway through its work, at an instant the plan does not have"
                    ))
            }
            return .success([operation])
        }
    }
}
