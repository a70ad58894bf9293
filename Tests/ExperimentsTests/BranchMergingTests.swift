import Foundation
import Testing
@testable import ExperimentKit
@testable import Experiments

/// The model explores each state's continuation once (``Scheduler``'s search merges branches
/// that reach equal states): for every registered experiment, on both profiles, at the
/// smallest scale (where the real-second race windows hold most events) and the article's, it must predict exactly the branches, in the
/// same order, that the plain search does.
@Suite struct BranchMergingTests {
    @Test(arguments: [0.05, 1.0])
    func mergingKeepsEveryBranch(scale: Double) {
        for experiment in allExperiments {
            let workload = experiment.workload()
            for kind in PlatformProfile.Kind.allCases {
                let profile = PlatformProfile(kind: kind, cpus: 2)
                let merged = Scheduler.predict(workload, profile: profile, timeScale: scale, mergingEqualStates: true)
                let plain = Scheduler.predict(workload, profile: profile, timeScale: scale, mergingEqualStates: false)
                #expect(merged.branches == plain.branches, "\(experiment.name) on \(kind) at \(scale)")
            }
        }
    }

    /// The merge is what makes the busiest prediction cheap: table-view-scroll's, made many
    /// times over by the plain search, now takes a fraction of its time.
    @Test func tableViewScrollIsPredictedQuickly() throws {
        let experiment = try #require(allExperiments.first { $0.name == "table-view-scroll" })
        let workload = experiment.workload()
        let profile = PlatformProfile(kind: .linux, cpus: 2)
        func seconds(merging: Bool) -> Double {
            let start = ContinuousClock.now
            _ = Scheduler.predict(workload, profile: profile, timeScale: 0.1, mergingEqualStates: merging)
            let elapsed = ContinuousClock.now - start
            return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        }
        let plain = seconds(merging: false), merged = seconds(merging: true)
        // Ratio, not a wall-clock bound: a loaded machine slows both alike.
        #expect(merged < plain / 4, "merged \(merged) s, plain \(plain) s")
    }
}
