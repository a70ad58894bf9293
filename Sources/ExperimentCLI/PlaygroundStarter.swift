import Foundation
import ExperimentModel
import ExperimentKit
import ExperimentRunner
import ExperimentReports
import ReportFiles

/// `run-experiments new NAME`: a learner's own experiment, started from article 000's printer
/// queue, in `Experiments/Playground/`.
///
/// Registering it needs no other edit: the folder's list, `Experiments/Playground/Playground.swift`,
/// is generated from the files in the folder each time `new` writes one. Swift has no reflection
/// to find a global declared in some file, so the list is a file the tool owns: every
/// `<UpperCamelName>.swift` there declares `let <lowerCamelName> = Experiment(…)`, and the list
/// names them all.
package enum PlaygroundStarter {
    /// The folder, relative to the package's.
    package static let folder = "Experiments/" + Experiment.playgroundFolder
    /// The generated list of the folder's experiments.
    package static let listFile = "Playground.swift"

    /// What `new` wrote.
    package struct Made: Sendable, Equatable {
        package var name: String
        /// The experiment's file, relative to the package's folder.
        package var file: String

        /// What to do next, printed after the files are written.
        package var nextSteps: String {
            """
            Wrote \(file), registered as '\(name)'.
            Next:
              swift run run-experiments \(name)                 run it (the model predicts from the code)
              swift run run-experiments \(name) --time-scale 0.1   ten times faster
            Then edit \(file): another maxConcurrentOperationCount, one more closure, a
            dependency, a qualityOfService. The next run predicts from the edited code.

            """
        }
    }

    /// Writes the starter for `name` into the package at `root` and regenerates the folder's
    /// list. A name that is not kebab-case, or is taken (registered, or its file exists), is a
    /// usage error, and nothing is written.
    package static func make(_ name: String, in root: URL, registry: [Experiment]) throws(UsageError) -> Made {
        guard isValid(name) else {
            throw UsageError("\(Format.echoed(name)) is not a valid experiment name: use lowercase letters, digits and single dashes, starting with a letter (e.g. my-queue).")
        }
        let fileManager = FileManager.default
        guard fileManager.fileExists(atPath: root.appendingPathComponent("Package.swift").path),
              fileManager.fileExists(atPath: root.appendingPathComponent(folder).appendingPathComponent(listFile).path) else {
            throw UsageError("'new' writes into \(folder)/ of the package: run it from the package's folder (the one with Package.swift).")
        }
        let typeName = upperCamel(name)
        let file = "\(folder)/\(typeName).swift"
        guard !commandWords.contains(name) else {
            throw UsageError("\(Format.echoed(name)) is a word of the command line ('run-experiments \(name)' would not run your experiment); choose another name.")
        }
        guard !registry.contains(where: { $0.name == name }) else {
            throw UsageError("The name \(Format.echoed(name)) is taken by a registered experiment; choose another.")
        }
        guard !fileManager.fileExists(atPath: root.appendingPathComponent(file).path), typeName != "Playground" else {
            throw UsageError("\(file) exists already; choose another name.")
        }
        if let clash = clash(typeName: typeName, in: root) {
            throw UsageError("\(Format.echoed(name)) would clash with the Experiments module: \(clash); choose another name.")
        }
        do {
            try starter(name: name).write(to: root.appendingPathComponent(file), atomically: true, encoding: .utf8)
            try writeList(in: root.appendingPathComponent(folder))
        } catch {
            try? fileManager.removeItem(at: root.appendingPathComponent(file))
            throw UsageError("Could not write \(file): \(error.localizedDescription)")
        }
        return Made(name: name, file: file)
    }

    /// The command line's own words: an experiment of one of these names could not be run by name.
    static let commandWords: Set<String> = ["all", "describe", "help", "list", "new"]

    /// Identifiers the starter's constant must not take: Swift's keywords, and the free functions
    /// the experiments call, which a module-level constant of the same name would hide.
    static let reservedIdentifiers: Set<String> = [
        "as", "break", "case", "catch", "class", "continue", "default", "defer", "do", "else", "enum",
        "extension", "false", "for", "func", "guard", "if", "import", "in", "init", "inout", "is",
        "let", "nil", "operator", "private", "protocol", "public", "repeat", "rethrows", "return",
        "self", "static", "struct", "subscript", "super", "switch", "throw", "throws", "true", "try",
        "typealias", "var", "where", "while", "any", "some", "await", "async",
        "abs", "assert", "debugPrint", "dump", "exit", "fatalError", "max", "min", "precondition",
        "print", "readLine", "sequence", "sleep", "stride", "swap", "type", "usleep", "zip",
    ]

    /// Why a starter named `typeName` cannot join the Experiments module (the package's
    /// `Experiments/` folder, one module): a file of the same name elsewhere in it (two object files
    /// of one name: the build fails with "multiple producers"), or a top-level declaration of the
    /// constant's name there or among the reserved identifiers. nil when it can.
    static func clash(typeName: String, in root: URL) -> String? {
        let constant = lowerCamel(typeName)
        if reservedIdentifiers.contains(constant) { return "its constant '\(constant)' is a Swift keyword or a function the experiments call" }
        let module = root.appendingPathComponent("Experiments")
        guard let files = FileManager.default.enumerator(at: module, includingPropertiesForKeys: nil) else { return nil }
        // A top-level declaration (the module's files declare those at the line's start): a local
        // `let queue` inside some function hides nothing.
        let declaration = try? NSRegularExpression(
            pattern: #"^((public|internal|private|fileprivate|final|nonisolated)\s+)*(let|var|func|class|struct|enum|protocol|typealias|actor)\s+`?\#(constant)`?\b"#,
            options: .anchorsMatchLines
        )
        for case let url as URL in files where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            if url.deletingPathExtension().lastPathComponent.lowercased() == typeName.lowercased() {
                return "\(relative) has that file name"
            }
            if let text = try? String(contentsOf: url, encoding: .utf8),
               declaration?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil {
                return "\(relative) declares '\(constant)'"
            }
        }
        return nil
    }

    /// Kebab-case: lowercase letters and digits in words joined by single dashes, starting with a letter.
    package static func isValid(_ name: String) -> Bool {
        let words = name.split(separator: "-", omittingEmptySubsequences: false)
        return name.first?.isLowercase == true && name.first?.isASCII == true
            && words.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) } }
    }

    /// `my-queue` → `My queue`: the experiment's title, until the learner writes another.
    static func title(_ name: String) -> String {
        let words = name.replacingOccurrences(of: "-", with: " ")
        return words.prefix(1).uppercased() + words.dropFirst()
    }

    /// `my-queue` → `MyQueue`.
    package static func upperCamel(_ name: String) -> String {
        name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// `MyQueue` → `myQueue`: the constant a file of the folder declares.
    static func lowerCamel(_ typeName: String) -> String {
        typeName.prefix(1).lowercased() + typeName.dropFirst()
    }

    /// Regenerates the list from the folder's files, in the order of their names.
    static func writeList(in directory: URL) throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".swift") && $0 != listFile }
            .sorted()
        let entries = files.map { "    \(lowerCamel(String($0.dropLast(".swift".count)))),\n" }.joined()
        let list = """
        import ExperimentKit

        // Generated by `run-experiments new` from this folder's files: each `<Name>.swift` here
        // declares `let <name> = Experiment(…)`. Remove a file, and remove its line here.

        /// The learner's own experiments, registered after the articles'.
        public let playgroundExperiments: [Experiment] = [
        \(entries)]

        """
        try list.write(to: directory.appendingPathComponent(listFile), atomically: true, encoding: .utf8)
    }

    /// The starter: article 000's printer queue, width 2, three one-second closures, commented.
    static func starter(name: String) -> String {
        let constant = lowerCamel(upperCamel(name))
        return """
        import ExperimentKit
        // Foundation comes with the instrumented names the lab reads the plan from (imported
        // again here, it would make every one of them ambiguous).
        import Experiments

        /// Your own experiment, written by `run-experiments new \(name)`. Run it with
        /// `swift run run-experiments \(name)`.
        ///
        /// The code below is article 000's printer queue: change it as you like. Before it runs, the
        /// model reads its plan from what this code builds and does: queues, closures, blocks and
        /// your `Operation` subclasses' `main()`, what they print and sleep, dependencies, QoS,
        /// cancels and waits. What it cannot plan it names, with the line ("unmodelled"): the
        /// README's "Your own experiment" lists both. `print` and every `sleep` are recorded in
        /// the timeline, and `sleep(1)` lasts one second times `--time-scale`. This folder is a
        /// module of its own, compiled in Swift 5 mode as a playground is: the articles' classes
        /// (`class AsyncOperation: Operation`, `SumOperation`…) can be declared above this line as
        /// they are written.
        let \(constant) = Experiment(
            name: "\(name)",
            title: "\(title(name))",
            source: ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Experiment 1: OperationQueue (printerQueue)"),
            summary: "A learner's own experiment, started from article 000's printer queue: closures that print a word and sleep, on a queue of width 2.",
            claim: .none,
            expectedOutcome: "Every closure prints its word once, at the time the model predicts.",
            platformDifference: "Linux's Dispatch starts one worker per CPU and adds one more per second while all of them sleep.",
            code: { _ in
                let printerQueue = OperationQueue()
                // At most two closures run at once. Try 1 (one after another) or 3.
                printerQueue.maxConcurrentOperationCount = 2

                // Each closure prints a word and blocks its thread for one second.
                printerQueue.addOperation { print("Каждый 🍎"); sleep(1) }
                printerQueue.addOperation { print("Охотник 🍊"); sleep(1) }
                printerQueue.addOperation { print("Желает 🍋"); sleep(1) }

                // More to try: a line `printerQueue.addOperation { print("Знать 🍏"); sleep(2) }`;
                // an operation that waits for another:
                //     let first = BlockOperation { print("first"); sleep(1) }
                //     let second = BlockOperation { print("second"); sleep(1) }
                //     second.addDependency(first)
                //     printerQueue.addOperations([first, second], waitUntilFinished: false)
                // or a priority: `operation.qualityOfService = .userInitiated` before adding it.

                // Waits for all of them: the total the model predicted.
                printerQueue.waitUntilAllOperationsAreFinished()
            }
        )

        """
    }
}
