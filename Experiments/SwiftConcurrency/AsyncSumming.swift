import ExperimentKit

/// The articles' slow addition with Swift concurrency: one sum's duration awaited with
/// `Task.sleep`, then the sum, recorded as the sum's row.
enum AsyncSumming {
    /// Awaits `Task.sleep` for `articleSeconds`, then adds, run to its end even when the calling
    /// task is cancelled, as the articles' `slowAdd` (a `sleep(1)`) is once begun: the caller
    /// sees the cancel only at its next check, as an Operation sees `isCancelled`.
    ///
    /// The sleep runs in an unstructured task of its own, which does not inherit the caller's
    /// cancellation; nothing else holds that task, so nothing can cut its sleep short.
    static func addToTheEnd(_ pair: (Int, Int), articleSeconds: Double, in context: RunContext) async -> Int {
        await context.timeline.recording(Summing.label(pair)) {
            await Task { try? await context.taskSleep(articleSeconds: articleSeconds) }.value
        }
        return pair.0 + pair.1
    }
}
