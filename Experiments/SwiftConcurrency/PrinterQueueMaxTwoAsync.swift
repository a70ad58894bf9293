import ExperimentKit

// swift-format-ignore
// A task group that keeps two of the seven sleeping children in flight: the Swift-concurrency counterpart of ``printerQueueMaxTwo``.
let printerQueueMaxTwoAsync = Experiment("printer-queue-max-2-async", source: ModernCounterpart.source(of: printerQueueMaxTwo)) { _ in
    Task {
        await withTaskGroup(of: Void.self) { group in
            var words = ["Каждый 🍎", "Охотник 🍊", "Желает 🍋", "Знать 🍏", "Где 💎", "Сидит 🚙", "Фазан 🍆"][...]
            // A task group has no maxConcurrentOperationCount: add two, then one each time one ends.
            for word in words.prefix(2) {
                group.addTask { print(word); try? await Task.sleep(for: .seconds(2)) }
            }
            words = words.dropFirst(2)
            while await group.next() != nil {
                guard let word = words.popFirst() else { continue }
                group.addTask { print(word); try? await Task.sleep(for: .seconds(2)) }
            }
        }
    }
}
.title("Seven Task.sleep children, two in flight")
.summary(
    "The seven words as child tasks, two at a time: the group adds two, then one more each time group.next() returns a finished child. A task group has no maxConcurrentOperationCount; this is how it limits its width. Compare printer-queue-max-2."
)
.expectedOutcome(printerQueueMaxTwo.expectedOutcome)
.platformDifference(ModernCounterpart.platformDifference)
.checks { measurement, prediction in
    printerQueueMaxTwo.checks(measurement, prediction) + [ModernCounterpart.beside(printerQueueMaxTwo, prediction)]
}
