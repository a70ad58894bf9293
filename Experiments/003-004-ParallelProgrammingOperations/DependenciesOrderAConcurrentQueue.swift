import ExperimentKit
import Foundation

// swift-format-ignore
/// Dependencies order operations on a queue that could run them all at once (article 004,
/// "Dependencies").
let dependenciesOrderAConcurrentQueue = Experiment(
    "dependencies-order-a-concurrent-queue", article: "004_75652ba8307bb273.txt",
    section: "Dependencies"
) { context in
    let queue = OperationQueue()
    let steps = Ordering.steps.map { label in BlockOperation { print(label); sleep(0.5) } }
    steps[1].addDependency(steps[0])
    steps[2].addDependency(steps[1])
    for step in steps.reversed() {
        queue.addOperation(step)
    }
    queue.waitUntilAllOperationsAreFinished()

    for label in Ordering.free {
        queue.addOperation { print(label); sleep(0.5) }
    }
    queue.waitUntilAllOperationsAreFinished()
}
.title("A chain of dependencies runs in order on a default-width queue; without it, the operations overlap")
.summary("Three operations, each printing and sleeping 0.5 s, on an OperationQueue of default width: step 3 depends on step 2, step 2 on step 1, and they are added last first. Once they have finished, three more without dependencies go to the same queue.")
.claim("This enables us to strictly order our Operations.", seconds: nil)
.expectedOutcome("The chain runs step 1, 2, 3, one after another although added in reverse order and free to run at once: 1.5 s; the three without dependencies then start together as the pool allows (two at once on 2 CPUs here, the third once a worker is free for it): about 2.5 s in all.")
.platformDifference("Dependencies order operations on every platform; Apple's pool starts the three free ones at once, where Linux's two workers take two, then the third.")
.checks { measurement, prediction in
    let steps = Ordering.steps.compactMap(measurement.span)
    let free = Ordering.free.compactMap(measurement.span)
    let predictedFree = Overlap.maximum(of: prediction.nominal.spans.compactMap { $0 }.filter { Ordering.free.contains($0.label) }.map { ($0.start, $0.end) })
    return [
        Check("the chain started step 1, 2, 3, each once the one before had ended, though added in reverse",
              passed: steps.count == 3 && steps.map(\.label) == steps.sorted { $0.start < $1.start }.map(\.label)
                  && zip(steps, steps.dropFirst()).allSatisfy { $1.start >= $0.end - Overlap.touchingSeconds }),
        Check("without dependencies, \(Overlap.maximum(of: free.map { ($0.start, $0.end) })) of the three ran at once (predicted \(predictedFree))",
              passed: free.count == 3 && Overlap.maximum(of: free.map { ($0.start, $0.end) }) == predictedFree && predictedFree > 1),
    ]
}

/// Labels of the dependencies-order-a-concurrent-queue experiment.
enum Ordering {
    static let steps = (1...3).map { "step \($0)" }
    static let free = (1...3).map { "free \($0)" }
}
