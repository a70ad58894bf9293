import ExperimentKit

// Swift concurrency as a learner's code writes it: `Task { … }`, `Task.detached { … }`,
// `task.cancel()`, `Task.isCancelled`, `Task.checkCancellation()`, `withTaskGroup`,
// `withThrowingTaskGroup`, `group.addTask`, `group.addTaskUnlessCancelled` and `Task.sleep`, the
// standard library's, instrumented, with their signatures, shadowing the originals as the names
// of `ArticleFoundation.swift` do. Outside a lab session each behaves
// exactly as the original. In a session, a task started from the experiment's thread is planned
// on the cooperative pool (see ``TaskStart``) and `Task.sleep` lasts its article seconds times
// the time scale.

extension Task where Failure == Never {
    /// Swift's `Task { … }`, followed by the lab (``Lab/startingTask(_:of:)``).
    @discardableResult
    public init(
        name: String? = nil, priority: TaskPriority? = nil,
        @_inheritActorContext @_implicitSelfCapture operation: sending @escaping @isolated(any) () async -> Success
    ) {
        guard let start = Lab.startingTask("Task", of: operation) else {
            self = Lab.originalTask(name: name, priority: priority, operation: operation)
            return
        }
        self = Lab.originalTask(name: name, priority: priority) { await start.run(operation) }
        start.started(self)
    }

    /// Swift's `Task.detached { … }`, followed by the lab as `Task { … }` is.
    @discardableResult
    public static func detached(
        name: String? = nil, priority: TaskPriority? = nil,
        operation: sending @escaping @isolated(any) () async -> Success
    ) -> Task<Success, Never> {
        guard let start = Lab.startingTask("Task.detached", of: operation) else {
            return Lab.originalDetachedTask(name: name, priority: priority, operation: operation)
        }
        let task = Lab.originalDetachedTask(name: name, priority: priority) { await start.run(operation) }
        start.started(task)
        return task
    }
}

extension Task where Failure == any Error {
    /// Swift's throwing `Task { … }`, followed by the lab as the other is.
    @discardableResult
    public init(
        name: String? = nil, priority: TaskPriority? = nil,
        @_inheritActorContext @_implicitSelfCapture operation:
            sending @escaping @isolated(any) () async throws
            -> Success
    ) {
        guard let start = Lab.startingTask("Task", of: operation) else {
            self = Lab.originalThrowingTask(name: name, priority: priority, operation: operation)
            return
        }
        self = Lab.originalThrowingTask(name: name, priority: priority) { try await start.run(operation) }
        start.started(self)
    }

    /// Swift's throwing `Task.detached { … }`, followed by the lab as `Task { … }` is.
    @discardableResult
    public static func detached(
        name: String? = nil, priority: TaskPriority? = nil,
        operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
        guard let start = Lab.startingTask("Task.detached", of: operation) else {
            return Lab.originalThrowingDetachedTask(name: name, priority: priority, operation: operation)
        }
        let task = Lab.originalThrowingDetachedTask(name: name, priority: priority) { try await start.run(operation) }
        start.started(task)
        return task
    }
}

/// Swift's `withTaskGroup`, followed by the lab (``Lab/openingTaskGroup(_:isolation:_:)``).
public func withTaskGroup<ChildTaskResult: Sendable, GroupResult>(
    of childTaskResultType: ChildTaskResult.Type = ChildTaskResult.self,
    returning returnType: GroupResult.Type = GroupResult.self, isolation: isolated (any Actor)? = #isolation,
    body: (inout TaskGroup<ChildTaskResult>) async -> GroupResult
) async -> GroupResult {
    await Lab.openingTaskGroup("withTaskGroup", isolation: isolation) {
        await Lab.originalWithTaskGroup(
            of: childTaskResultType, returning: returnType, isolation: isolation, body: body)
    }
}

/// Swift's `withThrowingTaskGroup`, followed by the lab as `withTaskGroup` is.
public func withThrowingTaskGroup<ChildTaskResult: Sendable, GroupResult>(
    of childTaskResultType: ChildTaskResult.Type = ChildTaskResult.self,
    returning returnType: GroupResult.Type = GroupResult.self, isolation: isolated (any Actor)? = #isolation,
    body: (inout ThrowingTaskGroup<ChildTaskResult, any Error>) async throws -> GroupResult
) async rethrows -> GroupResult {
    try await Lab.openingTaskGroup("withThrowingTaskGroup", isolation: isolation) {
        try await Lab.originalWithThrowingTaskGroup(
            of: childTaskResultType, returning: returnType, isolation: isolation, body: body)
    }
}

extension TaskGroup {
    /// Swift's `addTask`, followed by the lab (``Lab/addingChildTask(_:)``).
    public mutating func addTask(
        priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async -> ChildTaskResult
    ) {
        guard let child = Lab.addingChildTask() else {
            return Lab.originalAddTask(to: &self, priority: priority, operation: operation)
        }
        Lab.originalAddTask(to: &self, priority: priority) { await child.run(operation) }
    }

    /// Swift's `addTaskUnlessCancelled`, followed by the lab as `addTask` is: false, and no
    /// child, once the group is cancelled.
    public mutating func addTaskUnlessCancelled(
        priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async -> ChildTaskResult
    ) -> Bool {
        guard let child = Lab.addingChildTask("group.addTaskUnlessCancelled") else {
            return Lab.originalAddTaskUnlessCancelled(to: &self, priority: priority, operation: operation)
        }
        let added = Lab.originalAddTaskUnlessCancelled(to: &self, priority: priority) { await child.run(operation) }
        if !added { child.notAdded() }
        return added
    }
}

extension ThrowingTaskGroup where Failure == any Error {
    /// Swift's throwing `addTask`, followed by the lab as `TaskGroup`'s is.
    public mutating func addTask(
        priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async throws -> ChildTaskResult
    ) {
        guard let child = Lab.addingChildTask() else {
            return Lab.originalAddTask(to: &self, priority: priority, operation: operation)
        }
        Lab.originalAddTask(to: &self, priority: priority) { try await child.run(operation) }
    }

    /// Swift's throwing `addTaskUnlessCancelled`, followed by the lab as `TaskGroup`'s is.
    public mutating func addTaskUnlessCancelled(
        priority: TaskPriority? = nil, operation: sending @escaping @isolated(any) () async throws -> ChildTaskResult
    ) -> Bool {
        guard let child = Lab.addingChildTask("group.addTaskUnlessCancelled") else {
            return Lab.originalAddTaskUnlessCancelled(to: &self, priority: priority, operation: operation)
        }
        let added = Lab.originalAddTaskUnlessCancelled(to: &self, priority: priority) {
            try await child.run(operation)
        }
        if !added { child.notAdded() }
        return added
    }
}

extension Task {
    /// Swift's `cancel()`, followed by the lab (``Lab/cancelling(_:cancel:)``).
    public func cancel() {
        Lab.cancelling(self) { Lab.originalCancel(of: self) }
    }
}

extension Task where Success == Never, Failure == Never {
    /// Swift's `Task.isCancelled`, followed by the lab (``Lab/lookingAtTaskCancellation(_:)``).
    public static var isCancelled: Bool {
        Lab.lookingAtTaskCancellation { Lab.originalTaskIsCancelled }
    }

    /// Swift's `Task.checkCancellation()`: throws `CancellationError` once the task is
    /// cancelled, a look at ``isCancelled`` as the lab follows it.
    public static func checkCancellation() throws {
        if isCancelled { throw _Concurrency.CancellationError() }
    }

    /// Swift's `Task.sleep(nanoseconds:)`, in article nanoseconds (``Lab/taskSleep(articleSeconds:)``).
    public static func sleep(nanoseconds duration: UInt64) async throws {
        try await Lab.taskSleep(articleSeconds: Double(duration) / 1_000_000_000)
    }

    /// Swift's `Task.sleep(for:)`: a `Duration` is article time, as `sleep(nanoseconds:)`'s; a
    /// clock of another kind of duration sleeps as Swift's does.
    public static func sleep<C: Clock>(
        for duration: C.Instant.Duration, tolerance: C.Instant.Duration? = nil, clock: C = .continuous
    ) async throws {
        guard let articleDuration = duration as? Duration else {
            return try await clock.sleep(for: duration, tolerance: tolerance)
        }
        try await Lab.taskSleep(articleSeconds: Lab.seconds(of: articleDuration))
    }

    /// Swift's `Task.sleep(until:)`: on a clock of `Duration`s, the time the code asked
    /// `deadline` to lie after its `.now` is article time, as `sleep(for:)`'s
    /// (``Lab/articleSeconds(remaining:)``); on another clock, it sleeps as Swift's does.
    public static func sleep<C: Clock>(
        until deadline: C.Instant, tolerance: C.Instant.Duration? = nil, clock: C = .continuous
    ) async throws {
        guard Lab.current != nil, let articleDuration = clock.now.duration(to: deadline) as? Duration else {
            return try await clock.sleep(until: deadline, tolerance: tolerance)
        }
        try await Lab.taskSleep(articleSeconds: Lab.articleSeconds(remaining: Lab.seconds(of: articleDuration)))
    }
}

extension TaskGroup {
    /// Swift's `next()`, followed by the lab (``Lab/receivedChild()``): a child added after it
    /// waits, in the plan, for the child it returned.
    public mutating func next(isolation: isolated (any Actor)? = #isolation) async -> ChildTaskResult? {
        let child = await Lab.originalNext(of: &self, isolation: isolation)
        if child != nil { Lab.receivedChild() }
        return child
    }
}

extension ThrowingTaskGroup where Failure == any Error {
    /// Swift's throwing `next()`, followed by the lab as `TaskGroup`'s is.
    public mutating func next(isolation: isolated (any Actor)? = #isolation) async throws -> ChildTaskResult? {
        let child = try await Lab.originalNext(of: &self, isolation: isolation)
        if child != nil { Lab.receivedChild() }
        return child
    }
}
