import Foundation
import Synchronization
import Testing
@testable import ExperimentKit
@testable import Experiments

/// The model explores each state's continuation once (``Scheduler``'s search merges branches
/// that reach equal states): for every registered experiment, on both profiles, at the
/// smallest scale (where the real-second race windows hold most events) and the article's, it must predict exactly the branches, in the
/// same order, that the plain search does.
@Suite struct BranchMergingTests {
    /// One experiment's prediction made both ways, each with the time it took.
    struct Searches: Sendable {
        var merged: Prediction, plain: Prediction
        var mergedSeconds: Double, plainSeconds: Double
    }

    /// Each pair of searches is made once per test process: the timing test reads the times of
    /// the very searches the branch test compares (table-view-scroll's plain search takes
    /// 0.45 s in the debug build).
    private static let made = Mutex<[String: Searches]>([:])

    static func searches(_ experiment: Experiment, on kind: PlatformProfile.Kind, at scale: Double) -> Searches {
        let key = "\(experiment.name) on \(kind) at \(scale)"
        if let done = made.withLock({ $0[key] }) { return done }
        let workload = experiment.workload()
        let profile = PlatformProfile(kind: kind, cpus: 2)
        func timed(merging: Bool) -> (Prediction, Double) {
            let start = ContinuousClock.now
            let prediction = Scheduler.predict(workload, profile: profile, timeScale: scale, mergingEqualStates: merging)
            let elapsed = ContinuousClock.now - start
            return (prediction, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        let (plain, plainSeconds) = timed(merging: false), (merged, mergedSeconds) = timed(merging: true)
        let searches = Searches(merged: merged, plain: plain, mergedSeconds: mergedSeconds, plainSeconds: plainSeconds)
        made.withLock { $0[key] = searches }
        return searches
    }

    @Test(arguments: [0.05, 1.0])
    func mergingKeepsEveryBranch(scale: Double) {
        for experiment in allExperiments {
            for kind in PlatformProfile.Kind.allCases {
                let searches = Self.searches(experiment, on: kind, at: scale)
                #expect(searches.merged.branches == searches.plain.branches, "\(experiment.name) on \(kind) at \(scale)")
            }
        }
    }

    /// The merge is what makes the busiest prediction cheap: table-view-scroll's, made many
    /// times over by the plain search, now takes a fraction of its time.
    @Test func tableViewScrollIsPredictedQuickly() throws {
        let experiment = try #require(allExperiments.first { $0.name == "table-view-scroll" })
        let searches = Self.searches(experiment, on: .linux, at: 0.05)
        // Ratio, not a wall-clock bound: a loaded machine slows both alike.
        #expect(searches.mergedSeconds < searches.plainSeconds / 4, "merged \(searches.mergedSeconds) s, plain \(searches.plainSeconds) s")
    }
}
