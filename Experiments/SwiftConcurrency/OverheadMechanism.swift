import Dispatch
import Foundation

/// The three ways the benchmark starts many empty tasks and waits for them: a BlockOperation
/// added to an OperationQueue, a block sent with `DispatchQueue.global().async` in a
/// DispatchGroup, and a child task of a TaskGroup.
enum OverheadMechanism: String, CaseIterable, Sendable {
    case operationQueue = "BlockOperation, OperationQueue"
    case dispatchGroup = "DispatchQueue.global().async"
    case taskGroup = "Task in a TaskGroup"

    /// Starts `tally.count` tasks that do nothing but mark their counter, from the calling
    /// thread, and returns when all have run.
    func runEmptyTasks(_ tally: TaskTally) throws {
        switch self {
        case .operationQueue:
            let queue = OperationQueue()
            for index in 0..<tally.count {
                queue.addOperation(BlockOperation { tally.mark(index) })
            }
            queue.waitUntilAllOperationsAreFinished()
        case .dispatchGroup:
            let group = DispatchGroup()
            for index in 0..<tally.count {
                DispatchQueue.global().async(group: group) { tally.mark(index) }
            }
            group.wait()
        case .taskGroup:
            try AwaitFromRun.wait {
                await withTaskGroup(of: Void.self) { group in
                    for index in 0..<tally.count {
                        group.addTask { tally.mark(index) }
                    }
                }
            }
        }
    }

    /// The row label of its runs in the timeline.
    var shortName: String {
        switch self {
        case .operationQueue: return "OperationQueue"
        case .dispatchGroup: return "DispatchGroup"
        case .taskGroup: return "TaskGroup"
        }
    }

    /// How long article 000 says the work in each lasts (not what starting one costs); it
    /// predates Swift concurrency.
    var articleSays: String {
        switch self {
        case .operationQueue: return "…the operation Operation usually takes from a few milliseconds to minutes."
        case .dispatchGroup:
            return "…the Dispatch blocks GCD take less time to complete: from nanoseconds to milliseconds…"
        case .taskGroup: return "— (not in the article)"
        }
    }
}
