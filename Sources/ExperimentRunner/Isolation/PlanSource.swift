import ExperimentKit
import ExperimentModel
import Foundation

/// Where the runner gets experiments' plans: in a child (the command), or in this process (tests).
package struct PlanSource: Sendable {
    /// The experiments whose plans are read, each with the values it is rehearsed with.
    package typealias Wanted = [(experiment: Experiment, parameters: Parameters)]

    /// Reads the plans of the experiments, in order, handing each result with its index to
    /// `each` as soon as it is read: the runner predicts it while the next is rehearsed.
    package var readEach:
        @Sendable (_ experiments: Wanted, _ each: (Int, Result<Workload, PlanFailure>) -> Void) -> Void

    package init(
        readEach:
            @escaping @Sendable (_ experiments: Wanted, _ each: (Int, Result<Workload, PlanFailure>) -> Void) -> Void
    ) {
        self.readEach = readEach
    }

    /// One result per experiment, in order.
    package func read(_ experiments: Wanted) -> [Result<Workload, PlanFailure>] {
        var results: [Result<Workload, PlanFailure>] = []
        readEach(experiments) { _, result in results.append(result) }
        return results
    }

    /// Rehearses in this process: for tests, which call experiments' code directly anyway.
    package static let inProcess = PlanSource { experiments, each in
        for (index, wanted) in experiments.enumerated() {
            each(index, .success(wanted.experiment.workload(wanted.parameters)))
        }
    }

    /// Rehearses in children of `executable` (this program, whose registry holds the experiments);
    /// without `keepingCallSites`, the plans come without their operations' call stacks.
    package static func child(_ executable: URL, keepingCallSites: Bool = true) -> PlanSource {
        PlanSource { experiments, each in
            PlanChild.read(
                experiments.map { PlanChild.Request.Entry(experiment: $0.experiment.name, parameters: $0.parameters) },
                keepingCallSites: keepingCallSites, executable: executable, each: each)
        }
    }
}
