// The twins of a few experiments: the same queue, the same operations, the same sleeps, in a
// program that imports Foundation and nothing of the runner. `bare-twins SHAPE SCALE` runs one
// and prints the seconds it took (monotonic clock, from the queue's creation to the return of
// the last wait), so `twins.py` can set it beside the experiment's own measured total and tell
// the runner's cost from the platform's.
//
// Each shape is written as its experiment's code is, with two changes only: a sleep of the
// article's `n` seconds is `Thread.sleep(forTimeInterval: n * scale)` (the primitive the
// runner's `sleep` ends in), and the cancel waits on the clock from the start, as
// `context.sleep(untilArticleSeconds:)` does.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3, Double(arguments[2]).map({ $0 > 0 }) == true else {
    FileHandle.standardError.write(
        Data(
            "usage: bare-twins serial-queue|concurrent-printer-queue|dependent-thread-reuse|cancellation-at-2s SCALE\n"
                .utf8))
    exit(64)
}

let start = ContinuousClock.now
// swift-format-ignore
switch arguments[1] {
case "serial-queue":
    let printerQueue = OperationQueue()
    printerQueue.maxConcurrentOperationCount = 1
    printerQueue.addOperation { print("Каждый 🍎"); sleep(2) }
    printerQueue.addOperation { print("Охотник 🍊"); sleep(2) }
    printerQueue.addOperation { print("Желает 🍋"); sleep(2) }
    printerQueue.addOperation { print("Знать 🍏"); sleep(2) }
    printerQueue.addOperation { print("Где 💎"); sleep(2) }
    printerQueue.addOperation { print("Сидит 🚙"); sleep(2) }
    printerQueue.addOperation { print("Фазан 🍆"); sleep(2) }
    let concatenationOperation = BlockOperation { print("-------💧☂️"); sleep(2) }
    concatenationOperation.qualityOfService = .userInitiated
    printerQueue.addOperation(concatenationOperation)
    printerQueue.waitUntilAllOperationsAreFinished()
case "concurrent-printer-queue":
    let printerQueue = OperationQueue()
    printerQueue.addOperation { print("Каждый 🍎"); sleep(2) }
    printerQueue.addOperation { print("Охотник 🍊"); sleep(2) }
    printerQueue.addOperation { print("Желает 🍋"); sleep(2) }
    printerQueue.addOperation { print("Знать 🍏"); sleep(2) }
    printerQueue.addOperation { print("Где 💎"); sleep(2) }
    printerQueue.addOperation { print("Сидит 🚙"); sleep(2) }
    printerQueue.addOperation { print("Фазан 🍆"); sleep(2) }
    printerQueue.waitUntilAllOperationsAreFinished()
case "dependent-thread-reuse":
    let queue = OperationQueue()
    let operation1 = BlockOperation { print("operation 1"); sleep(1) }
    let operation2 = BlockOperation { print("operation 2"); sleep(1) }
    operation2.addDependency(operation1)
    let independentA = BlockOperation { print("independent A"); sleep(1) }
    let independentB = BlockOperation { print("independent B"); sleep(1) }
    independentA.addDependency(operation2)
    independentB.addDependency(operation2)
    queue.addOperations([operation1, operation2, independentA, independentB], waitUntilFinished: false)
    queue.waitUntilAllOperationsAreFinished()
case "cancellation-at-2s":
    let sumOperation = ArraySumOperation(input: [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)])
    let queue = OperationQueue()
    queue.addOperation(sumOperation)
    sleep(untilArticleSeconds: 1.75, from: start)
    print("cancel()")
    sumOperation.cancel()
    queue.waitUntilAllOperationsAreFinished()
default:
    FileHandle.standardError.write(Data("bare-twins: no shape '\(arguments[1])'\n".utf8))
    exit(64)
}
print("seconds \((ContinuousClock.now - start).inSeconds)")
