import ExperimentKit

extension Timeline {
    /// Runs `body` as the operation `label` from inside a task: records its start and thread,
    /// and its end, marked cancelled when `body` stopped by throwing `CancellationError`. The
    /// task may resume on another thread after a suspension; the row keeps the one it began on.
    func recording<Value>(_ label: String, _ body: () async throws -> Value) async rethrows -> Value {
        let span = begin(label)
        do {
            let value = try await body()
            end(span)
            return value
        } catch {
            end(span, cancelled: error is CancellationError)
            throw error
        }
    }
}
