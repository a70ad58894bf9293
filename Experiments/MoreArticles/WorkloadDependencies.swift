import ExperimentKit
import Foundation

extension Workload {
    /// Gives real operations the planned dependencies: `operations[i]` was built from
    /// `self.operations[i]` and comes to depend on what that one depends on.
    func linkDependencies(of operations: [Operation]) {
        for (index, planned) in self.operations.enumerated() {
            for dependency in planned.dependencies {
                operations[index].addDependency(operations[dependency])
            }
        }
    }
}
