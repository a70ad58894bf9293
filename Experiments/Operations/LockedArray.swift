import Synchronization

/// An array many threads append to: results collected by completion blocks and callbacks.
final class LockedArray<Element: Sendable>: Sendable {
    private let storage = Mutex<[Element]>([])

    func append(_ element: Element) {
        storage.withLock { $0.append(element) }
    }

    /// A copy of the elements, in the order they were appended.
    var elements: [Element] {
        storage.withLock { $0 }
    }
}
