import ExperimentKit
import Foundation

/// Six asynchronous SumOperations (article 000, "Asynchronous operation"; AsyncOperations.playground).
let sumOperationExperiment = Experiment(
    name: "sum-operation",
    title: "SumOperation: six asynchronous additions",
    source: ArticleSource(file: "000_d66eefb2b922d5e0.txt", section: "Asynchronous operation (AsyncOperations.playground)"),
    summary: "One SumOperation (an AsyncOperation) per pair of (1,5) (5,8) (6,1) (3,9) (6,12) (1,0) on additionQueue. Its main() calls asyncAdd, which sleeps 1 s on DispatchQueue.global() and calls back; the callback stores the sum and finishes the operation; its completion block prints \"l + r = sum\". The timeline draws each operation from main() to its callback, and each sleep (\"· asyncAdd\") on the pool worker that holds it.",
    claim: ArticleClaim(
        quote: "We see that the order of execution of asynchronous operations is slightly different from the order of the pairs of numbers in the array. It speaks about multi-threaded execution of our asynchronous operations.",
        seconds: nil
    ),
    expectedOutcome: "Every sum is correct; they complete in an order of their own, as threads become free.",
    platformDifference: "The operations themselves hold no thread while they wait for their callbacks, but the one-second sleeps they hand to DispatchQueue.global() block workers of Linux's default pool, which starts with one per CPU and grows by one a second: the sleeps (the \"· asyncAdd\" rows) take turns on the workers instead of all sleeping at once as on Apple platforms.",
    parameters: [StandardParameters.pairs(Summing.asyncPairs.count, 1...Summing.asyncPairs.count)],
    code: { context in
        let pairs = Array(Summing.asyncPairs.prefix(context.parameters[.pairs]))
        let additionQueue = OperationQueue()
        let completed = LockedArray<String>()
        // Completion blocks run on another thread after their operation finishes: the group
        // lets the experiment wait for the last one too.
        let completions = DispatchGroup()
        var operations: [SumOperation] = []
        for (lhs, rhs) in pairs {
            let operation = SumOperation(input: (lhs, rhs))
            completions.enter()
            operation.completionBlock = { [unowned operation] in
                defer { completions.leave() }
                guard let result = operation.result else { return }
                print("\(lhs) + \(rhs) = \(result)")
                completed.append(Summing.label((lhs, rhs)))
            }
            additionQueue.addOperation(operation)
            operations.append(operation)
        }
        additionQueue.waitUntilAllOperationsAreFinished()
        completions.wait()
        let inputOrder = pairs.map(Summing.label)
        // The sleeps as the pool ran them, recorded from its workers.
        let workerLabels = Set(pairs.map(Summing.workerLabel))
        let sleeps = (context.timeline.measurement()?.operations ?? []).filter { workerLabels.contains($0.label) }
        context.record("inputOrder", .strings(inputOrder))
        context.record("completionOrder", .strings(completed.elements))
        // The article's point: asynchronous operations complete in an order of their own.
        context.record("completionOrderDiffers", .bool(completed.elements != inputOrder))
        context.record("sleepsAtOnce", .number(Double(Overlap.maximum(of: sleeps.map { ($0.start, $0.end) }))))
        context.record("sums", Summing.value(operations.map { $0.result ?? -1 }))
    },
    checks: { measurement, prediction in
        let pairs = Summing.asyncPairs.prefix(prediction.workload.operations.count)
        let expected = pairs.map { $0.0 + $0.1 }
        let sums = measurement.outcome["sums"].flatMap { value -> [Int]? in
            guard case .array(let items) = value else { return nil }
            return items.compactMap { $0.numberValue.map { Int($0) } }
        }
        let completion = measurement.outcome["completionOrder"]?.stringArray ?? []
        return [
            Check("every sum is correct: \(expected.map(String.init).joined(separator: ", "))", passed: sums == expected),
            Check("each operation completed once", passed: completion.sorted() == pairs.map(Summing.label).sorted()),
        ]
    }
)
