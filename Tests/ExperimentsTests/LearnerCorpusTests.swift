import Foundation
import Testing
import ExperimentModel
import ExperimentKit
import ExperimentRunner
import ExperimentReports
import ReportFiles
import ExperimentCLI
import Experiments
import TestSupport

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
            var code: String
            var expected: Expected
        }

        static let edits: [Edit] = [
            Edit(name: "print-any-items", code: """
                let queue = OperationQueue()
                queue.addOperation { print(42); sleep(1) }
                queue.addOperation { print("sum", 3 + 4); sleep(1) }
                queue.addOperation { print([1, 2, 3]); debugPrint("x"); sleep(1) }
                queue.waitUntilAllOperationsAreFinished()
                """, expected: .pass),
            Edit(name: "foundation-sleeps", code: """
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
            Edit(name: "array-sum-cancelled", code: """
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
            Edit(name: "progress-closure", code: """
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
            Edit(name: "global-async-group", code: """
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
            Edit(name: "completion-then-sleep", code: """
                let queue = OperationQueue()
                let operation = BlockOperation { print("work"); sleep(1) }
                operation.completionBlock = { print("done") }
                queue.addOperation(operation)
                queue.waitUntilAllOperationsAreFinished()
                sleep(1)
                """, expected: .pass),
            Edit(name: "serial-underlying-queue", code: """
                let serial = DispatchQueue(label: "serial")
                let queue = OperationQueue()
                queue.maxConcurrentOperationCount = 2
                queue.underlyingQueue = serial
                queue.addOperation { print("first"); sleep(1) }
                queue.addOperation { print("second"); sleep(1) }
                queue.waitUntilAllOperationsAreFinished()
                """, expected: .pass),
            Edit(name: "add-operations-waiting", code: """
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
            Edit(name: "semaphore-at-the-end", code: """
                let done = DispatchSemaphore(value: 0)
                let queue = OperationQueue()
                queue.addOperation { print("working"); sleep(1); done.signal() }
                done.wait()
                queue.addOperation { print("after the signal"); sleep(1) }
                queue.waitUntilAllOperationsAreFinished()
                """, expected: .pass),
            Edit(name: "chain-across-queues", code: """
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
            Edit(name: "qos-on-serial-queue", code: """
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
            Edit(name: "started-by-hand", code: """
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
            Edit(name: "dependency-passes-data", code: """
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
            Edit(name: "loop-until-cancelled", code: """
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
            Edit(name: "group-left-in-main", code: """
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
            Edit(name: "signal-partway", code: """
                let halfway = DispatchSemaphore(value: 0)
                let queue = OperationQueue()
                queue.addOperation { print("two steps"); sleep(1); halfway.signal(); sleep(1) }
                halfway.wait()
                queue.waitUntilAllOperationsAreFinished()
                """, expected: .unmodelled(construct: "DispatchSemaphore.wait()", line: "halfway.wait()")),
            Edit(name: "queue-of-its-own", code: """
                let mine = DispatchQueue(label: "mine")
                let group = DispatchGroup()
                mine.async(group: group) { print("on my queue"); sleep(1) }
                group.wait()
                """, expected: .unmodelled(construct: "async on DispatchQueue 'mine'", line: "mine.async")),
            Edit(name: "cancel-after-a-wait", code: """
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
            Edit(name: "after-a-delay", code: """
                let group = DispatchGroup()
                group.enter()
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.1) { print("late"); group.leave() }
                group.wait()
                """, expected: .unmodelled(construct: "DispatchQueue.asyncAfter", line: "asyncAfter")),
        ]

        /// The scale the edits run at: a tenth, so the corpus costs a few seconds.
        static let scale = 0.1

        @Test(.timeLimit(.minutes(30))) func everyEditIsPredictedOrNamed() throws {
            let built = try LearnerCopy.built.get()
            let ran = try PlaygroundEndToEnd.run(
                built.binary, Self.edits.map(\.name) + ["--time-scale", Self.scale.decimalText, "--format", "json"],
                in: built.binary.deletingLastPathComponent(), timeout: 300
            )
            let document = try #require(try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any], "\(ran.stderr.suffix(2000))")
            let experiments = try #require(document["experiments"] as? [[String: Any]])
            #expect(experiments.count == Self.edits.count)
            for edit in Self.edits {
                let result = try #require(experiments.first { $0["name"] as? String == edit.name }, "\(edit.name) did not run")
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
            // Everything a learner sees stays: the unmodelled ones ran, and their lines printed.
            let printed = experiments.flatMap { ($0["output"] as? [[String: Any]]) ?? [] }.compactMap { $0["text"] as? String }
            #expect(printed.contains("on my queue") && printed.contains("two steps"))
        }
    }
}

/// The kept copy of the package (``TimedRuns/PlaygroundEndToEnd``) with every learner
/// experiment the tests run written into its Playground folder (the hostile ones and the
/// corpus), built once for all of them: one incremental build of the Experiments module, not one
/// per suite.
enum LearnerCopy {
    /// The copy's binary, and each experiment's file name and text.
    struct Built {
        var binary: URL
        var texts: [String: (file: String, text: String)]

        /// `File.swift:LINE` of the last line of experiment `name`'s file that holds `text`.
        func site(of text: String, in name: String) -> String? {
            guard let (file, contents) = texts[name] else { return nil }
            let lines = contents.components(separatedBy: "\n")
            return lines.lastIndex { $0.contains(text) }.map { "\(file):\($0 + 1)" }
        }
    }

    static let built: Result<Built, any Error> = Result { try build() }

    /// Every experiment's name and the body of its `code:` closure, which gets `context`.
    static var experiments: [(name: String, body: String)] {
        TimedRuns.HostileCode.code + TimedRuns.LearnerCorpus.edits.map { ($0.name, $0.code) }
    }

    static func build() throws -> Built {
        typealias EndToEnd = TimedRuns.PlaygroundEndToEnd
        let lock = try EndToEnd.lockTheCopy()
        defer { close(lock) }
        let copy = try EndToEnd.copyOfThePackage()
        var texts: [String: (file: String, text: String)] = [:]
        for (name, body) in experiments {
            let made = try PlaygroundStarter.make(name, in: copy, registry: articleExperiments)
            let file = copy.appendingPathComponent(made.file)
            let starter = try String(contentsOf: file, encoding: .utf8)
            let head = try #require(starter.components(separatedBy: "    code: { _ in\n").first)
            let indented = body.split(separator: "\n", omittingEmptySubsequences: false).map { $0.isEmpty ? "" : "        " + $0 }
            let text = head + "    code: { context in\n" + indented.joined(separator: "\n") + "\n    }\n)\n"
            try text.write(to: file, atomically: false, encoding: .utf8)
            texts[name] = (file.lastPathComponent, text)
        }
        let build = try EndToEnd.run(EndToEnd.env, ["swift", "build", "--product", "run-experiments", "--disable-index-store"], in: copy, timeout: 1200)
        guard build.status == 0 else { throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: String((build.stdout + build.stderr).suffix(2000))]) }
        return Built(binary: copy.appendingPathComponent(".build/debug/run-experiments"), texts: texts)
    }
}
