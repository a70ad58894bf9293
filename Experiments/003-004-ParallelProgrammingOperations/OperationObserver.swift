import ExperimentKit
import Foundation
import Synchronization

/// The article's OperationObserver (003/004), rebuilt for Linux: prints "done" as soon as the
/// operation it watches finishes.
///
/// The article registers with KVO for the key path "finished"; corelibs Foundation has no
/// `addObserver(_:forKeyPath:options:context:)`, so this one registers with the operation
/// itself (an ``ObservableAsyncOperation``). Like a KVO observer it is called synchronously, on
/// the thread that finishes the operation. It keeps every notification it saw, and what
/// `isFinished` said when "done" was printed.
final class OperationObserver: Sendable {
    private let seen = LockedArray<String>()
    private let finishedWhenDone = Mutex<Bool?>(nil)

    init(operation: ObservableAsyncOperation) {
        // The operation keeps its observers, and so this one, alive; unowned: no cycle back.
        operation.addObserver { [self, unowned operation] notification in
            seen.append(notification.description)
            if notification == .didChange("isFinished") {
                finishedWhenDone.withLock { $0 = operation.isFinished }
                print("done")
            }
        }
    }

    /// The notifications observed, in order: `willChange(isReady)`, ….
    var notifications: [String] {
        seen.elements
    }

    /// `isFinished` as the observer read it when it printed "done"; nil if it never did.
    var isFinishedWhenDone: Bool? {
        finishedWhenDone.withLock { $0 }
    }
}
