import ExperimentKit

/// What the printer-queue experiments of article 000, "Experiment 1", share besides their code:
/// where they come from, the words their checks look for, their knobs and their first check.
///
/// The article writes its seven closures once and then changes only what is around them ("set
/// the maxConcurrentOperationCount property to 2", "add another concatenationOperation", "to
/// 1"); each experiment's file holds the whole page, the seven closures repeated, as the
/// playground shows it after each change. Another word, a `sleep(3)` or an eighth line is an
/// edit of that file, and its prediction follows, for the model reads its plan from what is
/// added. The checks that name a word (printer-queue-max-2's seventh, qos-ordering's fourth to
/// seventh) read ``words``: change that list with the words.
enum PrinterQueue {
    static let article = "000_d66eefb2b922d5e0.txt"
    static let section = "Experiment 1. Creating an OperationQueue and Adding Closures"
    static let source = ArticleSource(file: article, section: section)
    /// The seven words, for the checks.
    static let words = ["Каждый 🍎", "Охотник 🍊", "Желает 🍋", "Знать 🍏", "Где 💎", "Сидит 🚙", "Фазан 🍆"]
    static let concatenation = "-------💧☂️"
    /// Each closure's `sleep(2)`, in article seconds, for the checks.
    static let sleepSeconds = 2.0

    /// The knobs of a printer-queue experiment: the variations the article makes by editing its
    /// playground, the width and (with the concatenation) its QoS. Anything else, the learner
    /// changes in the code itself.
    static func parameters(width: Int?, withConcatenation: Bool) -> [ParameterSpec] {
        [StandardParameters.width(width)]
            + (withConcatenation
                ? [StandardParameters.qos(.userInitiated, of: "the concatenation operation added last")] : [])
    }

    /// Every planned word was printed, each exactly once.
    static func printedEveryWord(_ measurement: MeasuredRun, _ workload: Workload) -> Check {
        let printed = measurement.output.map(\.text).sorted()
        let planned = printing(workload).map(\.label).sorted()
        return Check("each of the \(planned.count) operations printed its text once", passed: printed == planned)
    }

    /// The planned operations that print: all but the row of a task that opens a group (a
    /// Swift-concurrency counterpart's), its own after its children, which prints nothing.
    static func printing(_ workload: Workload) -> [PlannedOperation] {
        let groupHosts = Set(workload.registrations.filter(\.hostsATaskGroup).map { $0.operations[0] })
        return workload.operations.indices.filter { !groupHosts.contains($0) }.map { workload.operations[$0] }
    }
}
