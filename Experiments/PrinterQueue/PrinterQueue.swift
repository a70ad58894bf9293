import ExperimentKit

/// The printer queue of article 000, "Experiment 1": seven closures, each printing one word of a
/// Russian rainbow mnemonic and sleeping 2 s, and a `.userInitiated` concatenation added last.
enum PrinterQueue {
    static let source = ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Experiment 1: OperationQueue (printerQueue)")
    static let words = ["Каждый 🍎", "Охотник 🍊", "Желает 🍋", "Знать 🍏", "Где 💎", "Сидит 🚙", "Фазан 🍆"]
    static let concatenation = "-------💧☂️"
    /// Each closure's `sleep(2)`, in article seconds.
    static let sleepSeconds = 2.0

    /// The seven words (and the concatenation, when asked) on one queue of the given width.
    static func workload(width: Int?, withConcatenation: Bool) -> Workload {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "printerQueue", maxConcurrentOperationCount: width))
        for word in words {
            workload.add(PlannedOperation(label: word, articleSeconds: sleepSeconds, executor: .queue(queue)))
        }
        if withConcatenation {
            workload.add(PlannedOperation(label: concatenation, articleSeconds: sleepSeconds, executor: .queue(queue), serviceClass: .userInitiated))
        }
        return workload
    }

    /// Runs any printer-queue workload with the real OperationQueue.
    static func run(_ context: RunContext, _ workload: Workload) -> Outcome {
        QueueWorkloadRunner(context: context, workload: workload).runPrintingOperations()
    }

    /// Every planned word was printed, each exactly once.
    static func printedEveryWord(_ measurement: MeasuredRun, _ workload: Workload) -> Check {
        let printed = measurement.output.map(\.text).sorted()
        let planned = workload.operations.map(\.label).sorted()
        return Check("each of the \(planned.count) operations printed its text once", passed: printed == planned)
    }
}
