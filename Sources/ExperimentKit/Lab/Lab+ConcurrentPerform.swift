// A concurrentPerform's iterations, planned as libdispatch spreads them over the calling thread and the pool.

import ExperimentModel
import Foundation

extension Lab {
    /// `DispatchQueue.concurrentPerform(iterations:execute:)` on the experiment's thread: in a
    /// rehearsal each iteration is called once, in index order, and planned as an operation of
    /// the call (`Executor.concurrentPerformIteration(firstAt:)`: run by the calling thread
    /// and the default pool as libdispatch's `dispatch_apply_f` runs them), and what the thread
    /// does next waits for them all, as the call returns only then; in a run, each iteration is
    /// its planned row, drawn on the thread that runs it. Called inside a work, whose thread is
    /// a pool worker at an instant the plan cannot tell, it is named, and its iterations
    /// rehearsed one after another. `perform` hands the iterations to Dispatch.
    package func performingConcurrently(
        iterations: Int, _ work: (Int) -> Void, perform: ((Int) -> Void) -> Void
    ) {
        let planned = isExperimentThread && Lab.handedOff == nil && iterations > 0
        guard mode == .rehearsing else {
            let indices = planned ? lock.withLock { follow(nil, as: .dispatched, queueName: nil)?.operations } : nil
            defer { if planned { threadRuns([]) } }
            guard let indices, indices.count == iterations else {
                if let indices {
                    drift("concurrentPerform made \(iterations) iterations, the plan says \(indices.count)")
                }
                return withoutActuallyEscaping(work) { work in Self.unplanned { perform(work) } }
            }
            return withoutActuallyEscaping(work) { work in
                perform { iteration in self.perform(indices[iteration], cancelled: { false }) { work(iteration) } }
            }
        }
        guard planned else {
            if iterations > 0 {
                unmodelled(
                    "DispatchQueue.concurrentPerform inside a work",
                    why:
                        "its calling thread is one the work holds, from an instant the plan cannot tell, and its iterations share that thread's pool, which the model does not plan yet"
                )
            }
            return Self.unplanned { (0..<iterations).forEach(work) }
        }
        rehearsePendingMains()
        let recorded = withoutActuallyEscaping(work) { work in
            Self.rehearseBlocks((0..<iterations).map { iteration in { work(iteration) } })
        }
        let indices = lock.withLock {
            let first = workload.operations.count
            let dependencies = awaitedByTheThread
            let indices = recorded.enumerated().map { iteration, work in
                addPlanned(
                    Operation(), label: work.printed.first ?? "concurrentPerform iteration \(iteration)", work: work,
                    executor: .concurrentPerformIteration(firstAt: first), dependencies: dependencies)
            }
            registrations.append(Workload.Registration(kind: .dispatched, operations: indices, completion: nil))
            return indices
        }
        threadRuns(indices)
    }
}
