import Foundation
import Testing
@testable import ExperimentKit
@testable import Experiments
import TestSupport

/// Plans read away from the runner: what travels is the plan the code builds, and an experiment
/// without one is an error that runs nothing.
@Suite struct PlanTransportTests {
    /// Every registered experiment's plan, read in process.
    static let inProcess = PlanSource.inProcess.read(allExperiments.map { ($0, [:]) })

    @Test func everyPlanRoundTripsThroughJSON() throws {
        for (experiment, plan) in zip(allExperiments, Self.inProcess) {
            let workload = try plan.get()
            let line = try JSONEncoder().encode(workload)
            #expect(try JSONDecoder().decode(Workload.self, from: line) == workload, "\(experiment.name)")
        }
    }

    /// One plan child reads every registered experiment's plan, the same as the rehearsal in
    /// process, with the `--set` values each declares.
    @Test func thePlanChildReadsTheSamePlans() throws {
        let child = PlanSource.child(BuiltBinary.url).read(allExperiments.map { ($0, [:]) })
        #expect(child.count == allExperiments.count)
        for (experiment, (read, expected)) in zip(allExperiments, zip(child, Self.inProcess)) {
            #expect(try read.get() == expected.get(), "\(experiment.name)")
        }
        let settings = ["width": "1"]
        let set = PlanSource.child(BuiltBinary.url).read([(serialQueue, settings)])
        #expect(try set[0].get() == serialQueue.workload(serialQueue.parameters(validated: settings)))
    }

    /// Reads `failing` as failed with `reason`, and the others in process.
    static func source(failing: String, reason: String) -> PlanSource {
        PlanSource { experiments, each in
            for (index, wanted) in experiments.enumerated() {
                each(index, wanted.experiment.name == failing ? .failure(PlanFailure(reason)) : PlanSource.inProcess.read([wanted])[0])
            }
        }
    }

    /// An experiment without a plan is an error with the reason and no child; the run goes on
    /// to the next. Under the Apple profile, nothing runs and the same holds.
    @Test(arguments: [PlatformProfile.Kind.linux, .apple])
    func anExperimentWithoutAPlanIsAnErrorAndRunsNothing(profile: PlatformProfile.Kind) {
        let reason = "its rehearsal trapped (signal 4): Probe.swift:24: Fatal error: Unexpectedly found nil"
        // No child can start from this executable: a child started would be an error of its own.
        let runner = Runner(
            executable: URL(fileURLWithPath: "/nonexistent"), timeScale: 0.05, profile: profile,
            plans: Self.source(failing: startThread.name, reason: reason)
        )
        let results = runner.run([startThread], repeats: 1, stops: { false }, progress: { _ in }, finished: { _, _ in })
        #expect(results.map(\.verdict) == [.error])
        #expect(results.first?.reason == reason)
        #expect(results.first?.measurement == nil)
    }
}
