import Foundation

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
        self.init(
            label: label, qos: qos, attributes: attributes, autoreleaseFrequency: autoreleaseFrequency, target: target)
    }

    public func dispatchAsync(
        group: DispatchGroup?, qos: DispatchQoS, flags: DispatchWorkItemFlags,
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        async(group: group, qos: qos, flags: flags, execute: work)
    }

    public func dispatchAsyncAfter(
        deadline: DispatchTime, qos: DispatchQoS, flags: DispatchWorkItemFlags,
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        asyncAfter(deadline: deadline, qos: qos, flags: flags, execute: work)
    }

    public func dispatchSync<T>(flags: DispatchWorkItemFlags, execute work: () throws -> T) rethrows -> T {
        try sync(flags: flags, execute: work)
    }

    public func dispatchSync(execute workItem: DispatchWorkItem) {
        sync(execute: workItem)
    }

    public func dispatchAsync(execute workItem: DispatchWorkItem) {
        async(execute: workItem)
    }

    public func dispatchAsync(group: DispatchGroup, execute workItem: DispatchWorkItem) {
        async(group: group, execute: workItem)
    }

    public func dispatchAsyncAfter(deadline: DispatchTime, execute workItem: DispatchWorkItem) {
        asyncAfter(deadline: deadline, execute: workItem)
    }

    public func dispatchAsyncAfter(
        wallDeadline: DispatchWallTime, qos: DispatchQoS, flags: DispatchWorkItemFlags,
        execute work: @escaping @Sendable @convention(block) () -> Void
    ) {
        asyncAfter(wallDeadline: wallDeadline, qos: qos, flags: flags, execute: work)
    }

    public func dispatchAsyncAfter(wallDeadline: DispatchWallTime, execute workItem: DispatchWorkItem) {
        asyncAfter(wallDeadline: wallDeadline, execute: workItem)
    }

    /// Dispatch's `concurrentPerform`, given the closure as Dispatch declares it, not `Sendable`
    /// (as a learner's code in Swift 5 mode passes it), though this module's Swift 6 mode asks for one.
    public class func dispatchConcurrentPerform(iterations: Int, execute work: (Int) -> Void) {
        withoutActuallyEscaping(work) { work in
            // Safe: concurrentPerform returns only once every iteration has ended, and what
            // `work` shares between its iterations is the caller's, as with Dispatch's own call.
            nonisolated(unsafe) let work = work
            concurrentPerform(iterations: iterations) { work($0) }
        }
    }
}

extension DispatchWorkItem {
    public convenience init(
        dispatchQoS qos: DispatchQoS, flags: DispatchWorkItemFlags, block: @escaping @convention(block) () -> Void
    ) {
        self.init(qos: qos, flags: flags, block: block)
    }

    public func dispatchPerform() { perform() }
    public func dispatchCancel() { cancel() }
    public func dispatchWait() { wait() }
    public func dispatchWait(timeout: DispatchTime) -> DispatchTimeoutResult { wait(timeout: timeout) }

    public func dispatchNotify(
        qos: DispatchQoS, flags: DispatchWorkItemFlags, queue: DispatchQueue,
        execute work: @escaping @convention(block) () -> Void
    ) {
        notify(qos: qos, flags: flags, queue: queue, execute: work)
    }
}

extension DispatchObject {
    public func dispatchSuspend() { suspend() }
    public func dispatchResume() { resume() }
    public func dispatchActivate() { activate() }
}

extension DispatchSource {
    public class func dispatchMakeTimerSource(flags: TimerFlags, queue: DispatchQueue?) -> DispatchSourceTimer {
        makeTimerSource(flags: flags, queue: queue)
    }
}

extension DispatchGroup {
    public func dispatchNotify(queue: DispatchQueue, work workItem: DispatchWorkItem) {
        notify(queue: queue, work: workItem)
    }

    public func dispatchEnter() { enter() }
    public func dispatchLeave() { leave() }
    public func dispatchWait() { wait() }
    public func dispatchWait(timeout: DispatchTime) -> DispatchTimeoutResult { wait(timeout: timeout) }

    public func dispatchNotify(
        qos: DispatchQoS, flags: DispatchWorkItemFlags, queue: DispatchQueue,
        execute work: @escaping @convention(block) () -> Void
    ) {
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
