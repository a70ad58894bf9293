// Swift concurrency's own calls, for the instrumented ones of `Experiments/Lab/ArticleConcurrency.swift`
// that shadow them and cannot name them from their module.

extension Lab {
    /// Swift's `Task { … }`, which the instrumented initialiser cannot call from the module that
    /// shadows it; so too the other originals below.
    public static func originalTask<Success: Sendable>(
        name: String?, priority: TaskPriority?, operation: sending @escaping @isolated(any) () async -> Success
    ) -> Task<Success, Never> {
        Task(name: name, priority: priority, operation: operation)
    }

    /// Swift's throwing `Task { … }`.
    public static func originalThrowingTask<Success: Sendable>(
        name: String?, priority: TaskPriority?, operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
        Task(name: name, priority: priority, operation: operation)
    }

    /// Swift's `Task.detached { … }`.
    public static func originalDetachedTask<Success: Sendable>(
        name: String?, priority: TaskPriority?, operation: sending @escaping @isolated(any) () async -> Success
    ) -> Task<Success, Never> {
        Task.detached(name: name, priority: priority, operation: operation)
    }

    /// Swift's throwing `Task.detached { … }`.
    public static func originalThrowingDetachedTask<Success: Sendable>(
        name: String?, priority: TaskPriority?, operation: sending @escaping @isolated(any) () async throws -> Success
    ) -> Task<Success, any Error> {
        Task.detached(name: name, priority: priority, operation: operation)
    }

    /// Swift's `Task.isCancelled`.
    public static var originalTaskIsCancelled: Bool {
        Task.isCancelled
    }

    /// Swift's `task.cancel()`.
    public static func originalCancel<Success, Failure>(of task: Task<Success, Failure>) {
        task.cancel()
    }

    /// Swift's `withTaskGroup`.
    public static func originalWithTaskGroup<ChildTaskResult: Sendable, GroupResult>(
        of childTaskResultType: ChildTaskResult.Type, returning returnType: GroupResult.Type,
        isolation: isolated (any Actor)?, body: (inout TaskGroup<ChildTaskResult>) async -> GroupResult
    ) async -> GroupResult {
        await withTaskGroup(of: childTaskResultType, returning: returnType, isolation: isolation, body: body)
    }

    /// Swift's `withThrowingTaskGroup`.
    public static func originalWithThrowingTaskGroup<ChildTaskResult: Sendable, GroupResult>(
        of childTaskResultType: ChildTaskResult.Type, returning returnType: GroupResult.Type,
        isolation: isolated (any Actor)?,
        body: (inout ThrowingTaskGroup<ChildTaskResult, any Error>) async throws -> GroupResult
    ) async rethrows -> GroupResult {
        try await withThrowingTaskGroup(
            of: childTaskResultType, returning: returnType, isolation: isolation, body: body)
    }

    /// Swift's `group.addTask { … }`.
    public static func originalAddTask<ChildTaskResult: Sendable>(
        to group: inout TaskGroup<ChildTaskResult>, priority: TaskPriority?,
        operation: sending @escaping @isolated(any) () async -> ChildTaskResult
    ) {
        group.addTask(priority: priority, operation: operation)
    }

    /// Swift's `group.next()`.
    public static func originalNext<ChildTaskResult: Sendable>(
        of group: inout TaskGroup<ChildTaskResult>, isolation: isolated (any Actor)?
    ) async -> ChildTaskResult? {
        await group.next(isolation: isolation)
    }

    /// Swift's throwing `group.next()`.
    public static func originalNext<ChildTaskResult: Sendable>(
        of group: inout ThrowingTaskGroup<ChildTaskResult, any Error>, isolation: isolated (any Actor)?
    ) async throws -> ChildTaskResult? {
        try await group.next(isolation: isolation)
    }

    /// Swift's throwing `group.addTask { … }`.
    public static func originalAddTask<ChildTaskResult: Sendable>(
        to group: inout ThrowingTaskGroup<ChildTaskResult, any Error>, priority: TaskPriority?,
        operation: sending @escaping @isolated(any) () async throws -> ChildTaskResult
    ) {
        group.addTask(priority: priority, operation: operation)
    }

    /// Swift's `group.addTaskUnlessCancelled { … }`.
    public static func originalAddTaskUnlessCancelled<ChildTaskResult: Sendable>(
        to group: inout TaskGroup<ChildTaskResult>, priority: TaskPriority?,
        operation: sending @escaping @isolated(any) () async -> ChildTaskResult
    ) -> Bool {
        group.addTaskUnlessCancelled(priority: priority, operation: operation)
    }

    /// Swift's throwing `group.addTaskUnlessCancelled { … }`.
    public static func originalAddTaskUnlessCancelled<ChildTaskResult: Sendable>(
        to group: inout ThrowingTaskGroup<ChildTaskResult, any Error>, priority: TaskPriority?,
        operation: sending @escaping @isolated(any) () async throws -> ChildTaskResult
    ) -> Bool {
        group.addTaskUnlessCancelled(priority: priority, operation: operation)
    }
}
