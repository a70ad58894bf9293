import ExperimentCLI
import ExperimentKit
import Experiments
import Foundation
import Testing

/// What a learner writes while reading the articles, pasted into experiments of their own
/// (`run-experiments new`), built once in the copy of the package the playground test keeps, and
/// run as the learner runs them: each is held to its prediction (a pass), or, where it does what
/// no plan can hold, to being named `unmodelled` with the construct and the line that does it.
/// Never a `fail` from the tool misreading correct code.
extension TimedRuns {
    @Suite struct LearnerCorpus {
        enum Expected {
            /// Predicted, and the run held to it.
            case pass
            /// Named as unmodelled: the reason holds `construct` at the line of the file that
            /// holds `line` (the first such line).
            case unmodelled(construct: String, line: String)
        }

        struct Edit {
            var name: String
            /// What the file declares before its experiment (the articles' classes, as written).
            var declarations = ""
            var code: String
            var expected: Expected
        }

        static let edits: [Edit] = [
            Edit(
                name: "print-any-items",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation { print(42); sleep(1) }
                    queue.addOperation { print("sum", 3 + 4); sleep(1) }
                    queue.addOperation { print([1, 2, 3]); debugPrint("x"); sleep(1) }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "foundation-sleeps",
                code: """
                    let queue = OperationQueue()
                    queue.maxConcurrentOperationCount = 1
                    queue.addOperation { print("Thread.sleep"); Thread.sleep(forTimeInterval: 1) }
                    queue.addOperation { print("usleep"); usleep(500_000) }
                    queue.addOperation { print("sleep(UInt32)"); sleep(UInt32(1)) }
                    queue.addOperation { print("until"); Thread.sleep(until: Date(timeIntervalSinceNow: 0.5)) }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            // Article 000's ArraySumOperation, cancelled after the experiment's sleep(2): the
            // third sum's check falls at the cancel, a race the model follows both ways.
            Edit(
                name: "array-sum-cancelled",
                code: """
                    final class ArraySumOperation: Operation, @unchecked Sendable {
                        let inputArray: [(Int, Int)]
                        var outputArray: [Int] = []
                        init(input: [(Int, Int)]) { inputArray = input; super.init() }
                        override func main() {
                            for pair in inputArray {
                                if isCancelled { return }
                                sleep(1)
                                outputArray.append(pair.0 + pair.1)
                            }
                        }
                    }
                    let queue = OperationQueue()
                    let sumOperation = ArraySumOperation(input: [(1, 2), (3, 4), (5, 6), (7, 8), (9, 10)])
                    sumOperation.name = "ArraySumOperation"
                    queue.addOperation(sumOperation)
                    sleep(2)
                    sumOperation.cancel()
                    queue.waitUntilAllOperationsAreFinished()
                    print(sumOperation.outputArray)
                    """, expected: .pass),
            // An Operation subclass with a progress closure, the article's AnotherArraySumOperation.
            Edit(
                name: "progress-closure",
                code: """
                    final class ProgressSum: Operation, @unchecked Sendable {
                        let pairs = [(1, 2), (3, 4), (5, 6), (7, 8)]
                        var progress: ((Double) -> Void)?
                        override func main() {
                            for (index, pair) in pairs.enumerated() {
                                sleep(1)
                                print(pair.0 + pair.1)
                                progress?(Double(index + 1) / Double(pairs.count))
                                if isCancelled { return }
                            }
                        }
                    }
                    let queue = OperationQueue()
                    let sum = ProgressSum()
                    sum.name = "ProgressSum"
                    sum.progress = { print("progress", $0) }
                    queue.addOperation(sum)
                    sleep(1.5)
                    queue.cancelAllOperations()
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "global-async-group",
                code: """
                    let group = DispatchGroup()
                    for word in ["one", "two", "three"] {
                        group.enter()
                        DispatchQueue.global().async {
                            print(word)
                            sleep(1)
                            group.leave()
                        }
                    }
                    group.wait()
                    """, expected: .pass),
            Edit(
                name: "completion-then-sleep",
                code: """
                    let queue = OperationQueue()
                    let operation = BlockOperation { print("work"); sleep(1) }
                    operation.completionBlock = { print("done") }
                    queue.addOperation(operation)
                    queue.waitUntilAllOperationsAreFinished()
                    sleep(1)
                    """, expected: .pass),
            Edit(
                name: "serial-underlying-queue",
                code: """
                    let serial = DispatchQueue(label: "serial")
                    let queue = OperationQueue()
                    queue.maxConcurrentOperationCount = 2
                    queue.underlyingQueue = serial
                    queue.addOperation { print("first"); sleep(1) }
                    queue.addOperation { print("second"); sleep(1) }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "add-operations-waiting",
                code: """
                    let queue = OperationQueue()
                    let first = BlockOperation { print("first"); sleep(1) }
                    let second = BlockOperation { print("second"); sleep(1) }
                    second.addDependency(first)
                    second.qualityOfService = .userInitiated
                    queue.addOperations([first, second], waitUntilFinished: true)
                    let third = BlockOperation { print("third"); sleep(1) }
                    queue.addOperation(third)
                    third.waitUntilFinished()
                    """, expected: .pass),
            Edit(
                name: "semaphore-at-the-end",
                code: """
                    let done = DispatchSemaphore(value: 0)
                    let queue = OperationQueue()
                    queue.addOperation { print("working"); sleep(1); done.signal() }
                    done.wait()
                    queue.addOperation { print("after the signal"); sleep(1) }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "chain-across-queues",
                code: """
                    let downloads = OperationQueue()
                    let filters = OperationQueue()
                    filters.maxConcurrentOperationCount = 1
                    let download = BlockOperation { print("download"); sleep(1) }
                    let filter = BlockOperation { print("filter"); sleep(1) }
                    let save = BlockOperation { print("save"); sleep(1) }
                    filter.addDependency(download)
                    save.addDependency(filter)
                    downloads.addOperation(download)
                    filters.addOperations([filter, save], waitUntilFinished: true)
                    """, expected: .pass),
            // A QoS on a queue of width 1 gives no priority: the order stays the order of adding.
            Edit(
                name: "qos-on-serial-queue",
                code: """
                    let queue = OperationQueue()
                    queue.maxConcurrentOperationCount = 1
                    let background = BlockOperation { print("background"); sleep(1) }
                    background.qualityOfService = .background
                    let urgent = BlockOperation { print("urgent"); sleep(1) }
                    urgent.qualityOfService = .userInteractive
                    queue.addOperation(background)
                    queue.addOperation(urgent)
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "started-by-hand",
                code: """
                    final class Greeter: Operation, @unchecked Sendable {
                        override func main() { print("hello"); sleep(1) }
                    }
                    let greeter = Greeter()
                    greeter.completionBlock = { print("greeted") }
                    greeter.start()
                    sleep(1)
                    let queue = OperationQueue()
                    queue.addOperation { print("later"); sleep(1) }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "dependency-passes-data",
                code: """
                    final class Produce: Operation, @unchecked Sendable {
                        var output: Int?
                        override func main() { sleep(1); output = 42 }
                    }
                    final class Consume: Operation, @unchecked Sendable {
                        override func main() {
                            let input = (dependencies.first as? Produce)?.output
                            print("got", input!)
                            sleep(1)
                        }
                    }
                    let queue = OperationQueue()
                    let produce = Produce()
                    produce.name = "produce"
                    let consume = Consume()
                    consume.addDependency(produce)
                    queue.addOperations([produce, consume], waitUntilFinished: true)
                    """, expected: .pass),
            // A loop that only a cancel ends, the articles' `while !isCancelled`: planned step by
            // step until the cancel.
            Edit(
                name: "loop-until-cancelled",
                code: """
                    final class Ticker: Operation, @unchecked Sendable {
                        override func main() {
                            while !isCancelled {
                                print("tick")
                                sleep(0.5)
                            }
                        }
                    }
                    let queue = OperationQueue()
                    let ticker = Ticker()
                    ticker.name = "Ticker"
                    queue.addOperation(ticker)
                    sleep(1.75)
                    ticker.cancel()
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "group-left-in-main",
                code: """
                    let done = DispatchGroup()
                    final class Download: Operation, @unchecked Sendable {
                        let group: DispatchGroup
                        init(group: DispatchGroup) { self.group = group; super.init() }
                        override func main() { print("downloading"); sleep(1); group.leave() }
                    }
                    let queue = OperationQueue()
                    done.enter()
                    queue.addOperation(Download(group: done))
                    done.wait()
                    sleep(0.5)
                    """, expected: .pass),
            Edit(
                name: "signal-partway",
                code: """
                    let halfway = DispatchSemaphore(value: 0)
                    let queue = OperationQueue()
                    queue.addOperation { print("two steps"); sleep(1); halfway.signal(); sleep(1) }
                    halfway.wait()
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .unmodelled(construct: "DispatchSemaphore.wait()", line: "halfway.wait()")),
            Edit(
                name: "queue-of-its-own",
                code: """
                    let mine = DispatchQueue(label: "mine")
                    let group = DispatchGroup()
                    mine.async(group: group) { print("on my queue"); sleep(1) }
                    group.wait()
                    """, expected: .pass),
            Edit(
                name: "cancel-after-a-wait",
                code: """
                    let queue = OperationQueue()
                    let first = BlockOperation { print("first"); sleep(1) }
                    let later = BlockOperation { print("later"); sleep(1) }
                    later.addDependency(first)
                    queue.addOperation(first)
                    queue.addOperation(later)
                    first.waitUntilFinished()
                    later.cancel()
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .unmodelled(construct: "cancel()", line: "later.cancel()")),
            Edit(
                name: "after-a-delay",
                code: """
                    let group = DispatchGroup()
                    group.enter()
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { print("late"); group.leave() }
                    group.wait()
                    """, expected: .pass),
            // Article 000's AsyncOperation, as written, and the playground's SumOperation, which a
            // callback from another queue's operation finishes.
            Edit(
                name: "article-async-operation",
                declarations: TimedRuns.AsynchronousCorpus.asyncOperation("AsyncOperation") + """

                    func asyncAdd(lhs: Int, rhs: Int, callback: @escaping (Int) -> ()) {
                        let additionQueue = OperationQueue()
                        additionQueue.addOperation {
                            sleep(1)
                            callback(lhs + rhs)
                        }
                    }

                    class SumOperation: AsyncOperation {
                        let lhs: Int
                        let rhs: Int
                        var result: Int?
                        init(lhs: Int, rhs: Int) {
                            self.lhs = lhs
                            self.rhs = rhs
                            super.init()
                        }
                        override func main() {
                            asyncAdd(lhs: lhs, rhs: rhs) { result in
                                self.result = result
                                self.state = .finished
                            }
                        }
                    }
                    """,
                code: """
                    let queue = OperationQueue()
                    let sum = SumOperation(lhs: 1, rhs: 5)
                    queue.addOperation(sum)
                    queue.waitUntilAllOperationsAreFinished()
                    print("sum", sum.result ?? -1)
                    """, expected: .pass),
            Edit(
                name: "array-sum-file-scope",
                declarations: """
                    class ArraySumOperation: Operation {
                        let inputArray: [(Int, Int)]
                        var outputArray = [Int]()
                        init(input: [(Int, Int)]) {
                            inputArray = input
                            super.init()
                        }
                        override func main() {
                            for pair in inputArray {
                                if isCancelled { return }
                                sleep(1)
                                outputArray.append(pair.0 + pair.1)
                            }
                        }
                    }
                    """,
                code: """
                    let queue = OperationQueue()
                    let sumOperation = ArraySumOperation(input: [(1, 2), (3, 4), (5, 6)])
                    queue.addOperation(sumOperation)
                    queue.waitUntilAllOperationsAreFinished()
                    print(sumOperation.outputArray)
                    """, expected: .pass),
            Edit(
                name: "image-provider-names",
                declarations: """
                    class ImageProvider {
                        let queue = OperationQueue()
                        var loaded = [String]()
                        init(names: [String]) {
                            queue.maxConcurrentOperationCount = 2
                            for name in names {
                                queue.addOperation { print("load", name); sleep(1) }
                            }
                        }
                        func wait() { queue.waitUntilAllOperationsAreFinished() }
                    }
                    """,
                code: """
                    let provider = ImageProvider(names: ["one", "two", "three"])
                    provider.wait()
                    """, expected: .pass),
            Edit(
                name: "counter-as-in-2017",
                code: """
                    var counter = 0
                    let queue = OperationQueue()
                    queue.maxConcurrentOperationCount = 1
                    for _ in 1...3 {
                        queue.addOperation { counter += 1; print("counter", counter); usleep(500_000) }
                    }
                    queue.waitUntilAllOperationsAreFinished()
                    print("final", counter)
                    """, expected: .pass),
            Edit(
                name: "callback-captured",
                declarations: """
                    func asyncMultiply(_ a: Int, _ b: Int, on queue: OperationQueue, callback: @escaping (Int) -> ()) {
                        queue.addOperation {
                            sleep(1)
                            callback(a * b)
                        }
                    }
                    """,
                code: """
                    let queue = OperationQueue()
                    asyncMultiply(6, 7, on: queue) { print("product", $0) }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "concurrent-perform-inside-an-operation",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation {
                        DispatchQueue.concurrentPerform(iterations: 3) { index in
                            print("iteration", index)
                            sleep(1)
                        }
                    }
                    queue.waitUntilAllOperationsAreFinished()
                    """,
                expected: .unmodelled(
                    construct: "DispatchQueue.concurrentPerform inside a work", line: "concurrentPerform")),
            Edit(
                name: "work-item-wait",
                code: """
                    let item = DispatchWorkItem { print("work item"); sleep(1) }
                    DispatchQueue.global().async(execute: item)
                    item.wait()
                    print("after the item")
                    """, expected: .pass),
            Edit(
                name: "work-item-perform",
                code: """
                    let item = DispatchWorkItem { print("performed here"); usleep(500_000) }
                    item.perform()
                    """, expected: .pass),
            Edit(
                name: "current-queue-add",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation {
                        print("first")
                        OperationQueue.current?.addOperation { print("added from inside"); sleep(1) }
                        sleep(1)
                    }
                    queue.waitUntilAllOperationsAreFinished()
                    """,
                expected: .unmodelled(
                    construct: "OperationQueue.current inside an operation",
                    line: "OperationQueue.current?.addOperation")),
            Edit(
                name: "wait-inside-operation",
                code: """
                    let queue = OperationQueue()
                    let first = BlockOperation { print("first"); sleep(1) }
                    let second = BlockOperation {
                        first.waitUntilFinished()
                        print("second, after first")
                        sleep(1)
                    }
                    queue.addOperations([first, second], waitUntilFinished: true)
                    """,
                expected: .unmodelled(
                    construct: "waitUntilFinished() inside an operation", line: "first.waitUntilFinished()")),
            Edit(
                name: "barrier-block",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation { print("before"); sleep(1) }
                    queue.addBarrierBlock { print("barrier") }
                    queue.addOperation { print("after"); sleep(1) }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "completion-sleeps",
                code: """
                    let queue = OperationQueue()
                    let operation = BlockOperation { print("work"); sleep(1) }
                    operation.completionBlock = { sleep(1); print("completion finished") }
                    queue.addOperation(operation)
                    queue.waitUntilAllOperationsAreFinished()
                    """,
                expected: .unmodelled(construct: "a completionBlock that sleeps", line: "operation.completionBlock")),
            Edit(
                name: "group-notify",
                code: """
                    let group = DispatchGroup()
                    let queue = OperationQueue()
                    group.enter()
                    queue.addOperation { print("work"); sleep(1); group.leave() }
                    group.notify(queue: .global()) { print("all done") }
                    """, expected: .pass),
            Edit(
                name: "task",
                code: """
                    Task {
                        print("in a task")
                    }
                    sleep(1)
                    """, expected: .pass),
            // A child of a task group that both blocks and suspends is a chain of steps the model
            // does not plan yet (a task's own body that does both is planned as one): named at
            // its `addTask`.
            Edit(
                name: "group-child-blocks-and-suspends",
                code: """
                    Task { // the parent
                        await withTaskGroup(of: Void.self) { group in
                            group.addTask {
                                print("both")
                                sleep(1)
                                try? await Task.sleep(for: .seconds(1))
                            }
                        }
                    }
                    sleep(3)
                    """, expected: .unmodelled(construct: "group.addTask", line: "group.addTask {")),
            // A cancel does not stop a task's `sleep`, and this body never looks at
            // `Task.isCancelled`: the plan cannot say when it stops.
            Edit(
                name: "task-that-blocks-cancelled",
                code: """
                    let task = Task {
                        print("blocking")
                        sleep(2)
                    }
                    usleep(500_000)
                    task.cancel()
                    """, expected: .unmodelled(construct: "Task.cancel()", line: "task.cancel()")),
            Edit(
                name: "task-group",
                code: """
                    Task {
                        await withTaskGroup(of: Void.self) { group in
                            for index in 1...3 { group.addTask { print("child", index) } }
                        }
                    }
                    sleep(1)
                    """, expected: .pass),
            // A task that blocks beside its group is a chain of steps the model does not plan yet.
            Edit(
                name: "task-group-beside-a-sleep",
                code: """
                    Task {
                        sleep(1)
                        await withTaskGroup(of: Void.self) { group in group.addTask(priority: .low) { print("child") } }
                    }
                    sleep(2)
                    """, expected: .unmodelled(construct: "Task", line: "Task {")),
            // An actor's methods run one at a time: two tasks that each call its blocking
            // method take its time twice, which the model does not plan yet.
            Edit(
                name: "actor-serialises-its-callers",
                declarations: """
                    actor Counter {
                        var count = 0
                        func slowIncrement() {
                            sleep(1)
                            count += 1
                        }
                    }

                    """,
                code: """
                    let counter = Counter()
                    let done = DispatchSemaphore(value: 0)
                    for _ in 1...2 {
                        Task {
                            await counter.slowIncrement()
                            done.signal()
                        }
                    }
                    for _ in 1...2 { done.wait() }
                    """, expected: .unmodelled(construct: "an actor", line: "actor Counter")),
            // A discarding task group is not planned yet.
            Edit(
                name: "discarding-task-group",
                code: """
                    Task {
                        await withDiscardingTaskGroup { group in group.addTask { print("discarded child") } }
                    }
                    sleep(1)
                    """, expected: .unmodelled(construct: "a discarding task group", line: "withDiscardingTaskGroup")),
            // A child that throws ends a throwing group's `for try await` and cancels the
            // others: named at the child's `addTask`, where the plan would wait for every child.
            Edit(
                name: "throwing-child-cancels-its-group",
                declarations: "struct DownloadFailed: Error {}",
                code: """
                    Task {
                        try? await withThrowingTaskGroup(of: Int.self) { group in
                            group.addTask { try await Task.sleep(for: .seconds(2)); return 2 }
                            group.addTask { try await Task.sleep(for: .seconds(1)); throw DownloadFailed() }
                            for try await value in group { print("got", value) }
                        }
                    }
                    """, expected: .unmodelled(construct: "a child task that throws", line: "throw DownloadFailed()")),
            // A task that awaits another's value waits for it to end, which no call reports.
            Edit(
                name: "task-awaits-another-tasks-value",
                code: """
                    let producer = Task { () -> Int in
                        try? await Task.sleep(for: .seconds(1))
                        return 42
                    }
                    Task {
                        let value = await producer.value
                        print("got", value)
                        sleep(1)
                    }
                    """, expected: .unmodelled(construct: "task.value", line: "await producer.value")),
            // An `async let` first awaited inside a branch of the task's body, which may run
            // later or never: the text does not tell when the body waits for it.
            Edit(
                name: "async-let-awaited-in-a-branch",
                declarations: """
                    func slowAnswer() -> Int {
                        sleep(1)
                        return 42
                    }
                    """,
                code: """
                    Task {
                        async let answer = slowAnswer()
                        if Bool.random() { print("answer", await answer) }
                    }
                    """, expected: .unmodelled(construct: "async let", line: "async let answer")),
            // A child added inside `for await … in group` starts as the child the loop received
            // ends, which no call reports: named at its `addTask`.
            Edit(
                name: "child-added-inside-for-await",
                code: """
                    Task {
                        await withTaskGroup(of: Int.self) { group in
                            group.addTask { sleep(1); return 1 }
                            var more = 2
                            for await finished in group {
                                print("finished", finished)
                                if more <= 3 {
                                    let next = more
                                    group.addTask { sleep(1); return next }
                                    more += 1
                                }
                            }
                        }
                    }
                    """,
                expected: .unmodelled(construct: "group.addTask", line: "group.addTask { sleep(1); return next }")),
            // Children and tasks Swift starts without the lab (a child with a name, a task that
            // prefers an executor, an immediate task) are named at their line.
            Edit(
                name: "child-added-with-a-name",
                code: """
                    Task {
                        await withTaskGroup(of: Void.self) { group in
                            group.addTask(name: "named") { print("named child"); sleep(1) }
                        }
                    }
                    sleep(2)
                    """, expected: .unmodelled(construct: "group.addTask(name:)", line: "addTask(name:")),
            Edit(
                name: "task-with-an-executor-preference",
                code: """
                    Task(executorPreference: globalConcurrentExecutor) { print("preferring"); sleep(1) }
                    sleep(2)
                    """, expected: .unmodelled(construct: "executorPreference", line: "executorPreference")),
            Edit(
                name: "immediate-task",
                code: """
                    Task.immediate { print("immediate"); try? await Task.sleep(for: .seconds(1)) }
                    sleep(2)
                    """, expected: .unmodelled(construct: "an immediate task", line: "Task.immediate")),
            // Sleeps the lab does not scale (a clock's own, the deprecated unlabelled
            // `Task.sleep`) are named at their line.
            Edit(
                name: "clock-sleep",
                code: """
                    Task {
                        let clock = ContinuousClock()
                        try? await clock.sleep(for: .seconds(1))
                        print("woke")
                    }
                    sleep(2)
                    """, expected: .unmodelled(construct: "a clock's sleep", line: "clock.sleep(for:")),
            Edit(
                name: "unlabelled-task-sleep",
                code: """
                    Task { await Task.sleep(1_000_000_000); print("woke") }
                    sleep(2)
                    """, expected: .unmodelled(construct: "Task.sleep(_:)", line: "Task.sleep(1_000")),
            // A task whose body does not end in the rehearsal (a clock's own sleep, unscaled) is
            // cancelled and named; the one after it is named at once, not waited for, so the two
            // stay within the plan's budget (named, not an error).
            Edit(
                name: "tasks-that-do-not-end-in-the-rehearsal",
                code: """
                    Task { // first
                        try? await ContinuousClock().sleep(for: .seconds(3))
                    }
                    Task { // second
                        try? await ContinuousClock().sleep(for: .seconds(3))
                    }
                    sleep(4)
                    """, expected: .unmodelled(construct: "Task", line: "Task { // first")),
            Edit(
                name: "run-loop",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation { print("work"); sleep(1) }
                    RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.05))
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .unmodelled(construct: "RunLoop", line: "RunLoop.current")),
            Edit(
                name: "thread-of-its-own",
                code: """
                    let thread = Thread { print("on my thread") }
                    thread.start()
                    sleep(1)
                    """, expected: .unmodelled(construct: "Thread", line: "Thread {")),
            Edit(
                name: "detached-thread",
                code: """
                    Thread.detachNewThread { print("detached"); usleep(500_000) }
                    sleep(1)
                    """, expected: .unmodelled(construct: "Thread.detachNewThread", line: "detachNewThread")),
            Edit(
                name: "timer",
                code: """
                    let timer = Timer(timeInterval: 0.1, repeats: false) { _ in print("tick") }
                    RunLoop.current.add(timer, forMode: .default)
                    RunLoop.current.run(until: Date(timeIntervalSinceNow: 0.2))
                    """, expected: .unmodelled(construct: "Timer", line: "Timer(")),
            Edit(
                name: "main-queue-add",
                code: """
                    OperationQueue.main.addOperation { print("on main") }
                    print("added")
                    """,
                expected: .unmodelled(construct: "OperationQueue.main", line: "OperationQueue.main.addOperation")),
            Edit(
                name: "wait-for-the-main-queue",
                code: """
                    OperationQueue.main.addOperation { print("on main") }
                    OperationQueue.main.waitUntilAllOperationsAreFinished()
                    """,
                expected: .unmodelled(
                    construct: "OperationQueue.main.waitUntilAllOperationsAreFinished()",
                    line: "OperationQueue.main.waitUntilAllOperationsAreFinished()")),
            Edit(
                name: "dispatch-main-async",
                code: """
                    DispatchQueue.main.async { print("on the main queue") }
                    print("sent")
                    """, expected: .unmodelled(construct: "DispatchQueue.main.async", line: "DispatchQueue.main.async")),
            Edit(
                name: "semaphore-timeout",
                code: """
                    let semaphore = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async { sleep(1); semaphore.signal() }
                    _ = semaphore.wait(timeout: .now() + 5)
                    """,
                expected: .unmodelled(construct: "DispatchSemaphore.wait(timeout:)", line: "semaphore.wait(timeout:")),
            Edit(
                name: "async-after-work-item",
                code: """
                    let item = DispatchWorkItem { print("late item") }
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.1, execute: item)
                    item.wait()
                    """, expected: .unmodelled(construct: "DispatchQueue.asyncAfter", line: "asyncAfter")),
            Edit(
                name: "task-detached",
                code: """
                    Task.detached { print("detached task") }
                    usleep(500_000)
                    """, expected: .pass),
            Edit(
                name: "serial-queue-sync",
                code: """
                    let serial = DispatchQueue(label: "serial")
                    serial.async { print("first on serial"); sleep(1) }
                    serial.async { print("second on serial"); sleep(1) }
                    serial.sync { print("waited") }
                    """, expected: .pass),
            // Foundation's main queue typed as the code declares it, an OperationQueue.
            Edit(
                name: "main-queue-typed",
                code: """
                    let main: OperationQueue = OperationQueue.main
                    main.addOperation { print("on the typed main queue") }
                    print("added")
                    """, expected: .unmodelled(construct: "OperationQueue.main", line: "OperationQueue.main")),
            // A BlockOperation and an Operation subclass of the code's own, in one [Operation].
            Edit(
                name: "mixed-operation-array",
                code: """
                    final class Greeting: Operation, @unchecked Sendable {
                        override func main() { print("greeting"); sleep(1) }
                    }
                    let queue = OperationQueue()
                    let block = BlockOperation { print("block"); sleep(1) }
                    let greeting = Greeting()
                    greeting.addDependency(block)
                    let operations: [Operation] = [block, greeting]
                    queue.addOperations(operations, waitUntilFinished: true)
                    """, expected: .pass),
            Edit(
                name: "mixed-add-operations",
                code: """
                    final class Farewell: Operation, @unchecked Sendable {
                        override func main() { print("farewell"); sleep(1) }
                    }
                    let queue = OperationQueue()
                    let first: Operation = BlockOperation { print("first"); sleep(1) }
                    queue.addOperations([first, Farewell()], waitUntilFinished: true)
                    """, expected: .pass),
            // The 2017 articles' counter, guarded by a serial queue's sync and nothing else.
            Edit(
                name: "sync-guards-a-counter",
                code: """
                    let counterQueue = DispatchQueue(label: "counter")
                    var counter = 0
                    let queue = OperationQueue()
                    for _ in 1...3 {
                        queue.addOperation {
                            counterQueue.sync { counter += 1 }
                            print("counted")
                            sleep(1)
                        }
                    }
                    queue.waitUntilAllOperationsAreFinished()
                    print("counter", counter)
                    """, expected: .pass),
            // A sync whose block sleeps holds its queue: the other callers wait their turn.
            Edit(
                name: "sync-block-sleeps",
                code: """
                    let serial = DispatchQueue(label: "serial")
                    let queue = OperationQueue()
                    for word in ["one", "two", "three"] {
                        queue.addOperation { serial.sync { print(word); sleep(1) } }
                    }
                    queue.waitUntilAllOperationsAreFinished()
                    """,
                expected: .unmodelled(construct: "DispatchQueue.sync of a block that sleeps", line: "serial.sync")),
            Edit(
                name: "main-queue-sync",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation { DispatchQueue.main.sync { print("on the main thread") } }
                    """, expected: .unmodelled(construct: "DispatchQueue.main.sync", line: "DispatchQueue.main.sync")),
            // Work that never ends: the watchdog stops it, and the verdict names it with its line.
            Edit(
                name: "still-running-at-the-watchdog",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation { print("waits for a signal"); DispatchSemaphore(value: 0).wait() }
                    """,
                expected: .unmodelled(
                    construct: "DispatchSemaphore.wait() inside an operation's work",
                    line: "DispatchSemaphore(value: 0).wait()")),
            // A queue left suspended holds its operation for good: the run does not wait for it.
            Edit(
                name: "left-suspended",
                code: """
                    let queue = OperationQueue()
                    queue.isSuspended = true
                    queue.addOperation { print("never runs"); sleep(1) }
                    sleep(1)
                    """, expected: .pass),
            Edit(
                name: "no-wait-at-the-end",
                code: """
                    let queue = OperationQueue()
                    queue.addOperation { print("still printed"); sleep(1) }
                    """, expected: .pass),
            Edit(
                name: "completion-prints",
                code: """
                    let queue = OperationQueue()
                    let operation = BlockOperation { print("work"); sleep(1) }
                    operation.completionBlock = { print("completion finished") }
                    queue.addOperation(operation)
                    """, expected: .pass),
            Edit(
                name: "three-blocks-one-operation",
                code: """
                    let queue = OperationQueue()
                    let operation = BlockOperation { print("block 1"); sleep(1) }
                    operation.addExecutionBlock { print("block 2"); sleep(1) }
                    queue.addOperation(operation)
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "width-three",
                code: """
                    let queue = OperationQueue()
                    queue.maxConcurrentOperationCount = 3
                    for word in ["a", "b", "c", "d"] { queue.addOperation { print(word); sleep(1) } }
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            Edit(
                name: "suspended-then-resumed",
                code: """
                    let queue = OperationQueue()
                    queue.isSuspended = true
                    queue.addOperation { print("held"); sleep(1) }
                    sleep(1)
                    queue.isSuspended = false
                    queue.waitUntilAllOperationsAreFinished()
                    """, expected: .pass),
            // Dispatch the model does not plan, each named at its line, never judged against a
            // plan that leaves it out.
            Edit(
                name: "delayed-barrier-on-own-queue",
                code: """
                    let queue = DispatchQueue(label: "cache", attributes: .concurrent)
                    let group = DispatchGroup()
                    queue.async(group: group) { print("read 1"); sleep(2) }
                    group.enter()
                    queue.asyncAfter(deadline: .now() + 1, flags: .barrier) {
                        print("delayed write")
                        sleep(1)
                        group.leave()
                    }
                    queue.async(group: group) { print("read 2"); sleep(1) }
                    group.wait()
                    """,
                expected: .unmodelled(construct: "DispatchQueue.asyncAfter(flags: .barrier)", line: "flags: .barrier")),
            Edit(
                name: "group-notify-work-item",
                code: """
                    let group = DispatchGroup()
                    DispatchQueue.global().async(group: group) { print("part"); sleep(1) }
                    let done = DispatchWorkItem { print("notified item"); sleep(1) }
                    group.notify(queue: .global(), work: done)
                    done.wait()
                    """,
                expected: .unmodelled(construct: "DispatchGroup.notify(queue:work:)", line: "work: done")),
            Edit(
                name: "wall-deadline",
                code: """
                    let group = DispatchGroup()
                    group.enter()
                    DispatchQueue.global().asyncAfter(wallDeadline: .now() + 1) { print("wall clock"); group.leave() }
                    group.wait()
                    """,
                expected: .unmodelled(construct: "DispatchQueue.asyncAfter(wallDeadline:)", line: "wallDeadline:")),
            Edit(
                name: "timer-source",
                code: """
                    let group = DispatchGroup()
                    group.enter()
                    let timer = DispatchSource.makeTimerSource(queue: .global())
                    timer.schedule(deadline: .now() + 1)
                    timer.setEventHandler { print("tick"); timer.cancel(); group.leave() }
                    timer.resume()
                    group.wait()
                    """,
                expected: .unmodelled(construct: "DispatchSource.makeTimerSource", line: "makeTimerSource")),
            Edit(
                name: "own-queue-suspended",
                code: """
                    let queue = DispatchQueue(label: "paused")
                    let group = DispatchGroup()
                    queue.suspend()
                    queue.async(group: group) { print("after resume"); sleep(1) }
                    sleep(1)
                    queue.resume()
                    group.wait()
                    """,
                expected: .unmodelled(construct: "DispatchQueue.suspend()", line: "queue.suspend()")),
            Edit(
                name: "own-queue-initially-inactive",
                code: """
                    let queue = DispatchQueue(label: "inactive", attributes: [.concurrent, .initiallyInactive])
                    let group = DispatchGroup()
                    queue.async(group: group) { print("job"); sleep(1) }
                    sleep(1)
                    queue.activate()
                    group.wait()
                    """,
                expected: .unmodelled(construct: "DispatchQueue .initiallyInactive", line: "initiallyInactive")),
            // Each timeout is article seconds, as the sleeps are: the three waits time out at every scale.
            Edit(
                name: "timeouts-follow-the-scale",
                code: """
                    let group = DispatchGroup()
                    DispatchQueue.global().async(group: group) { sleep(3) }
                    print(group.wait(timeout: .now() + 1) == .timedOut ? "group timed out" : "group in time")
                    let item = DispatchWorkItem { sleep(3) }
                    DispatchQueue.global().async(execute: item)
                    print(item.wait(timeout: .now() + 1) == .timedOut ? "item timed out" : "item in time")
                    let semaphore = DispatchSemaphore(value: 0)
                    DispatchQueue.global().async { sleep(3); semaphore.signal() }
                    print(semaphore.wait(timeout: .now() + 1) == .timedOut ? "semaphore timed out" : "semaphore in time")
                    """,
                expected: .unmodelled(construct: "DispatchGroup.wait(timeout:)", line: "group.wait(timeout:")),

        ]

        /// A wait's timeout is article seconds, as `asyncAfter`'s deadline is: at full scale and
        /// at a tenth, each of the three waits times out before its three-second block ends.
        @Test(.timeLimit(.minutes(30)), arguments: [1.0, 0.1])
        func waitTimeoutsFollowTheTimeScale(scale: Double) throws {
            let built = try LearnerCopy.built.get()
            let ran = try PlaygroundEndToEnd.run(
                built.binary, ["timeouts-follow-the-scale", "--time-scale", scale.decimalText, "--format", "json"],
                in: built.binary.deletingLastPathComponent(), timeout: 120
            )
            let experiment = try #require(
                ((try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any])?["experiments"]
                    as? [[String: Any]])?.first, "\(ran.stderr.suffix(2000))")
            let printed = ((experiment["output"] as? [[String: Any]]) ?? []).compactMap { $0["text"] as? String }
            #expect(printed == ["group timed out", "item timed out", "semaphore timed out"], "\(printed)")
        }

        /// The scale the edits run at: a tenth, so the corpus costs a few seconds.
        static let scale = 0.1

        /// The corpus is code a playground takes: every edit compiles against plain Foundation in
        /// Swift 5 mode, as written, but those that sleep a fraction of a second with `sleep(0.5)`,
        /// the lab's own `sleep` in article seconds. In a learner's experiment it gets no warning
        /// that plain Foundation does not give it: none comes from the instrumented declarations.
        @Test(.timeLimit(.minutes(30))) func theEditsCompileAgainstPlainFoundation() throws {
            let built = try LearnerCopy.built.get()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
                "plain-foundation-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let fractionalSleep = #/\bsleep\(\d+\.\d+\)/#
            let plain = Self.edits.filter { !$0.code.contains(fractionalSleep) }
            #expect(plain.count >= 40)
            for edit in plain {
                let file = folder.appendingPathComponent("\(edit.name).swift")
                try ("import Foundation\n" + edit.declarations + "\nfunc edit() {\n" + edit.code + "\n}\n").write(
                    to: file, atomically: true, encoding: .utf8)
                let typeChecked = try PlaygroundEndToEnd.run(
                    PlaygroundEndToEnd.env,
                    ["swiftc", "-typecheck", "-swift-version", "5", "-module-name", "Edit", file.path], in: folder,
                    timeout: 120
                )
                #expect(typeChecked.status == 0, "\(edit.name): \(typeChecked.stderr.suffix(1500))")
                let plainWarnings = CompilerWarning.all(
                    in: typeChecked.stderr, file: file.lastPathComponent,
                    text: try String(contentsOf: file, encoding: .utf8))
                let learnersWarnings = try #require(built.warnings(of: edit.name))
                #expect(
                    learnersWarnings.subtracting(plainWarnings).isEmpty,
                    "\(edit.name): \(learnersWarnings.subtracting(plainWarnings)) only in the learner's module")
            }
        }

        @Test(.timeLimit(.minutes(30))) func everyEditIsPredictedOrNamed() throws {
            let built = try LearnerCopy.built.get()
            let ran = try PlaygroundEndToEnd.run(
                built.binary, Self.edits.map(\.name) + ["--time-scale", Self.scale.decimalText, "--format", "json"],
                in: built.binary.deletingLastPathComponent(), timeout: 300
            )
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any],
                "\(ran.stderr.suffix(2000))")
            let experiments = try #require(document["experiments"] as? [[String: Any]])
            #expect(experiments.count == Self.edits.count)
            for edit in Self.edits {
                let result = try #require(
                    experiments.first { $0["name"] as? String == edit.name }, "\(edit.name) did not run")
                let verdict = result["verdict"] as? String, reason = result["reason"] as? String ?? ""
                switch edit.expected {
                case .pass:
                    #expect(verdict == "pass", "\(edit.name): \(verdict ?? "none"): \(reason)")
                case .unmodelled(let construct, let line):
                    let site = "\(construct) at \(built.site(of: line, in: edit.name) ?? "?")"
                    #expect(verdict == "unmodelled", "\(edit.name): \(verdict ?? "none"): \(reason)")
                    #expect(reason.contains(site), "\(edit.name): \(reason) does not name \(site)")
                }
            }
            // Before the run, an edit the rehearsal already names shows no figure for it.
            let progress = ran.stderr.split(separator: "\n").filter {
                $0.contains("] group-child-blocks-and-suspends · ")
            }
            #expect(progress.count == 1 && progress[0].contains("· unmodelled, no prediction ·"), "\(progress)")
            // The Apple model plans no concurrentPerform inside an operation either: under its
            // profile, which predicts without running, it is named at its line, not left out of a
            // prediction.
            let apple = try PlaygroundEndToEnd.run(
                built.binary,
                [
                    "concurrent-perform-inside-an-operation", "--profile", "apple", "--time-scale",
                    Self.scale.decimalText, "--format",
                    "json",
                ],
                in: built.binary.deletingLastPathComponent(), timeout: 60
            )
            let appleResult = try #require(
                ((try JSONSerialization.jsonObject(with: Data(apple.stdout.utf8)) as? [String: Any])?["experiments"]
                    as? [[String: Any]])?.first, "\(apple.stderr.suffix(2000))")
            let named =
                "DispatchQueue.concurrentPerform inside a work at \(built.site(of: "concurrentPerform", in: "concurrent-perform-inside-an-operation") ?? "?")"
            #expect(
                appleResult["verdict"] as? String == "unmodelled",
                "\(appleResult["verdict"] ?? "none"): \(appleResult["reason"] ?? "")")
            #expect(
                (appleResult["reason"] as? String ?? "").contains(named),
                "\(appleResult["reason"] ?? "") does not name \(named)")
            // Nor is the prediction that leaves it out shown: no timeline, no total.
            let appleText = try PlaygroundEndToEnd.run(
                built.binary,
                [
                    "concurrent-perform-inside-an-operation", "--profile", "apple", "--time-scale",
                    Self.scale.decimalText,
                ],
                in: built.binary.deletingLastPathComponent(), timeout: 60
            ).stdout
            #expect(
                !appleText.contains("Timeline, predicted")
                    && appleText.contains("none: the plan leaves out what the code does"), "\(appleText)")
            let stopped =
                experiments.first { $0["name"] as? String == "still-running-at-the-watchdog" }?["reason"] as? String
                ?? ""
            let waiting =
                built.site(of: "DispatchSemaphore(value: 0).wait()", in: "still-running-at-the-watchdog") ?? "?"
            #expect(stopped.contains("still running: 'waits for a signal' at \(waiting)"), "\(stopped)")
            // Everything a learner sees stays: the unmodelled ones ran, and their lines printed.
            let printed = experiments.flatMap { ($0["output"] as? [[String: Any]]) ?? [] }.compactMap {
                $0["text"] as? String
            }
            #expect(printed.contains("on my queue") && printed.contains("two steps"))
            // What runs after the code returned is shown too: the queue's work it did not wait
            // for, a completion block, a group's notify, the main queue's work.
            for line in [
                "still printed", "completion finished", "all done", "on main", "on the main queue", "barrier",
                "late item",
            ] {
                #expect(printed.contains(line), "'\(line)' was not shown")
            }
        }
    }
}

/// The kept copy of the package (``TimedRuns/PlaygroundEndToEnd``) with every learner
/// experiment the tests run written into its Playground folder (the hostile ones and the
/// corpus), built once for all of them: one incremental build of the Experiments module, not one
/// per suite.
enum LearnerCopy {
    /// The copy's binary, each experiment's file name and text, and what its build printed.
    struct Built {
        var binary: URL
        var texts: [String: (file: String, text: String)]
        var buildOutput: String

        /// The warnings the build gave experiment `name`'s file.
        func warnings(of name: String) -> Set<CompilerWarning>? {
            texts[name].map { CompilerWarning.all(in: buildOutput, file: $0.file, text: $0.text) }
        }

        /// `File.swift:LINE` of the last line of experiment `name`'s file that holds `text`.
        func site(of text: String, in name: String) -> String? {
            guard let (file, contents) = texts[name] else { return nil }
            let lines = contents.components(separatedBy: "\n")
            return lines.lastIndex { $0.contains(text) }.map { "\(file):\($0 + 1)" }
        }
    }

    static let built: Result<Built, any Error> = Result { try build() }

    /// Every experiment's name, what its file declares before it, and the body of its code's
    /// closure, which gets `context`.
    static var experiments: [(name: String, declarations: String, body: String)] {
        TimedRuns.HostileCode.code.map { ($0.name, "", $0.body) }
            + (TimedRuns.LearnerCorpus.edits
            + (TimedRuns.AsynchronousCorpus.edits + TimedRuns.DispatchCorpus.edits + TimedRuns.ConcurrencyCorpus.edits)
            .map(\.edit)).map {
                ($0.name, $0.declarations, $0.code)
            }
    }

    static func build() throws -> Built {
        typealias EndToEnd = TimedRuns.PlaygroundEndToEnd
        let lock = try EndToEnd.lockTheCopy()
        defer { close(lock) }
        let copy = try EndToEnd.copyOfThePackage()
        var texts: [String: (file: String, text: String)] = [:]
        for (name, declarations, body) in experiments {
            let made = try PlaygroundStarter.make(name, in: copy, registry: articleExperiments)
            let file = copy.appendingPathComponent(made.file)
            let starter = try String(contentsOf: file, encoding: .utf8)
            var head = try #require(starter.components(separatedBy: ") { _ in\n").first)
            if !declarations.isEmpty, let experiment = head.range(of: "\n// Your own experiment") {
                head.insert(contentsOf: "\n" + declarations + "\n", at: experiment.lowerBound)
            }
            let indented = body.split(separator: "\n", omittingEmptySubsequences: false).map {
                $0.isEmpty ? "" : "    " + $0
            }
            let text = head + ") { context in\n" + indented.joined(separator: "\n") + "\n}\n"
            try text.write(to: file, atomically: false, encoding: .utf8)
            texts[name] = (file.lastPathComponent, text)
        }
        let build = try EndToEnd.run(
            EndToEnd.env, ["swift", "build", "--product", "run-experiments"], in: copy, timeout: 1200)
        guard build.status == 0 else {
            throw CocoaError(
                .executableLoad,
                userInfo: [NSLocalizedDescriptionKey: String((build.stdout + build.stderr).suffix(2000))])
        }
        return Built(
            binary: copy.appendingPathComponent(".build/debug/run-experiments"), texts: texts,
            buildOutput: build.stdout + build.stderr)
    }
}

/// A compiler's warning, as the line of code it is about and what it says: the same warning in
/// two files that hold the code at other lines.
struct CompilerWarning: Hashable, CustomStringConvertible {
    var code: String
    var message: String

    var description: String { "'\(code)': \(message)" }

    /// The warnings `output` gives the file named `file` (`/…/file:LINE:COLUMN: warning: …`), whose text is `text`.
    static func all(in output: String, file: String, text: String) -> Set<CompilerWarning> {
        let lines = text.components(separatedBy: "\n")
        let warning = #/^(?:.*/)?(?<file>[^/:]+\.swift):(?<line>\d+):\d+: warning: (?<message>.*)$/#
        return Set(
            output.components(separatedBy: "\n").compactMap { printed in
                guard let match = printed.wholeMatch(of: warning), match.file == file, let line = Int(match.line),
                    lines.indices.contains(line - 1)
                else { return nil }
                return CompilerWarning(
                    code: lines[line - 1].trimmingCharacters(in: .whitespaces), message: String(match.message))
            })
    }
}
