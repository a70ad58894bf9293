import ExperimentKit

// swift-format-ignore
// Seven children of a task group, each awaiting `Task.sleep(2 s)`: the Swift-concurrency counterpart of ``concurrentPrinterQueue``.
let concurrentPrinterQueueAsync = Experiment("concurrent-printer-queue-async", source: ModernCounterpart.source(of: concurrentPrinterQueue)) { _ in
    Task {
        await withTaskGroup(of: Void.self) { group in
            for word in ["Каждый 🍎", "Охотник 🍊", "Желает 🍋", "Знать 🍏", "Где 💎", "Сидит 🚙", "Фазан 🍆"] {
                group.addTask { print(word); try? await Task.sleep(for: .seconds(2)) }
            }
        }
    }
}
.title("Seven Task.sleep children in a TaskGroup")
.summary(
    "The seven words as child tasks of one task group, all added at once; each prints its word and awaits try await Task.sleep for 2 s, which suspends the task and holds no thread. Compare concurrent-printer-queue, whose closures block their threads with sleep(2)."
)
.expectedOutcome(
    "All seven words print at once and the group ends after one sleep, about 2 s, on a pool of only as many threads as CPUs."
)
.platformDifference(ModernCounterpart.platformDifference)
.checks { measurement, prediction in
    concurrentPrinterQueue.checks(measurement, prediction) + [
        ModernCounterpart.beside(concurrentPrinterQueue, prediction)
    ]
}
