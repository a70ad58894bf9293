// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "run-experiments",
    products: [
        .executable(name: "run-experiments", targets: ["run-experiments"]),
    ],
    targets: [
        // The runner: registry types, clock and timeline, platform model, verdicts, renderers, CLI, child processes.
        .target(name: "ExperimentKit", path: "Sources/ExperimentKit"),
        // The articles' experiments and the reusable operation types they are built from.
        .target(name: "Experiments", dependencies: ["ExperimentKit"], path: "Experiments"),
        // A thin executable: hands the registry to the runner.
        .executableTarget(name: "run-experiments", dependencies: ["ExperimentKit", "Experiments"], path: "Sources/run-experiments"),
        // What every test target repeats: the platform profiles, the built binary, millisecond rounding, goldens.
        .target(name: "TestSupport", dependencies: ["ExperimentKit"], path: "Tests/TestSupport"),
        .testTarget(name: "ExperimentKitTests", dependencies: ["ExperimentKit", "TestSupport"], path: "Tests/ExperimentKitTests", resources: [.copy("Goldens")]),
        // Depends on the executable so that `swift test` builds the binary the end-to-end tests start.
        .testTarget(name: "ExperimentsTests", dependencies: ["ExperimentKit", "Experiments", "TestSupport", "run-experiments"], path: "Tests/ExperimentsTests", resources: [.copy("Goldens")]),
    ]
)
