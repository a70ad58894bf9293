// Dispatch's work items the code sends, performs, cancels, waits for and is notified of.

import ExperimentModel
import Foundation

extension Lab {
    /// `DispatchWorkItem(qos:flags:block:)`: its QoS and flags, kept, so that sending the item
    /// hands them to Dispatch with its block and a `.barrier` item is planned as a barrier.
    package func madeWorkItem(_ item: DispatchWorkItem, qos: DispatchQoS, flags: DispatchWorkItemFlags) {
        lock.withLock {
            synchroniserObjects.append(item)
            workItemAttributes[ObjectIdentifier(item)] = (qos, flags)
        }
    }

    /// `queue.async(execute: item)` or `queue.async(group:execute: item)`: the item's block,
    /// planned as a block sent with `async` (``dispatching(_:to:group:barrier:submit:)``), a
    /// barrier when the item was made with `.barrier`, performed through the item, so that its
    /// `wait()` and `notify` see it done (invoking a work item's block marks it performed:
    /// `DispatchWorkItem.perform()`). An item cancelled before it is sent does nothing when it
    /// runs ("Cancellation causes future attempts to execute the work item to return
    /// immediately", Apple's `DispatchWorkItem.cancel()`), so its planned block takes no time.
    /// `submit` hands Dispatch a block with the item's QoS and flags, which Dispatch honours as
    /// it does the item's own.
    package func dispatching(
        _ item: DispatchWorkItem, to queue: DispatchQueue, group: DispatchGroup? = nil,
        submit: (DispatchQoS, DispatchWorkItemFlags, @escaping @Sendable () -> Void) -> Void
    ) {
        // Safe: a DispatchWorkItem is thread-safe, as Dispatch's own `async(execute:)` treats it.
        nonisolated(unsafe) let item = item
        let (qos, flags) = lock.withLock { workItemAttributes[ObjectIdentifier(item)] } ?? (.unspecified, [])
        let index = dispatching(
            { item.dispatchPerform() }, to: queue, group: group, barrier: flags.contains(.barrier)
        ) { submit(qos, flags, $0) }
        lock.withLock {
            synchroniserObjects.append(item)
            if let index { workItems[ObjectIdentifier(item)] = index }
        }
    }

    /// `item.perform()`: its block runs here, on the calling thread, whose sleeps they are; a
    /// later `wait()` finds it done.
    package func performing(_ item: DispatchWorkItem) {
        lock.withLock {
            synchroniserObjects.append(item)
            performedWorkItems.insert(ObjectIdentifier(item))
        }
    }

    /// `item.cancel()`: before the item is sent, its block never runs; after, whether it had
    /// started by then the plan cannot tell, which is named.
    package func cancelling(_ item: DispatchWorkItem) {
        guard mode == .rehearsing, lock.withLock({ workItems[ObjectIdentifier(item)] != nil }) else { return }
        unmodelled(
            "DispatchWorkItem.cancel()",
            why: "it comes after the item was sent, and whether it had started the plan cannot tell")
    }

    /// A work item sent where the plan does not hold it (after a delay, by a group's notify):
    /// in a rehearsal its block is called here (``rehearsesUnplanned(_:)``), and true is
    /// returned; in a run it is among the work the run waits for. A later `wait()` for it is named so.
    package func sendingUnplanned(_ item: DispatchWorkItem) -> Bool {
        lock.withLock {
            synchroniserObjects.append(item)
            unplannedWorkItems.insert(ObjectIdentifier(item))
        }
        if Self.rehearsesUnplanned({ item.dispatchPerform() }) { return true }
        tracked(item)
        return false
    }

    /// `item.wait()`: on the experiment's thread, a wait for the item's planned block; for one
    /// performed in place, none. Returns true when the wait is to be skipped (a rehearsal).
    package func skipsWaiting(forWorkItem item: DispatchWorkItem) -> Bool {
        skipsWaiting("DispatchWorkItem.wait()") { planned(of: item) }
    }

    /// `item.notify(queue:) { … }`: a block planned after the item's (see `notifying(_:_:on:after:submit:)`).
    package func notifying(
        _ block: @escaping () -> Void, of item: DispatchWorkItem, on queue: DispatchQueue,
        submit: (@escaping () -> Void) -> Void
    ) {
        notifying("DispatchWorkItem.notify", block, on: queue, after: { planned(of: item) }, submit: submit)
    }

    /// The planned block of `item`, or none for one performed in place; one neither sent nor
    /// performed runs at an instant the plan cannot tell. Called with `lock` held.
    private func planned(of item: DispatchWorkItem) -> Result<[Int], Unplannable> {
        if let index = workItems[ObjectIdentifier(item)] { return .success([index]) }
        if performedWorkItems.contains(ObjectIdentifier(item)) { return .success([]) }
        if unplannedWorkItems.contains(ObjectIdentifier(item)) {
            return .failure(
                Unplannable(why: "the item was sent where the plan does not hold it (after a delay, by a notify)"))
        }
        return .failure(
            Unplannable(
                why:
                    "the item is neither sent by the experiment's thread nor performed: the plan cannot tell when it runs"
            ))
    }
}
