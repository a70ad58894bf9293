import Foundation

/// The "complex operation" of article 000's patterns 1 and 2 (``GroupAdd``, ``ImageProvider``):
/// an object that owns a private queue, created suspended, holds its group of operations there,
/// and "has all the typical operation methods: start(), cancel(), wait()", each acting on the
/// whole group through that queue.
protocol ComplexOperation {
    /// The private queue, created suspended: nothing runs before `start()`.
    var queue: OperationQueue { get }

    /// Returns when the group's work is over. By default, when the queue has finished its
    /// operations; ``GroupAdd`` waits for more.
    func wait()
}

extension ComplexOperation {
    /// Lets the queue start the group's operations.
    func start() {
        queue.isSuspended = false
    }

    /// Cancels every operation of the group.
    func cancel() {
        queue.cancelAllOperations()
    }

    func wait() {
        queue.waitUntilAllOperationsAreFinished()
    }
}
