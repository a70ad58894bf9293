import ExperimentKit

/// The printer queue of article 000, "Experiment 1": seven closures, each printing one word of a
/// Russian rainbow mnemonic and sleeping 2 s, and a `.userInitiated` concatenation added last.
enum PrinterQueue {
    static let source = ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Experiment 1: OperationQueue (printerQueue)")
    static let words = ["Каждый 🍎", "Охотник 🍊", "Желает 🍋", "Знать 🍏", "Где 💎", "Сидит 🚙", "Фазан 🍆"]
    static let concatenation = "-------💧☂️"
    /// Each closure's `sleep(2)`, in article seconds.
    static let sleepSeconds = 2.0

    /// The knobs of a printer-queue experiment: how many words, how long each sleeps, the width,
    /// and (with the concatenation) its QoS.
    static func parameters(width: Int?, withConcatenation: Bool) -> [ParameterSpec] {
        [StandardParameters.count(words.count, of: "word closures"), StandardParameters.sleep(sleepSeconds), StandardParameters.width(width)]
            + (withConcatenation ? [StandardParameters.qos(.userInitiated, of: "the concatenation operation added last")] : [])
    }

    /// The n-th word: the article's seven, then numbered ones for a longer queue.
    static func word(_ index: Int) -> String {
        index < words.count ? words[index] : "word \(index + 1)"
    }

    /// The words (and the concatenation, when asked) on one queue, as the values say.
    static func workload(_ values: Parameters, withConcatenation: Bool) -> Workload {
        var workload = Workload()
        let queue = workload.addQueue(QueueSpec(name: "printerQueue", maxConcurrentOperationCount: values.width("width")))
        for index in 0..<values.count("count") {
            workload.add(PlannedOperation(label: word(index), articleSeconds: values.seconds("sleep"), executor: .queue(queue)))
        }
        if withConcatenation {
            workload.add(PlannedOperation(label: concatenation, articleSeconds: values.seconds("sleep"), executor: .queue(queue), serviceClass: values.serviceClass("qos")))
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
