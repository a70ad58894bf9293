import Synchronization

/// One atomic counter per task of a benchmark run: each task adds one to its own, so afterwards
/// every counter reads 1 exactly when every task ran, and ran once.
///
/// `@unchecked Sendable`: the counters are allocated and initialised in `init` and freed in
/// `deinit`; in between they are only touched through `Atomic` operations, from any thread.
final class TaskTally: @unchecked Sendable {
    let count: Int
    private let counters: UnsafeMutablePointer<Atomic<Int>>

    init(count: Int) {
        self.count = count
        counters = .allocate(capacity: count)
        for index in 0..<count {
            (counters + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        counters.deinitialize(count: count)
        counters.deallocate()
    }

    /// Task `index` ran.
    func mark(_ index: Int) {
        counters[index].add(1, ordering: .relaxed)
    }

    /// Whether every task ran exactly once; call once the run has been waited for, which orders
    /// every task's mark before this read.
    var everyTaskRanOnce: Bool {
        (0..<count).allSatisfy { counters[$0].load(ordering: .relaxed) == 1 }
    }
}
