import ExperimentKit
import ExperimentRunner
import Foundation

/// `run-experiments new NAME`: a learner's own experiment, started from article 000's printer
/// queue, in `Experiments/Playground/`.
///
/// Registering it needs no other edit: the folder's list, `Experiments/Playground/Playground.swift`,
/// is generated from the files in the folder each time `new` writes one. Swift has no reflection
/// to find a global declared in some file, so the list is a file the tool owns: it names every
/// constant a file of the folder declares as `let <name> = Experiment(…)` at a line's start,
/// read from the files' text, so a helper file or one named oddly adds nothing that would not
/// compile. Writing the starter and the list is one step under an exclusive `flock` on the
/// folder, so two `new` at once both end up listed.
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
        /// Whether the file was there already, missing from the list, and `new` listed it again.
        package var relisted = false

        /// What to do next, printed after the files are written.
        package var nextSteps: String {
            """
            \(relisted ? "\(file) was there already but not in the list (a 'new' interrupted); listed it again" : "Wrote \(file)"), registered as '\(name)'.
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
    /// usage error, and nothing is written; but a file of that name that declares its constant
    /// and is missing from the list (a `new` ended between the two writes) is listed again.
    package static func make(_ name: String, in root: URL, registry: [Experiment]) throws(UsageError) -> Made {
        guard isValid(name) else {
            throw UsageError(
                "\(Format.echoed(name)) is not a valid experiment name: use lowercase letters, digits and single dashes, starting with a letter (e.g. my-queue)."
            )
        }
        let fileManager = FileManager.default
        let directory = root.appendingPathComponent(folder)
        guard fileManager.fileExists(atPath: root.appendingPathComponent("Package.swift").path),
            fileManager.fileExists(atPath: directory.appendingPathComponent(listFile).path)
        else {
            throw UsageError(
                "'new' writes into \(folder)/ of the package: run it from the package's folder (the one with Package.swift)."
            )
        }
        let typeName = upperCamel(name), constant = lowerCamel(upperCamel(name))
        let file = "\(folder)/\(typeName).swift"
        guard !commandWords.contains(name) else {
            throw UsageError(
                "\(Format.echoed(name)) is a word of the command line ('run-experiments \(name)' would not run your experiment); choose another name."
            )
        }
        guard !keywords.contains(constant) else {
            throw UsageError(
                "\(Format.echoed(name)) would name its constant '\(constant)', a Swift keyword ('let \(constant) = …' does not compile); choose another name."
            )
        }
        guard !registry.contains(where: { $0.name == name }) else {
            throw UsageError("The name \(Format.echoed(name)) is taken by a registered experiment; choose another.")
        }
        guard typeName != "Playground" else {
            throw UsageError("\(file) exists already; choose another name.")
        }
        return try withLock(on: directory) { () throws(UsageError) -> Made in
            let url = directory.appendingPathComponent("\(typeName).swift")
            if AtomicFile.kind(of: url.path) != .missing {
                let listed =
                    (try? String(contentsOf: directory.appendingPathComponent(listFile), encoding: .utf8))?.contains(
                        "    \(constant),\n") == true
                guard !listed, declaredExperiments(in: url).contains(constant) else {
                    throw UsageError("\(file) exists already; choose another name.")
                }
                try writeList(in: directory, naming: file)
                return Made(name: name, file: file, relisted: true)
            }
            if let clash = clash(typeName: typeName, in: root) {
                throw UsageError(
                    "\(Format.echoed(name)) would clash with the Experiments module: \(clash); choose another name.")
            }
            let starter = try starter(name: name, in: root)
            do throws(AtomicFile.Failure) {
                try AtomicFile.write(Data(starter.utf8), named: url.lastPathComponent, in: directory)
            } catch {
                throw UsageError("Could not write \(file): \(error.reason).")
            }
            do throws(UsageError) {
                try writeList(in: directory, naming: file)
            } catch {
                try? fileManager.removeItem(at: url)
                throw error
            }
            return Made(name: name, file: file)
        }
    }

    /// Runs `body` holding an exclusive `flock` on `directory`: one `new` at a time writes its
    /// file and the list, and each list is made from every file written before it.
    static func withLock<T>(on directory: URL, _ body: () throws(UsageError) -> T) throws(UsageError) -> T {
        guard let descriptor = AtomicFile.lockFolder(directory.path) else {
            throw UsageError("Could not lock \(folder)/: \(AtomicFile.systemReason()).")
        }
        defer { close(descriptor) }
        return try body()
    }

    /// The command line's own words: an experiment of one of these names could not be run by name.
    static let commandWords: Set<String> = ["all", "describe", "help", "list", "new", "watch"]

    /// Swift's keywords, which no constant can be named (`let fallthrough = …` does not
    /// compile): those of declarations, statements, expressions and types in "Lexical
    /// Structure" of The Swift Programming Language. Its contextual keywords (`async`, `some`,
    /// `open`, `didSet`, `lazy`, …) name a constant and a list entry as any word does.
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init",
        "inout", "internal", "let", "operator", "precedencegroup", "private", "protocol", "public",
        "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for",
        "guard", "if", "in", "repeat", "return", "switch", "throw", "where", "while",
        "as", "await", "false", "is", "nil", "self", "super", "throws", "true", "try",
    ]

    /// The free functions the experiments call, which a module-level constant of the same name
    /// would hide.
    static let calledFunctions: Set<String> = [
        "abs", "assert", "debugPrint", "dump", "exit", "fatalError", "max", "min", "precondition",
        "print", "readLine", "sequence", "sleep", "stride", "swap", "type", "usleep", "zip",
    ]

    /// Why a starter named `typeName` cannot join the Experiments module (the package's
    /// `Experiments/` folder, one module): a file of the same name elsewhere in it (two object files
    /// of one name: the build fails with "multiple producers"), or a top-level declaration of the
    /// constant's name there or among the reserved identifiers. nil when it can.
    static func clash(typeName: String, in root: URL) -> String? {
        let constant = lowerCamel(typeName)
        if calledFunctions.contains(constant) {
            return "its constant '\(constant)' would hide a function the experiments call"
        }
        let module = root.appendingPathComponent("Experiments")
        guard let files = FileManager.default.enumerator(at: module, includingPropertiesForKeys: nil) else {
            return nil
        }
        // A top-level declaration (the module's files declare those at the line's start): a local
        // `let queue` inside some function hides nothing.
        let declaration = try? NSRegularExpression(
            pattern:
                #"^((public|internal|private|fileprivate|final|nonisolated)\s+)*(let|var|func|class|struct|enum|protocol|typealias|actor)\s+`?\#(constant)`?\b"#,
            options: .anchorsMatchLines
        )
        for case let url as URL in files where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(root.path.count + 1))
            if url.deletingPathExtension().lastPathComponent.lowercased() == typeName.lowercased() {
                return "\(relative) has that file name"
            }
            if let text = try? String(contentsOf: url, encoding: .utf8),
                declaration?.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
            {
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

    /// `my-queue` → `MyQueue`.
    package static func upperCamel(_ name: String) -> String {
        name.split(separator: "-").map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }

    /// `MyQueue` → `myQueue`: the constant a file of the folder declares.
    static func lowerCamel(_ typeName: String) -> String {
        typeName.prefix(1).lowercased() + typeName.dropFirst()
    }

    /// The constants `file` declares as experiments: each `let <name> = Experiment(` at a
    /// line's start (how the starter declares it), whose name is an ASCII identifier that is no
    /// keyword. A file that cannot be read declares none.
    static func declaredExperiments(in file: URL) -> [String] {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return [] }
        let declaration =
            #/(?m)^let[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?::[ \t]*Experiment[ \t]*)?=[ \t]*Experiment[ \t]*\(/#
        return text.matches(of: declaration).map { String($0.output.1) }.filter { !keywords.contains($0) }
    }

    /// Regenerates the list from what the folder's files declare (``declaredExperiments(in:)``),
    /// in the order of the files' names; `file` is what a failure names.
    static func writeList(in directory: URL, naming file: String = listFile) throws(UsageError) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw UsageError("Could not read \(folder)/: \(error.localizedDescription)")
        }
        var listed = Set<String>()
        let constants = names.filter { $0.hasSuffix(".swift") && $0 != listFile && !$0.hasPrefix(".") }.sorted()
            .flatMap { declaredExperiments(in: directory.appendingPathComponent($0)) }
            .filter { listed.insert($0).inserted }
        let entries = constants.map { "    \($0),\n" }.joined()
        let list = """
            import ExperimentKit

            // Generated by `run-experiments new` from this folder's files: each constant a file here
            // declares as `let <name> = Experiment(…)` at a line's start. Remove a file, and remove
            // its line here.

            /// The learner's own experiments, registered after the articles'.
            public let playgroundExperiments: [Experiment] = [
            \(entries)]

            """
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(Data(list.utf8), named: listFile, in: directory)
        } catch {
            throw UsageError("Could not write \(file): \(error.reason).")
        }
    }

    /// The file `new` copies, under the folder: a real experiment of the learner's module, which
    /// `swift build` compiles and `swift test` runs, in a folder of its own, so the list leaves it out.
    package static let starterFile = "Starter/Starter.swift"
    /// The starter's declaration, which the copy names for the learner's experiment.
    static let starterDeclaration = #"let starter = Experiment("starter")"#

    /// The starter, `template`, as the experiment `name`: its constant and name, and the command
    /// that runs it. nil when the template no longer declares the starter as written above.
    static func starter(name: String, from template: String) -> String? {
        guard template.contains(starterDeclaration) else { return nil }
        return
            template
            .replacingOccurrences(
                of: starterDeclaration, with: "let \(lowerCamel(upperCamel(name))) = Experiment(\"\(name)\")"
            )
            .replacingOccurrences(of: "run-experiments starter", with: "run-experiments \(name)")
    }

    /// The starter in the package at `root`, as the experiment `name`.
    static func starter(name: String, in root: URL) throws(UsageError) -> String {
        let path = folder + "/" + starterFile
        guard let template = try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8) else {
            throw UsageError("'new' copies \(path), which cannot be read: restore it from the package's repository.")
        }
        guard let starter = starter(name: name, from: template) else {
            throw UsageError(
                "'new' copies \(path), which no longer declares '\(starterDeclaration)': restore that line.")
        }
        return starter
    }
}
