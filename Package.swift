// swift-tools-version:6.0
import PackageDescription

/// The runner and the pictures are compiled optimised in the debug build too (the one `swift run`
/// makes): unoptimised, drawing and filtering the pictures, calibrating their costs and predicting
/// with them take most of a second per image experiment. The experiments themselves,
/// the files a learner edits and runs again, stay unoptimised: quick to rebuild, easy to debug.
let optimizedInDebug: [SwiftSetting] = [.unsafeFlags(["-O"], .when(configuration: .debug))]

let package = Package(
    name: "run-experiments",
    products: [
        .executable(name: "run-experiments", targets: ["run-experiments"]),
    ],
    targets: [
        // The runner: registry types, clock and timeline, platform model, verdicts, renderers, CLI, child processes.
        .target(name: "ExperimentKit", path: "Sources/ExperimentKit", swiftSettings: optimizedInDebug),
        // The pictures the image experiments load and filter (what Linux lacks of UIKit): RGBA
        // images, the articles' filters, the drawn source pictures, PNG files, their CPU costs.
        .target(name: "Images", dependencies: ["ExperimentKit"], path: "Experiments/Images", swiftSettings: optimizedInDebug),
        // The articles' experiments and the reusable operation types they are built from.
        .target(name: "Experiments", dependencies: ["ExperimentKit", "Images"], path: "Experiments", exclude: ["Images"]),
        // A thin executable: hands the registry to the runner.
        .executableTarget(name: "run-experiments", dependencies: ["ExperimentKit", "Experiments"], path: "Sources/run-experiments"),
        // What every test target repeats: the platform profiles, the built binary, millisecond rounding, goldens.
        .target(name: "TestSupport", dependencies: ["ExperimentKit"], path: "Tests/TestSupport"),
        .testTarget(name: "ExperimentKitTests", dependencies: ["ExperimentKit", "TestSupport"], path: "Tests/ExperimentKitTests", resources: [.copy("Goldens")]),
        // Depends on the executable so that `swift test` builds the binary the end-to-end tests start.
        .testTarget(name: "ExperimentsTests", dependencies: ["ExperimentKit", "Images", "Experiments", "TestSupport", "run-experiments"], path: "Tests/ExperimentsTests", resources: [.copy("Goldens")]),
    ]
)
