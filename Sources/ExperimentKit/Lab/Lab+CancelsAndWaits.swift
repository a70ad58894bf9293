// Cancels, suspensions and waits the code makes, and the constructs the plan names as unmodelled.

import ExperimentModel
import Foundation

extension Lab {
    /// as a dependency removed before it finished (`PlannedOperation.hasRemovedDependency`).
    package func removingDependency(_ dependency: Operation, of operation: Operation) {
        guard mode == .rehearsing, operation.dependencies.contains(where: { $0 === dependency }) else { return }
        lock.withLock { removals.append((operation, dependency)) }
    }

    /// The code made `queue` (`DispatchQueue(label:)`), serial (Dispatch's default) or not: a
    /// DispatchQueue cannot be asked whether it is, so an OperationQueue's `underlyingQueue` is
    /// read as serial when it is one of the serial ones, and what is sent to either is planned
    /// on it (``dispatching(_:to:group:barrier:submit:)``).
    package func madeQueue(_ queue: DispatchQueue, serial: Bool) {
        lock.withLock {
            if serial { serialQueues.append(queue) } else { concurrentQueues.append(queue) }
        }
    }

    /// `queue.isSuspended = value` (after its first add: before, it is read as the queue's start).
    package func settingSuspended(_ value: Bool, on queue: OperationQueue) {
        rehearsing("isSuspended = \(value)", on: queue) {
            workload.setSuspended(value, queue: $0, atArticleSeconds: virtualNow)
        }
    }

    /// `operation.cancel()` after it was added or started (before, it is read as cancelled at the start).
    public func cancelling(_ operation: Operation) {
        guard mode == .rehearsing else { return }
        let index: Int? = lock.withLock {
            guard let registration = registered[ObjectIdentifier(operation)], case .queued = registration.kind,
                cancelledOperations.insert(registration.operations[0]).inserted
            else { return nil }
            return registration.operations[0]
        }
        guard let index, timedByTheThread("cancel()") else { return }
        lock.withLock { workload.cancel(.operation(index), atArticleSeconds: virtualNow) }
    }

    /// `queue.cancelAllOperations()`.
    package func cancellingAll(on queue: OperationQueue) {
        rehearsing("cancelAllOperations()", on: queue) { workload.cancel(.queue($0), atArticleSeconds: virtualNow) }
    }

    /// In a rehearsal, `call` on a queue the plan has: `record` plans it, given the queue's index,
    /// under `lock`, where its instant is known (``timedByTheThread(_:)``); elsewhere it is named.
    func rehearsing(_ call: String, on queue: OperationQueue, _ record: (Int) -> Void) {
        guard mode == .rehearsing, lock.withLock({ queueIndices[ObjectIdentifier(queue)] != nil }),
            timedByTheThread(call)
        else { return }
        lock.withLock {
            guard let index = queueIndices[ObjectIdentifier(queue)] else { return }
            record(index)
        }
    }

    /// Code is about to wait for `queue`'s operations: returns true when it should not (a
    /// rehearsal, where nothing runs). See ``skipsWaiting(for:)-(Operation)``.
    public func skipsWaiting(forQueue queue: OperationQueue) -> Bool {
        if isLearners, queue === lock.withLock({ mainQueueStandIn }) {
            return skipsWaiting("OperationQueue.main.waitUntilAllOperationsAreFinished()") {
                .failure(
                    Unplannable(
                        why:
                            "the main thread waits for work only the main thread runs: it never returns, as in plain Foundation (the article: never do this on the main queue)"
                    ))
            }
        }
        return skipsWaiting("waitUntilAllOperationsAreFinished()") {
            guard let index = queueIndices[ObjectIdentifier(queue)] else { return .success([]) }
            return .success(registrations.filter { $0.kind == .queued(queue: index) }.flatMap(\.operations))
        }
    }

    /// Code is about to wait for `operation`: returns true when it should not (a rehearsal, where
    /// nothing runs). On the experiment's own thread, what it adds or sleeps afterwards follows
    /// the operation's end; in a run, adding is over (see ``waiting()``).
    public func skipsWaiting(for operation: Operation) -> Bool {
        skipsWaiting(for: [operation])
    }

    /// Code is about to wait for `operations` (none: for work the plan has no operation for).
    public func skipsWaiting(for operations: [Operation]) -> Bool {
        skipsWaiting("waitUntilFinished()") {
            .success(operations.flatMap { registered[ObjectIdentifier($0)]?.operations ?? [] })
        }
    }

    /// The experiment's own thread waits (in `construct`) for what `awaited` finds, or for what
    /// the plan cannot tell, which is then named (the failure's reason).
    func skipsWaiting(_ construct: String, _ awaited: () -> Result<[Int], Unplannable>) -> Bool {
        guard isExperimentThread else {
            if mode == .rehearsing, isLearners, Lab.work != nil {
                unmodelled(
                    "\(construct) inside an operation",
                    why: "the operation's thread waits for other work, which the model does not plan yet")
            }
            return mode == .rehearsing
        }
        waiting()
        guard mode == .rehearsing else {
            lock.withLock { waited = true }
            return false
        }
        rehearsePendingMains()
        let found = lock.withLock {
            waited = true
            return awaited()
        }
        switch found {
        case .success(let operations): lock.withLock { self.awaited += operations }
        case .failure(let unplannable): unmodelled(construct, why: unplannable.why)
        }
        return true
    }

    /// Why the plan cannot contain something the code does.
    struct Unplannable: Error {
        var why: String
    }

    /// The experiment's thread starts an operation by hand: `start()` returns when its work has
    /// ended, so what the thread does next follows it, as after a wait.
    func threadRuns(_ operations: [Int]) {
        guard isExperimentThread else { return }
        lock.withLock {
            waited = true
            awaited += operations
        }
    }

    /// Whether the caller is the experiment's own thread, outside any operation's work.
    var isExperimentThread: Bool {
        Lab.work == nil && lock.withLock { experimentThread == ObjectIdentifier(Thread.current) }
    }

    /// Records what the code does that the plan cannot contain, with the line that does it. In
    /// a run, nothing: the stack is read only in a rehearsal, where no time is measured.
    public func unmodelled(_ construct: String, why: String) {
        guard mode == .rehearsing else { return }
        unmodelled(construct, why: why, site: CallSite.inExperiment())
    }

    /// ``unmodelled(_:why:)`` at a line read before.
    func unmodelled(_ construct: String, why: String, site: String?) {
        lock.withLock { unmodelled.append(UnmodelledConstruct(construct: construct, site: site, why: why)) }
    }

    /// `OperationQueue.current`, which `read` gives. Read inside an operation's work in a
    /// rehearsal of a learner's code, it is named, and nil: the rehearsal runs the work on no
    /// queue, so what the code does with the queue it finds (an add) the plan does not hold.
    package static func readingCurrentQueue(_ read: () -> OperationQueue?) -> OperationQueue? {
        if let lab = current, lab.mode == .rehearsing, lab.isLearners, work != nil {
            lab.unmodelled(
                "OperationQueue.current inside an operation",
                why:
                    "the rehearsal runs an operation on no queue, so what the code does with the queue it finds the model does not plan yet"
            )
            return nil
        }
        // Foundation's answer on the main thread is `OperationQueue.main`: read so, it is not the code's use of it.
        return $readingCurrent.withValue(true, operation: read)
    }

    @TaskLocal static var readingCurrent = false

    /// An operation's `completionBlock` is set: in a rehearsal of a learner's code, the line is
    /// kept, to name the block there if it sleeps (`planCompletion(of:label:after:)`).
    package func settingCompletion(of operation: Operation) {
        guard mode == .rehearsing, isLearners, let site = CallSite.inExperiment() else { return }
        lock.withLock { completionSites[ObjectIdentifier(operation)] = site }
    }

    /// A cancel or a suspension the experiment's thread makes after a wait comes at an instant
    /// the rehearsal cannot know (the wait's end): named, rather than planned at a wrong one.
    private func timedByTheThread(_ construct: String) -> Bool {
        guard lock.withLock({ waited }) || Lab.work != nil else { return true }
        unmodelled(
            construct,
            why: Lab.work != nil
                ? "made inside an operation's work, at an instant the plan cannot tell"
                : "made after the experiment's thread waited, at an instant the plan cannot tell")
        return false
    }
}
