import Synchronization

/// An ``AsyncOperation`` that others can watch: KVO's stand-in on Linux.
///
/// The article's OperationObserver calls `addObserver(_:forKeyPath:options:context:)`, which
/// swift-corelibs-foundation does not have. This class gives observers the same news through
/// the ``AsyncOperation/willSend(_:)`` hook: each one is called with every change notification
/// the operation sends, on the thread that changes its state, before the notification goes out
/// (as KVO calls observers synchronously on the changing thread).
///
/// `@unchecked Sendable` (required of every Operation subclass): the observer list lives in a
/// `Mutex`, and observers are called with it released, so one may add another.
class ObservableAsyncOperation: AsyncOperation, @unchecked Sendable {
    private let observers = Mutex<[@Sendable (KeyValueNotification) -> Void]>([])

    /// Registers `observer` for every later change notification.
    func addObserver(_ observer: @escaping @Sendable (KeyValueNotification) -> Void) {
        observers.withLock { $0.append(observer) }
    }

    override func willSend(_ notification: KeyValueNotification) {
        for observer in observers.withLock({ $0 }) {
            observer(notification)
        }
    }
}
