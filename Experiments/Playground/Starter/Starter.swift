import ExperimentKit
// Foundation comes with the instrumented names the lab reads the plan from: imported again
// here, it would make every one of them ambiguous.
import Experiments

// Your own experiment, started from article 000's printer queue: `swift run run-experiments starter`.
let starter = Experiment("starter") { _ in
    let printerQueue = OperationQueue()
    // At most two closures run at once. Try 1 (one after another) or 3.
    printerQueue.maxConcurrentOperationCount = 2

    // Each closure prints a word and blocks its thread for one second.
    printerQueue.addOperation { print("Каждый 🍎"); sleep(1) }
    printerQueue.addOperation { print("Охотник 🍊"); sleep(1) }
    printerQueue.addOperation { print("Желает 🍋"); sleep(1) }

    // More to try: another closure; a dependency (`second.addDependency(first)` between two
    // BlockOperations added with `printerQueue.addOperations([first, second], waitUntilFinished:
    // false)`); a priority (`operation.qualityOfService = .userInitiated` before adding it).

    // Waits for all of them: the total the model predicted.
    printerQueue.waitUntilAllOperationsAreFinished()
}
// After the code, what a report shows beside it, when you want it: `.title("…")`,
// `.claim("…", seconds: 2)`, `.expectedOutcome("…")`, `.checks { measurement, prediction in … }`.
