/// A task group that keeps at most a given number of children in flight. A task group has no
/// `maxConcurrentOperationCount`; this is how it limits its width: add that many children, then
/// one more each time one finishes.
enum BoundedTaskGroup {
    /// Runs `child` for each item, `inFlight` at a time, in the items' order, and hands each
    /// child's result to `arrived`, in the task that owns the group, as the child finishes.
    /// Once the group is cancelled it adds no more children (`addTaskUnlessCancelled`).
    static func run<Item: Sendable, ChildResult: Sendable>(
        _ items: [Item],
        inFlight: Int,
        child: @escaping @Sendable (Item) async throws -> ChildResult,
        arrived: (ChildResult) -> Void = { _ in }
    ) async throws {
        try await withThrowingTaskGroup(of: ChildResult.self) { group in
            for item in items.prefix(inFlight) {
                group.addTask { try await child(item) }
            }
            var waiting = items.dropFirst(inFlight)
            while let result = try await group.next() {
                arrived(result)
                guard let item = waiting.popFirst() else { continue }
                // Whether it was added is not needed: a cancelled group simply runs out of children.
                _ = group.addTaskUnlessCancelled { try await child(item) }
            }
        }
    }
}
