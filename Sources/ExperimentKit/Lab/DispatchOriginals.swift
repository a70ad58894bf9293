import Foundation
import ExperimentModel

// Dispatch's and Foundation's own calls, under names of their own. The Experiments module
// instruments `DispatchQueue`, `DispatchGroup`, `DispatchSemaphore` and `Thread` by declaring
// calls of the very same signatures (its own declarations win there over the imported ones, so
// an experiment's file reads like the article's); those call the originals through these names,
// which this module, where no such declaration stands, resolves to Dispatch's and Foundation's.

extension DispatchQueue {
    public convenience init(
        dispatchLabel label: String, qos: DispatchQoS, attributes: Attributes,
        autoreleaseFrequency: AutoreleaseFrequency, target: DispatchQueue?
    ) {
        self.init(label: label, qos: qos, attributes: attributes, autoreleaseFrequency: autoreleaseFrequency, target: target)
    }

    public func dispatchAsync(group: DispatchGroup?, qos: DispatchQoS, flags: DispatchWorkItemFlags, execute work: @escaping @Sendable @convention(block) () -> Void) {
        async(group: group, qos: qos, flags: flags, execute: work)
    }

    public func dispatchAsyncAfter(deadline: DispatchTime, qos: DispatchQoS, flags: DispatchWorkItemFlags, execute work: @escaping @Sendable @convention(block) () -> Void) {
        asyncAfter(deadline: deadline, qos: qos, flags: flags, execute: work)
    }
}

extension DispatchGroup {
    public func dispatchEnter() { enter() }
    public func dispatchLeave() { leave() }
    public func dispatchWait() { wait() }
    public func dispatchWait(timeout: DispatchTime) -> DispatchTimeoutResult { wait(timeout: timeout) }

    public func dispatchNotify(qos: DispatchQoS, flags: DispatchWorkItemFlags, queue: DispatchQueue, execute work: @escaping @Sendable @convention(block) () -> Void) {
        notify(qos: qos, flags: flags, queue: queue, execute: work)
    }
}

extension DispatchSemaphore {
    public convenience init(permits: Int) {
        self.init(value: permits)
    }

    public func dispatchSignal() -> Int { signal() }
    public func dispatchWait() { wait() }
    public func dispatchWait(timeout: DispatchTime) -> DispatchTimeoutResult { wait(timeout: timeout) }
}

extension Thread {
    public class func foundationDetachNewThread(_ block: @escaping @Sendable () -> Void) {
        detachNewThread(block)
    }
}
