import Foundation
import Synchronization

/// Runs Swift-concurrency work from an experiment's `run`, which the runner calls synchronously,
/// and blocks the experiment's own thread until the work ends.
///
/// Blocking here starves no task: the experiment's thread is not one of the threads that run
/// tasks, so the children it waits for go on without it.
enum AwaitFromRun {
    /// Starts `body` in a task, waits for it, and returns what it returned (or throws what it threw).
    static func wait<Value: Sendable>(_ body: @escaping @Sendable () async throws -> Value) throws -> Value {
        let ended = TaskEnding<Value>()
        Task {
            do {
                ended.record(.success(try await body()))
            } catch {
                ended.record(.failure(error))
            }
        }
        return try ended.wait().get()
    }
}

/// The result of one task, handed from the task to the thread that waits for it.
private final class TaskEnding<Value: Sendable>: Sendable {
    private let result = Mutex<Result<Value, any Error>?>(nil)
    private let recorded = DispatchSemaphore(value: 0)

    func record(_ outcome: Result<Value, any Error>) {
        result.withLock { $0 = outcome }
        recorded.signal()
    }

    func wait() -> Result<Value, any Error> {
        recorded.wait()
        return result.withLock { $0! }
    }
}
