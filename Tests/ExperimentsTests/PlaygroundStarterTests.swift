import ExperimentKit
import ExperimentRunner
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ExperimentCLI
@testable import Experiments
@testable import run_experiments

/// `run-experiments new NAME` on a scratch folder shaped like the package: what it writes, and
/// what it refuses without writing anything.
@Suite(.serialized, .oneAtATime) struct PlaygroundStarterTests {
    /// The package's checkout, from this file's place in it.
    static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The starter `new` copies, as the package holds it.
    static func template() throws -> String {
        try String(
            contentsOf: checkout.appendingPathComponent(PlaygroundStarter.folder + "/" + PlaygroundStarter.starterFile),
            encoding: .utf8)
    }

    /// A folder with `Package.swift`, the Playground list and the starter, as the package has them.
    func scratchPackage() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent(
            "run-experiments-new-\(UUID().uuidString)")
        let folder = root.appendingPathComponent(PlaygroundStarter.folder)
        let starter = folder.appendingPathComponent(PlaygroundStarter.starterFile)
        try FileManager.default.createDirectory(
            at: starter.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Self.template().write(to: starter, atomically: true, encoding: .utf8)
        try "// swift-tools-version:6.0\n".write(
            to: root.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        try PlaygroundStarter.writeList(in: folder)
        return root
    }

    /// The folder's own files (the starter's folder left out), by name.
    func contents(_ root: URL) throws -> [String: String] {
        let folder = root.appendingPathComponent(PlaygroundStarter.folder)
        return try Dictionary(
            uniqueKeysWithValues: FileManager.default.contentsOfDirectory(atPath: folder.path).filter {
                $0.hasSuffix(".swift")
            }.map {
                ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
            })
    }

    @Test func namesAreKebabCaseAndBecomeTypeNames() {
        #expect(
            PlaygroundStarter.isValid("my-queue") && PlaygroundStarter.isValid("queue2")
                && PlaygroundStarter.isValid("a-1-b"))
        for bad in ["", "My-queue", "my_queue", "my--queue", "-queue", "queue-", "2queue", "моя", "my queue", "a/b"] {
            #expect(!PlaygroundStarter.isValid(bad), "\(bad)")
        }
        #expect(PlaygroundStarter.upperCamel("my-queue-2") == "MyQueue2")
    }

    @Test func writesTheStarterAndListsIt() throws {
        let root = try scratchPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        let made = try PlaygroundStarter.make("my-queue", in: root, registry: articleExperiments)
        #expect(made.file == "Experiments/Playground/MyQueue.swift")
        #expect(made.nextSteps.contains("swift run run-experiments my-queue"))
        let files = try contents(root)
        let starter = try #require(files["MyQueue.swift"])
        // The starter as the package builds and tests it, named for the learner's experiment.
        #expect(
            starter
                == (try Self.template()).replacingOccurrences(
                    of: #"let starter = Experiment("starter")"#, with: #"let myQueue = Experiment("my-queue")"#
                )
                .replacingOccurrences(of: "run-experiments starter", with: "run-experiments my-queue"))
        // The instrumented names come with Foundation from the Experiments module: Foundation
        // imported beside it would make each of them ambiguous in the learner's module.
        #expect(starter.contains("\nimport Experiments\n") && !starter.contains("import Foundation"))
        #expect(files["Playground.swift"]?.contains("public let playgroundExperiments: [Experiment] = [") == true)
        #expect(starter.contains("printerQueue.maxConcurrentOperationCount = 2"))
        #expect(starter.components(separatedBy: "printerQueue.addOperation { print(").count - 1 >= 3)
        #expect(files["Playground.swift"]?.contains("    myQueue,\n") == true)
        // A second one joins the list, in the order of the files' names.
        _ = try PlaygroundStarter.make("another", in: root, registry: articleExperiments)
        #expect(try contents(root)["Playground.swift"]?.contains("    another,\n    myQueue,\n") == true)
    }

    /// The starter is short and starts with its code: only a name is required, the title is
    /// made from it, and it states no claim and no figure.
    @Test func theStarterIsShortAndItsCodeComesFirst() throws {
        let lines = try Self.template().split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(lines.count <= 30)
        let call = try #require(lines.firstIndex { $0.hasPrefix(PlaygroundStarter.starterDeclaration + " {") })
        #expect(
            call + 1 < 12 && lines[call + 1].contains("OperationQueue()"), "the code starts within the first 12 lines")
        #expect(starter.title == "Starter" && starter.claim == ArticleClaim.none && starter.summary.isEmpty)
        #expect(starter.isLearners)
        #expect(PlaygroundStarter.starter(name: "my-queue", from: "let other = Experiment(\"other\") { _ in }") == nil)
    }

    /// The starter, compiled with the package, runs as a learner's experiment does (in this
    /// process, at the lowest scale): three one-second closures two at a time, every word
    /// printed, nothing the plan did not foresee. Its timing, end to end, is
    /// `newBuildRunEditRunAgain`'s.
    @Test func theStarterRuns() throws {
        let plan = starter.workload()
        #expect(plan.operations.map(\.label) == ["Каждый 🍎", "Охотник 🍊", "Желает 🍋"])
        #expect(plan.queues.map(\.maxConcurrentOperationCount) == [2])
        let measurement = try LabDriftTests.judgedWithoutDrift(starter).measurement
        #expect(measurement.output.map(\.text).sorted() == plan.operations.map(\.label).sorted())
        #expect(Set(measurement.operations.map(\.label)) == Set(plan.operations.map(\.label)))
    }

    /// Without the starter `new` copies, it says what to restore and writes nothing.
    @Test func aMissingStarterIsSaid() throws {
        let root = try scratchPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        try FileManager.default.removeItem(
            at: root.appendingPathComponent(PlaygroundStarter.folder + "/" + PlaygroundStarter.starterFile))
        let before = try contents(root)
        #expect(
            throws: UsageError(
                "'new' copies Experiments/Playground/Starter/Starter.swift, which cannot be read: restore it from the package's repository."
            )
        ) {
            try PlaygroundStarter.make("my-queue", in: root, registry: articleExperiments)
        }
        #expect(try contents(root) == before)
    }

    @Test func aTakenOrInvalidNameWritesNothing() throws {
        let root = try scratchPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        // Two files of the module, as the package has them: a type's file, and a top-level constant
        // beside a local one (a local `let` hides nothing, so its name stays free).
        let module = root.appendingPathComponent("Experiments")
        for (folder, file, text) in [
            ("PrinterQueue", "PrinterQueue.swift", "enum PrinterQueue {}\n"),
            ("Operations", "Sums.swift", "let sumRows = 1\nfunc f() {\n    let localQueue = 2\n}\n"),
        ] {
            try FileManager.default.createDirectory(
                at: module.appendingPathComponent(folder), withIntermediateDirectories: true)
            try text.write(
                to: module.appendingPathComponent(folder).appendingPathComponent(file), atomically: true,
                encoding: .utf8)
        }
        #expect(PlaygroundStarter.clash(typeName: "LocalQueue", in: root) == nil)
        _ = try PlaygroundStarter.make("my-queue", in: root, registry: articleExperiments)
        let before = try contents(root)
        for (name, message) in [
            ("my-queue", "Experiments/Playground/MyQueue.swift exists already; choose another name."),
            ("serial-queue", "The name 'serial-queue' is taken by a registered experiment; choose another."),
            ("playground", "Experiments/Playground/Playground.swift exists already; choose another name."),
            (
                "My_Queue",
                "'My_Queue' is not a valid experiment name: use lowercase letters, digits and single dashes, starting with a letter (e.g. my-queue)."
            ),
            (
                "list",
                "'list' is a word of the command line ('run-experiments list' would not run your experiment); choose another name."
            ),
            (
                "all",
                "'all' is a word of the command line ('run-experiments all' would not run your experiment); choose another name."
            ),
            (
                "new",
                "'new' is a word of the command line ('run-experiments new' would not run your experiment); choose another name."
            ),
            (
                "help",
                "'help' is a word of the command line ('run-experiments help' would not run your experiment); choose another name."
            ),
            (
                "printer-queue",
                "'printer-queue' would clash with the Experiments module: Experiments/PrinterQueue/PrinterQueue.swift has that file name; choose another name."
            ),
            (
                "sum-rows",
                "'sum-rows' would clash with the Experiments module: Experiments/Operations/Sums.swift declares 'sumRows'; choose another name."
            ),
            (
                "print",
                "'print' would clash with the Experiments module: its constant 'print' would hide a function the experiments call; choose another name."
            ),
            (
                "default",
                "'default' would name its constant 'default', a Swift keyword ('let default = …' does not compile); choose another name."
            ),
            (
                "fallthrough",
                "'fallthrough' would name its constant 'fallthrough', a Swift keyword ('let fallthrough = …' does not compile); choose another name."
            ),
        ] {
            #expect(throws: UsageError(message)) {
                try PlaygroundStarter.make(name, in: root, registry: articleExperiments)
            }
        }
        #expect(try contents(root) == before)
        // Outside a package nothing is written either.
        #expect(throws: UsageError.self) {
            try PlaygroundStarter.make(
                "elsewhere", in: root.appendingPathComponent("Experiments"), registry: articleExperiments)
        }
        #expect(try contents(root) == before)
    }
}

/// Names Swift cannot take, and the list under a hostile folder and concurrent `new`s.
extension PlaygroundStarterTests {
    /// Every Swift keyword, reserved or contextual (The Swift Programming Language, "Lexical
    /// Structure"), that a kebab-case name can spell: the compiler says which ones a constant
    /// cannot be named, and `new` refuses exactly those.
    static let swiftKeywords = [
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import",
        "init", "inout", "internal", "let", "nonisolated", "open", "operator", "precedencegroup", "private", "protocol",
        "public", "rethrows", "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue",
        "default", "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "switch",
        "throw",
        "where", "while", "as", "await", "false", "is", "nil", "self", "super", "throws", "true", "try",
        "associativity", "async", "convenience", "didSet", "dynamic", "final", "get", "indirect", "infix", "lazy",
        "left",
        "mutating", "none", "nonmutating", "optional", "override", "package", "postfix", "precedence", "prefix",
        "required",
        "right", "set", "some", "unowned", "weak", "willSet", "any", "actor", "macro", "each", "consume", "copy",
        "discard",
        "then", "isolated", "sending",
    ]

    @Test func keywordsThatCannotNameAConstantAreRefused() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "run-experiments-keywords-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // One file per word, as the starter and the list use it: declared, then listed.
        for word in Self.swiftKeywords {
            try "let \(word) = 1\nlet list: [Int] = [\n    \(word),\n]\n".write(
                to: folder.appendingPathComponent("\(word).swift"), atomically: true, encoding: .utf8)
        }
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        compiler.arguments =
            ["swiftc", "-typecheck", "-swift-version", "6", "-parse-as-library"]
            + Self.swiftKeywords.map { folder.appendingPathComponent("\($0).swift").path }
        let errors = Pipe()
        compiler.standardError = errors
        compiler.standardOutput = FileHandle.nullDevice
        try compiler.run()
        let diagnostics = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        compiler.waitUntilExit()
        let failing = Set(Self.swiftKeywords.filter { diagnostics.contains("/\($0).swift:") })
        #expect(failing.contains("fallthrough") && !failing.contains("async"), "\(diagnostics.prefix(2000))")

        let root = try scratchPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        let before = try contents(root)
        // The refused first, each writing nothing; then the others, each added.
        for word in Self.swiftKeywords.filter(failing.contains) + Self.swiftKeywords.filter({ !failing.contains($0) }) {
            let name = word.map { $0.isUppercase ? "-" + $0.lowercased() : String($0) }.joined()
            #expect(PlaygroundStarter.lowerCamel(PlaygroundStarter.upperCamel(name)) == word)
            if failing.contains(word) {
                let error = try #require(throws: UsageError.self) {
                    try PlaygroundStarter.make(name, in: root, registry: articleExperiments)
                }
                #expect(error.message.contains("a Swift keyword"), "\(name): \(error.message)")
                #expect(try contents(root) == before)
            } else {
                #expect(throws: Never.self, "\(name)") {
                    try PlaygroundStarter.make(name, in: root, registry: articleExperiments)
                }
            }
        }
        let list = try #require(try contents(root)["Playground.swift"])
        #expect(Self.swiftKeywords.filter { !failing.contains($0) }.allSatisfy { list.contains("    \($0),\n") })
    }

    /// The list names what the files declare: a helper file adds nothing, a file with a space
    /// in its name adds the constant it declares, never its file name.
    @Test func theListNamesOnlyDeclaredExperiments() throws {
        let root = try scratchPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent(PlaygroundStarter.folder)
        try "import Foundation\n\nfunc helper() -> Int { 1 }\nlet shared = 2\n".write(
            to: folder.appendingPathComponent("Helpers.swift"), atomically: true, encoding: .utf8)
        try "import ExperimentKit\n\nlet spacedOut = Experiment(\n    name: \"spaced-out\"\n)\n".write(
            to: folder.appendingPathComponent("My Queue.swift"), atomically: true, encoding: .utf8)
        try "// let commentedOut = Experiment(\n".write(
            to: folder.appendingPathComponent("Notes.swift"), atomically: true, encoding: .utf8)
        _ = try PlaygroundStarter.make("my-queue", in: root, registry: articleExperiments)
        let list = try #require(try contents(root)["Playground.swift"])
        let entries = list.split(separator: "\n").filter { $0.hasPrefix("    ") && $0.hasSuffix(",") }
        #expect(entries == ["    spacedOut,", "    myQueue,"], "\(list)")
    }

    /// A `new` ended between writing its file and the list (SIGTERM, a kill) leaves a file the
    /// list lacks: `new` of the same name lists it again, keeps the file, and only then says
    /// it exists.
    @Test func aFileTheListLacksIsListedAgain() throws {
        let root = try scratchPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent(PlaygroundStarter.folder).appendingPathComponent("MyQueue.swift")
        let edited =
            try #require(PlaygroundStarter.starter(name: "my-queue", from: Self.template())) + "// the learner's edit\n"
        try edited.write(to: file, atomically: true, encoding: .utf8)
        #expect(try contents(root)["Playground.swift"]?.contains("myQueue") == false)

        let relisted = try BuiltBinary.run(["new", "my-queue"], in: root)
        #expect(relisted.status == 0, "\(relisted.stderr)")
        #expect(
            relisted.stdout.hasPrefix("Experiments/Playground/MyQueue.swift was there already but not in the list"),
            "\(relisted.stdout)")
        #expect(try contents(root)["Playground.swift"]?.contains("    myQueue,\n") == true)
        #expect(try String(contentsOf: file, encoding: .utf8) == edited)

        let again = try BuiltBinary.run(["new", "my-queue"], in: root)
        #expect(again.status == 64)
        #expect(
            again.stderr.hasPrefix(
                "Error: Experiments/Playground/MyQueue.swift exists already; choose another name.\n"), "\(again.stderr)"
        )
    }

    /// Two `new` at once, round after round: both files are written and both are listed.
    @Test func twoNewAtOnceAreBothListed() throws {
        let root = try scratchPackage()
        defer { try? FileManager.default.removeItem(at: root) }
        for round in 1...20 {
            let names = ["first-\(round)", "second-\(round)"]
            let statuses = Mutex<[Int32]>([])
            DispatchQueue.dispatchConcurrentPerform(iterations: names.count) { index in
                let status = (try? BuiltBinary.run(["new", names[index]], in: root))?.status ?? -1
                statuses.withLock { $0.append(status) }
            }
            #expect(statuses.withLock { $0 } == [0, 0])
            let list = try #require(try contents(root)["Playground.swift"])
            for name in names {
                let constant = PlaygroundStarter.lowerCamel(PlaygroundStarter.upperCamel(name))
                #expect(list.contains("    \(constant),\n"), "round \(round): \(name) is not listed")
            }
        }
    }
}

/// The learner's path end to end, on a COPY of the package (never the checkout): `new`, build,
/// run, edit the file, build, run again: the second run predicts from the edited code.
///
/// The copy is kept between test runs in the checkout's build folder, so its builds are
/// incremental: only what changed in the checkout since the last run, the learner's file and
/// the list recompile (about 3 s each). The first run after a clean clone builds it from nothing:
/// every module of the executable again, about 150 s of CPU, nearly as much as the checkout's own
/// build. The checkout's build folder cannot seed it: the compiler driver keeps what it compiled
/// under the absolute paths of the sources and of the build folder, and under a hash of the
/// arguments, which hold that folder and the package's name (SwiftPM's, the folder's name), so a
/// build of the same files at any other path compiles every module again. It lives among the
/// timed runs so its build never runs beside a timed experiment.
extension TimedRuns {
    @Suite struct PlaygroundEndToEnd {
        /// The checkout this test was built from: three folders up from this file.
        static let checkout = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()

        struct Ran {
            var status: Int32
            var stdout: String
            var stderr: String
        }

        /// Runs `executable` with `arguments` in `folder`; kills it after `timeout` seconds.
        static func run(_ executable: URL, _ arguments: [String], in folder: URL, timeout: Double) throws -> Ran {
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            process.currentDirectoryURL = folder
            let output = FileManager.default.temporaryDirectory.appendingPathComponent(
                "run-experiments-e2e-\(UUID().uuidString)")
            // Files, not pipes: a build's output can exceed a pipe's buffer while nobody reads it.
            try Data().write(to: URL(fileURLWithPath: output.path + ".out"))
            try Data().write(to: URL(fileURLWithPath: output.path + ".err"))
            defer {
                try? FileManager.default.removeItem(atPath: output.path + ".out")
                try? FileManager.default.removeItem(atPath: output.path + ".err")
            }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: output.path + ".out"))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: output.path + ".err"))
            // Dispatch's own semaphore: this file sees the Experiments module's instrumented one too.
            let ended = DispatchSemaphore(permits: 0)
            process.terminationHandler = { _ in _ = ended.dispatchSignal() }
            try process.run()
            if ended.dispatchWait(timeout: .now() + timeout) == .timedOut {
                process.terminate()
                ended.dispatchWait()
            }
            return Ran(
                status: process.terminationStatus,
                stdout: try String(contentsOfFile: output.path + ".out", encoding: .utf8),
                stderr: try String(contentsOfFile: output.path + ".err", encoding: .utf8)
            )
        }

        /// Where the copy is kept between runs: in the checkout's build folder, which no build
        /// of the checkout reads, and which `rm -rf .build` clears with everything else built.
        static let keptCopy = checkout.appendingPathComponent(".build/playground-copy")

        /// The package's sources, without its build folder, history or reports, in `keptCopy`:
        /// brought to the checkout's sources file by file, writing only the files that differ
        /// and removing what the checkout does not have (the last run's learner's file), so
        /// the copy's own `.build` stays valid for everything else.
        static func copyOfThePackage(in copy: URL = keptCopy) throws -> URL {
            try FileManager.default.createDirectory(at: copy, withIntermediateDirectories: true)
            for item in ["Package.swift", "Sources", "Experiments", "Tests"] {
                try mirror(checkout.appendingPathComponent(item), to: copy.appendingPathComponent(item))
            }
            return copy
        }

        /// Makes `target` hold what `source` holds, touching only what differs.
        static func mirror(_ source: URL, to target: URL) throws {
            let files = FileManager.default
            var isFolder: ObjCBool = false
            guard files.fileExists(atPath: source.path, isDirectory: &isFolder), isFolder.boolValue else {
                if !files.contentsEqual(atPath: source.path, andPath: target.path) {
                    try? files.removeItem(at: target)
                    try files.copyItem(at: source, to: target)
                }
                return
            }
            var targetIsFolder: ObjCBool = false
            if files.fileExists(atPath: target.path, isDirectory: &targetIsFolder), !targetIsFolder.boolValue {
                try files.removeItem(at: target)
            }
            try files.createDirectory(at: target, withIntermediateDirectories: true)
            let names = try files.contentsOfDirectory(atPath: source.path)
            for stale in try files.contentsOfDirectory(atPath: target.path) where !names.contains(stale) {
                try files.removeItem(at: target.appendingPathComponent(stale))
            }
            for name in names {
                try mirror(source.appendingPathComponent(name), to: target.appendingPathComponent(name))
            }
        }

        /// Holds an exclusive lock on the kept copy until the returned descriptor is closed:
        /// two test processes of one checkout never build it at once.
        static func lockTheCopy(_ copy: URL = keptCopy) throws -> Int32 {
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            let descriptor = open(copy.path + ".lock", O_CREAT | O_RDWR, 0o644)
            guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
            flock(descriptor, LOCK_EX)
            return descriptor
        }

        static let env = URL(fileURLWithPath: "/usr/bin/env")

        /// The scale `my-queue` runs at: the lowest the runner accepts, as in the shared full run.
        static let scale = 0.05

        /// Builds the copy and runs `my-queue` in it at ``scale`` as JSON: its verdict, expected
        /// seconds and the labels that ran.
        static func buildAndRun(_ copy: URL) throws -> (verdict: String?, expected: Double?, labels: [String]) {
            // The product the learner's `swift run run-experiments my-queue` builds, as that
            // command and `watch` build it, not the package's other targets (TestSupport would
            // be rebuilt for nothing).
            let build = try run(env, ["swift", "build", "--product", "run-experiments"], in: copy, timeout: 1200)
            #expect(build.status == 0, "\(build.stdout.suffix(2000)) \(build.stderr.suffix(2000))")
            let ran = try run(
                copy.appendingPathComponent(".build/debug/run-experiments"),
                ["my-queue", "--time-scale", scale.decimalText, "--format", "json"], in: copy, timeout: 60)
            let document = try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any]
            let experiment = (document?["experiments"] as? [[String: Any]])?.first
            let labels = (experiment?["operations"] as? [[String: Any]])?.compactMap { $0["label"] as? String } ?? []
            return (
                experiment?["verdict"] as? String, (experiment?["expected"] as? [String: Any])?["seconds"] as? Double,
                labels.sorted()
            )
        }

        @Test(.timeLimit(.minutes(30))) func newBuildRunEditRunAgain() throws {
            let lock = try Self.lockTheCopy()
            defer { close(lock) }
            let copy = try Self.copyOfThePackage()
            let made = try Self.run(BuiltBinary.url, ["new", "my-queue"], in: copy, timeout: 30)
            #expect(made.status == 0 && made.stdout.contains("swift run run-experiments my-queue"), "\(made.stderr)")
            let file = copy.appendingPathComponent("Experiments/Playground/MyQueue.swift")
            let starter = try String(contentsOf: file, encoding: .utf8)

            // The starter: three one-second closures, two at a time: 2 s.
            let first = try Self.buildAndRun(copy)
            #expect(first.verdict == "pass")
            #expect(abs((first.expected ?? 0) - 2 * Self.scale) < 1e-9)
            #expect(first.labels == ["Желает 🍋", "Каждый 🍎", "Охотник 🍊"])

            // A second `new` with the same name is refused and changes nothing.
            let again = try Self.run(BuiltBinary.url, ["new", "my-queue"], in: copy, timeout: 30)
            #expect(again.status == 64 && again.stderr.hasPrefix("Error: "))
            #expect(try String(contentsOf: file, encoding: .utf8) == starter)

            // The learner's edit: width 1 and a fourth closure of 2 s, written as other articles
            // write a print and a wait (several items; Foundation's and the C library's sleeps),
            // each recorded and scaled as `sleep` is: 1 + 1 + 1 + (1 + 0.5 + 0.5) = 5 s.
            let edited =
                starter
                .replacingOccurrences(of: "maxConcurrentOperationCount = 2", with: "maxConcurrentOperationCount = 1")
                .replacingOccurrences(
                    of: "    printerQueue.addOperation { print(\"Желает 🍋\"); sleep(1) }\n",
                    with: "    printerQueue.addOperation { print(\"Желает 🍋\"); sleep(1) }\n"
                        + "    printerQueue.addOperation { print(\"Знать\", 4); Thread.sleep(forTimeInterval: 1); usleep(500_000); Thread.sleep(forTimeInterval: 0.5) }\n"
                )
            #expect(edited != starter)
            // Saved in place, as an editor saves: written to a temporary file and renamed, the
            // folder's change makes SwiftPM plan the whole build again (0.4 s), not this edit.
            try edited.write(to: file, atomically: false, encoding: .utf8)
            let second = try Self.buildAndRun(copy)
            #expect(second.verdict == "pass")
            #expect(abs((second.expected ?? 0) - 5 * Self.scale) < 1e-9)
            #expect(second.labels == ["Желает 🍋", "Знать 4", "Каждый 🍎", "Охотник 🍊"])

            // Its report shows the edited code, the new line's results beside it, and the text
            // names the line each word was printed from.
            let added =
                try #require(edited.components(separatedBy: "\n").firstIndex { $0.contains("print(\"Знать\", 4)") }) + 1
            let report = copy.appendingPathComponent("Reports/learner")
            let ran = try Self.run(
                copy.appendingPathComponent(".build/debug/run-experiments"),
                ["my-queue", "--time-scale", Self.scale.decimalText, "--report-dir", report.path],
                in: copy, timeout: 60
            )
            #expect(ran.stdout.contains("Знать 4  MyQueue.swift:\(added)"), "\(ran.stdout)")
            let html = try String(contentsOf: report.appendingPathComponent("index.html"), encoding: .utf8)
            let row = try #require(
                html.components(separatedBy: "\n").first {
                    $0.contains(#"id="my-queue:Playground/MyQueue.swift:\#(added)""#)
                })
            #expect(
                row.contains("print(&quot;Знать&quot;, 4)") && row.contains("▸ Знать 4: starts ")
                    && row.contains(" · Знать 4</span>") && row.contains(" slept "), "\(row)")

            // Edited after the build, the lines move: the report says in one sentence that the
            // results are left out, and no printed line names a line of the edited file.
            try ("// A note written after the build.\n\n" + edited).write(to: file, atomically: false, encoding: .utf8)
            let stale = copy.appendingPathComponent("Reports/stale")
            let afterTheEdit = try Self.run(
                copy.appendingPathComponent(".build/debug/run-experiments"),
                ["my-queue", "--time-scale", Self.scale.decimalText, "--report-dir", stale.path],
                in: copy, timeout: 60
            )
            let sentence = "MyQueue.swift was edited after this executable was built: its results are left out"
            #expect(
                afterTheEdit.stdout.contains("Знать 4") && !afterTheEdit.stdout.contains("MyQueue.swift:"),
                "\(afterTheEdit.stdout)")
            #expect(
                afterTheEdit.stdout.replacingOccurrences(of: "\n           ", with: " ").contains(sentence),
                "\(afterTheEdit.stdout)")
            let markdown = try String(contentsOf: stale.appendingPathComponent("report.md"), encoding: .utf8)
            #expect(markdown.contains(sentence) && !markdown.contains("MyQueue.swift:"), "\(markdown)")
            let staleHTML = try String(contentsOf: stale.appendingPathComponent("index.html"), encoding: .utf8)
            #expect(staleHTML.contains(sentence) && !staleHTML.contains("▸ Знать 4: starts "))
        }
    }
}
