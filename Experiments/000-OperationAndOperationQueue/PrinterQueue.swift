import ExperimentKit

/// The printer queue of article 000, "Experiment 1": seven closures, each printing one word of a
/// Russian rainbow mnemonic and sleeping 2 s, and a `.userInitiated` concatenation added last.
///
/// The article writes its closures once ("Add operations in the form of closures to the
/// printerQueue") and then changes only what is around them: "set the maxConcurrentOperationCount
/// property to 2", "add another concatenationOperation", "to 1". So do the experiments: each file
/// holds its own queue set-up (and the concatenation, the multi-printer's BlockOperation) and
/// calls ``addClosures(with:)`` for the seven closures, which stand only here.
enum PrinterQueue {
    static let source = ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Experiment 1. Creating an OperationQueue and Adding Closures")
    /// The seven words, for the checks and the Swift-concurrency counterparts.
    static let words = ["Каждый 🍎", "Охотник 🍊", "Желает 🍋", "Знать 🍏", "Где 💎", "Сидит 🚙", "Фазан 🍆"]
    static let concatenation = "-------💧☂️"
    /// Each closure's `sleep(2)`, in article seconds (the Swift-concurrency counterparts' plan).
    static let sleepSeconds = 2.0

    /// "Add operations in the form of closures to the printerQueue" (article 000): the seven
    /// closures, each given to `addOperation`, a queue's `addOperation` or a BlockOperation's
    /// `addExecutionBlock` (block-operation-multi-printer).
    ///
    /// Edit them here, as in the article's playground: another word, a `sleep(3)` or an eighth
    /// line changes all five printer-queue experiments at once, and their predictions follow, for
    /// the model reads its plan from what is added. (`OperationQueue`, `BlockOperation`, `print` and
    /// `sleep` are the instrumented ones of `Experiments/Lab/ArticleFoundation.swift`, so the
    /// rehearsal sees every closure.) The checks that name a word (printer-queue-max-2's seventh,
    /// qos-ordering's fourth to seventh) read ``words``: change that list with the words.
    static func addClosures(with addOperation: (@escaping @Sendable () -> Void) -> Void) {
        addOperation { print("Каждый 🍎"); sleep(2) }
        addOperation { print("Охотник 🍊"); sleep(2) }
        addOperation { print("Желает 🍋"); sleep(2) }
        addOperation { print("Знать 🍏"); sleep(2) }
        addOperation { print("Где 💎"); sleep(2) }
        addOperation { print("Сидит 🚙"); sleep(2) }
        addOperation { print("Фазан 🍆"); sleep(2) }
    }

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
