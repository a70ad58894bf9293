import ExperimentKit

/// The printer queue of article 000, "Experiment 1": seven closures, each printing one word of a
/// Russian rainbow mnemonic and sleeping 2 s, and a `.userInitiated` concatenation added last.
///
/// Each experiment's own file holds its closures, one `addOperation` line each, as the article's
/// playground repeats them for each variation; what they share here is only what their checks
/// and the Swift-concurrency counterparts read.
enum PrinterQueue {
    static let source = ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Experiment 1: OperationQueue (printerQueue)")
    static let words = ["Каждый 🍎", "Охотник 🍊", "Желает 🍋", "Знать 🍏", "Где 💎", "Сидит 🚙", "Фазан 🍆"]
    static let concatenation = "-------💧☂️"
    /// Each closure's `sleep(2)`, in article seconds (the Swift-concurrency counterparts' plan).
    static let sleepSeconds = 2.0

    /// The knobs of a printer-queue experiment: the variations the article makes by editing its
    /// playground, the width and (with the concatenation) its QoS. Anything else, the learner
    /// changes in the code itself.
    static func parameters(width: Int?, withConcatenation: Bool) -> [ParameterSpec] {
        [StandardParameters.width(width)]
            + (withConcatenation ? [StandardParameters.qos(.userInitiated, of: "the concatenation operation added last")] : [])
    }

    /// Every planned word was printed, each exactly once.
    static func printedEveryWord(_ measurement: MeasuredRun, _ workload: Workload) -> Check {
        let printed = measurement.output.map(\.text).sorted()
        let planned = workload.operations.map(\.label).sorted()
        return Check("each of the \(planned.count) operations printed its text once", passed: printed == planned)
    }
}
