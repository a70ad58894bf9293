import ExperimentKit

extension RunContext {
    /// Suspends the calling task for `articleSeconds` (scaled) as `Task.sleep` does: unlike
    /// ``sleep(articleSeconds:)`` it holds no thread while it waits, and it ends at once,
    /// throwing `CancellationError`, if the task is cancelled. Recorded as a suspension.
    func taskSleep(articleSeconds: Double) async throws {
        try await timeline.suspend(forSeconds: realSeconds(articleSeconds))
    }
}
