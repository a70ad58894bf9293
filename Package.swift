// swift-tools-version:6.3
// 6.3: the toolchain the package is built and tested with. The code needs 6.2 at least (the
// `Runtime` module); an older one stops here, before compiling anything.
import PackageDescription

/// The runner and the pictures are compiled optimised in the debug build too (the one `swift run`
/// makes): unoptimised, drawing and filtering the pictures, calibrating their costs and predicting
/// with them take most of a second per image experiment. The experiments themselves,
/// the files a learner edits and runs again, stay unoptimised: quick to rebuild, easy to debug.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

/// The experiments' code, and the learner's, stays unoptimised in the release build too: each
/// instrumented call (`print`, `sleep`, `addOperation`) keeps a frame of its own instead of being
/// inlined into the closure that makes it, so the call stack it records names the line of the
/// experiment's code that made it, as in a debug build.
let keepsItsCallSites: SwiftSetting = .unsafeFlags(["-Onone"], .when(configuration: .release))

/// The executable is linked by the toolchain's lld, not the system's gold: `watch` relinks it after
/// every save, and lld, which links on every core, takes a smaller part of the round (see
/// TheRunnersOwnCost.md). The experiments' source lines read from its debug information as from gold's.
let linksQuickly: LinkerSetting = .unsafeFlags(["-use-ld=lld"])

let package = Package(
    name: "run-experiments",
    products: [
        .executable(name: "run-experiments", targets: ["run-experiments"])
    ],
    targets: [
        // The layers, each depending only on those it names (the compiler keeps the direction):
        // the model predicts, the lab runs an experiment's code and measures it, the results say
        // what a run came to; beside each other above them, the runner isolates runs in child
        // processes and judges them, and the reports render results; the report folder writes
        // them, and the command line ties the runner and the folder together.
        // Two leaves that know nothing of experiments: the Swift scanner, which reads a file's
        // tokens, brackets and declarations for the code a report shows, and its lines without
        // comments and strings for the constructs the lab looks for; and the DWARF line reader,
        // which maps an executable's instructions to the lines of its source files.
        .target(name: "SwiftScanner", path: "Sources/SwiftScanner", swiftSettings: optimizedInDebug),
        .target(name: "DWARFLines", path: "Sources/DWARFLines", swiftSettings: optimizedInDebug),
        // The model: workloads, the schedulers of both platforms, profiles, predictions. No I/O.
        .target(name: "ExperimentModel", path: "Sources/ExperimentModel", swiftSettings: optimizedInDebug),
        // What an experiment's file imports: the registry types, the lab that reads and runs the
        // code with the real OperationQueue, the clock and the timeline it records.
        .target(
            name: "ExperimentKit", dependencies: ["ExperimentModel", "DWARFLines", "SwiftScanner"],
            path: "Sources/ExperimentKit", swiftSettings: optimizedInDebug),
        // What a run came to, as both the runner and the reports see it: the result, its verdict
        // and checks, the tolerance, the repeats, an earlier run, the host and the run's conditions.
        .target(
            name: "ExperimentResults", dependencies: ["ExperimentKit"], path: "Sources/ExperimentResults",
            swiftSettings: optimizedInDebug),
        // Child processes, the pipeline of runs, and judging what a child reported.
        .target(
            name: "ExperimentRunner", dependencies: ["ExperimentKit", "ExperimentResults"],
            path: "Sources/ExperimentRunner", swiftSettings: optimizedInDebug),
        // The renderers: text, Markdown, JSON, the HTML page with its code and timelines.
        .target(
            name: "ExperimentReports", dependencies: ["ExperimentKit", "ExperimentResults", "SwiftScanner"],
            path: "Sources/ExperimentReports", swiftSettings: optimizedInDebug),
        // The report folder's swap: the tool's own files replaced, the user's never touched.
        .target(
            name: "ReportFiles", dependencies: ["ExperimentResults", "ExperimentReports"], path: "Sources/ReportFiles",
            swiftSettings: optimizedInDebug),
        // Arguments, usage, the commands, the learner's starter.
        .target(
            name: "ExperimentCLI", dependencies: ["ExperimentRunner", "ReportFiles"], path: "Sources/ExperimentCLI",
            swiftSettings: optimizedInDebug),
        // The pictures the image experiments load and filter (what Linux lacks of UIKit): RGBA
        // images, the articles' filters, the drawn source pictures, PNG files, their CPU costs.
        .target(
            name: "Pictures", dependencies: ["ExperimentKit"], path: "Experiments/Pictures",
            swiftSettings: optimizedInDebug),
        // The articles' experiments, the reusable operation types they are built from, and the
        // instrumented Foundation and Dispatch names their code (and the learner's) calls.
        .target(
            name: "Experiments", dependencies: ["ExperimentKit", "Pictures"], path: "Experiments",
            exclude: ["Pictures", "Playground"], swiftSettings: [keepsItsCallSites]),
        // The executable: the learner's own experiments (`run-experiments new`) and the entry
        // that hands the registry to the command line (`Playground/Entry/main.swift`). A module
        // of their own, so that the articles' type names are free there, and in Swift 5 mode, as
        // a playground compiles the articles' code. The entry lies in it because each save of a
        // learner's experiment changes the module's interface (the code is a closure in a global's
        // initialiser), so any module importing it would be compiled again on every save: here,
        // `watch` and `swift run` compile the saved file and the list that names it, then link.
        .executableTarget(
            name: "run-experiments", dependencies: ["ExperimentCLI", "Experiments"], path: "Experiments/Playground",
            swiftSettings: [.swiftLanguageMode(.v5), keepsItsCallSites], linkerSettings: [linksQuickly]),
        // The twins of a few experiments in bare Foundation, which Tests/Benchmarks/twins.py times
        // beside the experiments to measure what the runner adds.
        .executableTarget(name: "bare-twins", path: "Tests/Benchmarks/BareTwins"),
        // What every test target repeats: the suites' turn, the platform profiles, the built
        // binary, millisecond rounding, goldens, a result rendered in every format.
        .target(
            name: "TestSupport",
            dependencies: [
                "ExperimentKit", "ExperimentResults", "ExperimentRunner", "ExperimentReports", "ReportFiles",
            ], path: "Tests/TestSupport"),
        // A test target per layer, each named for the module it tests.
        .testTarget(
            name: "SwiftScannerTests", dependencies: ["SwiftScanner", "ExperimentKit", "TestSupport"],
            path: "Tests/SwiftScannerTests"),
        .testTarget(
            name: "DWARFLinesTests", dependencies: ["DWARFLines", "TestSupport"], path: "Tests/DWARFLinesTests"),
        .testTarget(
            name: "ExperimentModelTests", dependencies: ["ExperimentModel", "ExperimentKit", "TestSupport"],
            path: "Tests/ExperimentModelTests"),
        .testTarget(
            name: "ExperimentResultsTests", dependencies: ["ExperimentResults", "ExperimentReports", "TestSupport"],
            path: "Tests/ExperimentResultsTests"),
        .testTarget(
            name: "ExperimentRunnerTests", dependencies: ["ExperimentRunner", "ExperimentReports", "TestSupport"],
            path: "Tests/ExperimentRunnerTests"),
        .testTarget(
            name: "ExperimentReportsTests",
            dependencies: ["ExperimentReports", "ReportFiles", "ExperimentRunner", "TestSupport"],
            path: "Tests/ExperimentReportsTests", resources: [.copy("Goldens")]),
        .testTarget(
            name: "ExperimentCLITests", dependencies: ["ExperimentCLI", "ExperimentReports", "TestSupport"],
            path: "Tests/ExperimentCLITests"),
        // End to end: the experiments, their pictures and the learner's playground run for real,
        // through the lab, the runner and the built binary.
        // Depends on the executables so that `swift test` builds the binaries the end-to-end tests
        // start: the runner (whose module, `run_experiments`, holds the starter they import), and
        // the bare twins its cost is measured against.
        .testTarget(
            name: "ExperimentsTests",
            dependencies: ["ExperimentCLI", "Pictures", "Experiments", "TestSupport", "run-experiments", "bare-twins"],
            path: "Tests/ExperimentsTests", resources: [.copy("Goldens")]),
    ]
)
