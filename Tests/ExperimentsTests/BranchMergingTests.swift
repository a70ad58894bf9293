import ExperimentKit
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import ExperimentModel
@testable import Experiments

/// The model explores each state's continuation once (``Scheduler``'s search merges branches
/// that reach equal states): for every registered experiment, on both profiles, at the
/// smallest scale (where the real-second race windows hold most events) and the article's, it must predict exactly the branches, in the
/// same order, that the plain search does.
@Suite(.serialized, .oneAtATime) struct BranchMergingTests {
    /// One experiment's prediction made both ways, each with the simulations it ran.
    struct Searches: Sendable {
        var merged: Prediction, plain: Prediction
        var mergedSimulations: Int, plainSimulations: Int
    }

    /// Each pair of searches is made once per test process: the work test reads the counts of
    /// the very searches the branch test compares.
    private static let made = Mutex<[String: Searches]>([:])

    static func searches(_ experiment: Experiment, on kind: PlatformProfile.Kind, at scale: Double) -> Searches {
        let key = "\(experiment.name) on \(kind) at \(scale)"
        if let done = made.withLock({ $0[key] }) { return done }
        let workload = experiment.workload()
        let profile = PlatformProfile(kind: kind, cpus: 2)
        let plain = Scheduler.searching(workload, profile: profile, timeScale: scale, mergingEqualStates: false)
        let merged = Scheduler.searching(workload, profile: profile, timeScale: scale, mergingEqualStates: true)
        let searches = Searches(
            merged: merged.prediction, plain: plain.prediction, mergedSimulations: merged.simulations,
            plainSimulations: plain.simulations)
        made.withLock { $0[key] = searches }
        return searches
    }

    @Test(arguments: [0.05, 1.0])
    func mergingKeepsEveryBranch(scale: Double) {
        for experiment in articleExperiments {
            for kind in PlatformProfile.Kind.allCases {
                let searches = Self.searches(experiment, on: kind, at: scale)
                #expect(
                    searches.merged.branches == searches.plain.branches, "\(experiment.name) on \(kind) at \(scale)")
            }
        }
    }

    /// The merge is what makes the busiest prediction cheap: table-view-scroll's runs a fraction
    /// of the simulations of the plain search, which makes the same ones many times over.
    /// Counted, not timed: both searches take milliseconds in the optimised build, where a
    /// timing ratio measured once is the machine's noise.
    @Test func tableViewScrollIsPredictedQuickly() throws {
        let experiment = try #require(articleExperiments.first { $0.name == "table-view-scroll" })
        let searches = Self.searches(experiment, on: .linux, at: 0.05)
        #expect(
            searches.mergedSimulations * 4 < searches.plainSimulations,
            "merged \(searches.mergedSimulations), plain \(searches.plainSimulations) simulations")
    }
}
