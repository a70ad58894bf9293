import ExperimentKit
import Foundation

extension QualityOfService {
    /// Foundation's class for the model's name of it.
    init(_ serviceClass: ServiceClass) {
        switch serviceClass {
        case .userInteractive: self = .userInteractive
        case .userInitiated: self = .userInitiated
        case .default: self = .default
        case .utility: self = .utility
        case .background: self = .background
        }
    }
}

/// Builds the real OperationQueues and operations a ``Workload`` declares, so the code that runs
/// is the plan the model predicted from.
struct QueueWorkloadRunner {
    let context: RunContext
    let workload: Workload

    /// One OperationQueue per declared queue, configured as declared.
    func makeQueues() -> [OperationQueue] {
        workload.queues.map { spec in
            let queue = OperationQueue()
            queue.name = spec.name
            queue.maxConcurrentOperationCount = spec.maxConcurrentOperationCount ?? OperationQueue.defaultMaxConcurrentOperationCount
            return queue
        }
    }

    /// The article's printing closure for a planned operation: print its label, then block its
    /// thread for its duration, recording both from inside.
    func printingOperation(_ planned: PlannedOperation) -> BlockOperation {
        let context = self.context
        let operation = BlockOperation {
            context.timeline.operation(planned.label) {
                context.print(planned.label)
                context.sleep(articleSeconds: planned.articleSeconds)
                return false
            }
        }
        operation.name = planned.label
        if let serviceClass = planned.serviceClass {
            operation.qualityOfService = QualityOfService(serviceClass)
        }
        return operation
    }

    /// Adds every queued operation of the workload in order (timing the enqueueing), with its
    /// dependencies, then waits for all queues. Returns who started in which order, on how many threads.
    func runPrintingOperations() -> Outcome {
        let queues = makeQueues()
        let operations = workload.operations.map(printingOperation)
        for (index, planned) in workload.operations.enumerated() {
            for dependency in planned.dependencies {
                operations[index].addDependency(operations[dependency])
            }
        }
        context.timeline.timeEnqueueing {
            for (index, planned) in workload.operations.enumerated() {
                if case .queue(let queueIndex) = planned.executor {
                    queues[queueIndex].addOperation(operations[index])
                }
            }
        }
        queues.forEach { $0.waitUntilAllOperationsAreFinished() }
        return context.timeline.scheduleOutcome()
    }
}
