import ExperimentKit

/// The printer queue of article 000, "Experiment 1", with Swift concurrency: the seven words as
/// child tasks of a task group, each printing its word and awaiting `Task.sleep` for 2 s.
enum AsyncPrinterQueue {
    /// The seven words, `inFlight` at a time (nil: all at once).
    ///
    /// A child awaiting `Task.sleep` holds no thread: to the model it is a timer, started on the
    /// default pool. The group adds a word each time one finishes; as the words end together in
    /// each round, that is the moment the word `inFlight` places earlier finishes, which is the
    /// dependency the model is given.
    static func workload(inFlight: Int?) -> Workload {
        var workload = Workload()
        let width = inFlight ?? PrinterQueue.words.count
        for (index, word) in PrinterQueue.words.enumerated() {
            workload.add(
                PlannedOperation(
                    label: word, articleSeconds: PrinterQueue.sleepSeconds, executor: .globalQueue(.default),
                    dependencies: index >= width ? [index - width] : [], work: .timer
                ))
        }
        return workload
    }

    /// Adds the words with nothing to wait for at once, then one more each time a child finishes.
    static func run(_ context: RunContext, _ workload: Workload) throws -> Outcome {
        let words = workload.operations
        try AwaitFromRun.wait {
            try await BoundedTaskGroup.run(words, inFlight: words.filter(\.dependencies.isEmpty).count) { word in
                try await context.timeline.recording(word.label) {
                    context.print(word.label)
                    try await context.taskSleep(articleSeconds: word.articleSeconds)
                }
            }
        }
        return context.timeline.scheduleOutcome()
    }
}
