import Foundation
import TestSupport
import Testing

/// The articles' asynchronous operation as a learner pastes it: article 000's `AsyncOperation`
/// (its `State` enum, the notifications in `willSet`/`didSet`, a `start()` that calls `main()`
/// and then sets `.executing`), finishing from the work its `main()` hands off. Each edit is
/// predicted, and its run holds to the prediction at full scale and at a quarter: the
/// operation is executing from its start until that work announces its finish.
extension TimedRuns {
    @Suite struct AsynchronousCorpus {
        struct Edit {
            var edit: LearnerCorpus.Edit
            /// The predicted total, in article seconds (the linux model's nominal timeline).
            var articleSeconds: Double
            /// Each planned operation's predicted end, in article seconds.
            var ends: [String: Double]
            /// For an operation that never finishes: its row's label, and text of the line that
            /// handed off the work that should have finished it, which the verdict names.
            var neverFinishes: (label: String, line: String)? = nil
            /// The timers the code sets (`asyncAfter`), in article seconds: each is a timeline row
            /// `timer n s` of the run that lasts n times the time scale.
            var timers: [Double] = []
        }

        /// Article 000's AsyncOperation, as written, under the name `name`: each edit's file
        /// declares its own, and the files share one module.
        static func asyncOperation(_ name: String) -> String {
            """
            class \(name): Operation {
                enum State: String {
                    case ready, executing, finished
                    fileprivate var keyPath: String { return "is" + rawValue.capitalized }
                }
                var state = State.ready {
                    willSet {
                        willChangeValue(forKey: newValue.keyPath)
                        willChangeValue(forKey: state.keyPath)
                    }
                    didSet {
                        didChangeValue(forKey: oldValue.keyPath)
                        didChangeValue(forKey: state.keyPath)
                    }
                }
                override var isReady: Bool { return super.isReady && state == .ready }
                override var isExecuting: Bool { return state == .executing }
                override var isFinished: Bool { return state == .finished }
                override var isAsynchronous: Bool { return true }
                override func start() {
                    if isCancelled {
                        state = .finished
                        return
                    }
                    main()
                    state = .executing
                }
                override func cancel() {
                    super.cancel()
                    state = .finished
                }
            }
            """
        }

        static let edits: [Edit] = [
            // The article's shape: the work handed to a global queue sets .finished; the
            // dependent starts when it does, not when main() returns.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-operation-global-async",
                    declarations: asyncOperation("DownloadBase") + """

                        class DownloadOperation: DownloadBase {
                            override func main() {
                                DispatchQueue.global().async {
                                    print("downloading")
                                    sleep(2)
                                    self.state = .finished
                                }
                            }
                        }
                        """,
                    code: """
                        let queue = OperationQueue()
                        let download = DownloadOperation()
                        let show = BlockOperation { print("show"); sleep(1) }
                        show.addDependency(download)
                        queue.addOperations([download, show], waitUntilFinished: false)
                        queue.waitUntilAllOperationsAreFinished()
                        """, expected: .pass), articleSeconds: 3, ends: ["downloading": 2, "show": 3]),
            // A timer finishes it: no thread is held while it waits.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-operation-after-a-delay",
                    declarations: asyncOperation("DelayBase") + """

                        class DelayOperation: DelayBase {
                            override func main() {
                                DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                                    print("delay over")
                                    self.state = .finished
                                }
                            }
                        }
                        """,
                    code: """
                        let queue = OperationQueue()
                        let delay = DelayOperation()
                        let after = BlockOperation { print("after the delay"); sleep(1) }
                        after.addDependency(delay)
                        queue.addOperations([delay, after], waitUntilFinished: false)
                        queue.waitUntilAllOperationsAreFinished()
                        """, expected: .pass), articleSeconds: 3, ends: ["delay over": 2, "after the delay": 3]),
            // A completion handler run by an operation of another queue finishes each fetch (the
            // playground's SlowSum calls back so): the two fetches block two pool threads at once.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "completion-handler-finishes",
                    declarations: asyncOperation("FetchBase") + """

                        class Fetcher {
                            let network = OperationQueue()
                            func fetch(_ id: Int, completion: @escaping (String) -> ()) {
                                network.addOperation {
                                    sleep(1)
                                    completion("item \\(id)")
                                }
                            }
                        }

                        class FetchOperation: FetchBase {
                            let fetcher: Fetcher
                            let id: Int
                            init(_ id: Int, from fetcher: Fetcher) {
                                (self.id, self.fetcher) = (id, fetcher)
                                super.init()
                            }
                            var item: String?
                            override func main() {
                                fetcher.fetch(id) { item in
                                    print("fetched", item)
                                    self.item = item
                                    self.state = .finished
                                }
                            }
                        }
                        """,
                    code: """
                        let fetcher = Fetcher()
                        let queue = OperationQueue()
                        let first = FetchOperation(1, from: fetcher)
                        first.name = "fetch 1"
                        let second = FetchOperation(2, from: fetcher)
                        second.name = "fetch 2"
                        queue.addOperations([first, second], waitUntilFinished: true)
                        print(first.item ?? "none", second.item ?? "none")
                        """, expected: .pass), articleSeconds: 1, ends: ["fetch 1": 1, "fetch 2": 1]),
            // The finish forgotten: the run hangs, as predicted, and is stopped soon after.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-operation-never-finishes",
                    declarations: asyncOperation("ForgetfulBase") + """

                        class ForgetfulOperation: ForgetfulBase {
                            var saved = false
                            override func main() {
                                DispatchQueue.global().async {
                                    print("saved, not finished")
                                    self.saved = true
                                }
                            }
                        }
                        """,
                    code: """
                        let queue = OperationQueue()
                        let first = BlockOperation { print("first"); sleep(1) }
                        let forgetful = ForgetfulOperation()
                        forgetful.addDependency(first)
                        let last = BlockOperation { print("never starts") }
                        last.addDependency(forgetful)
                        queue.addOperations([first, forgetful, last], waitUntilFinished: false)
                        queue.waitUntilAllOperationsAreFinished()
                        """, expected: .pass), articleSeconds: 1, ends: ["first": 1],
                neverFinishes: ("saved, not finished", "DispatchQueue.global().async")),
        ]

        @Test(.timeLimit(.minutes(30)), arguments: [1.0, 0.25])
        func everyEditPassesAgainstItsPrediction(scale: Double) throws {
            try Self.holdToTheirPredictions(Self.edits, scale: scale)
        }

        /// Runs `edits` in the learner's copy at `scale` and checks each one: a pass, its
        /// predicted total and operations' ends (the same under the Apple profile), its hang
        /// named where it never finishes, and each of its timers as long as it asks, scaled.
        static func holdToTheirPredictions(_ edits: [Edit], scale: Double) throws {
            let built = try LearnerCopy.built.get()
            let ran = try PlaygroundEndToEnd.run(
                built.binary, edits.map(\.edit.name) + ["--time-scale", scale.decimalText, "--format", "json"],
                in: built.binary.deletingLastPathComponent(), timeout: 300
            )
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(ran.stdout.utf8)) as? [String: Any],
                "\(ran.stderr.suffix(2000))")
            let experiments = try #require(document["experiments"] as? [[String: Any]])
            for edit in edits {
                let name = edit.edit.name
                let result = try #require(experiments.first { $0["name"] as? String == name }, "\(name) did not run")
                #expect(
                    result["verdict"] as? String == "pass",
                    "\(name) at \(scale): \(result["verdict"] ?? "none"): \(result["reason"] ?? "")")
                let expected = try #require(result["expected"] as? [String: Any], "\(name): no prediction")
                let seconds = try #require(expected["seconds"] as? Double)
                #expect(
                    toTheMillisecond(seconds) == toTheMillisecond(edit.articleSeconds * scale),
                    "\(name) at \(scale): predicted \(seconds) s")
                let operations = expected["operations"] as? [[String: Any]] ?? []
                for (label, end) in edit.ends {
                    let planned = operations.first { $0["label"] as? String == label }
                    #expect(
                        (planned?["endSeconds"] as? Double).map(toTheMillisecond) == toTheMillisecond(end * scale),
                        "\(name) at \(scale): '\(label)' \(planned ?? [:])")
                }
                if let (label, line) = edit.neverFinishes {
                    let named = "still running: '\(label)' at \(built.site(of: line, in: name) ?? "?")"
                    let checks = (result["checks"] as? [[String: Any]] ?? []).compactMap {
                        $0["description"] as? String
                    }
                    #expect(
                        checks.contains { $0.contains("the child hung, as its plan predicts (\(named))") },
                        "\(name) at \(scale): \(checks)")
                }
                // A timer fires no earlier than asked, and late by a timer's slack at most.
                let rows = result["operations"] as? [[String: Any]] ?? []
                for seconds in edit.timers {
                    let row = rows.first { $0["label"] as? String == String(format: "timer %.2f s", seconds) }
                    let lasted = (row?["endSeconds"] as? Double).flatMap { end in
                        (row?["startSeconds"] as? Double).map { end - $0 }
                    }
                    let asked = seconds * scale
                    #expect(
                        lasted.map { $0 >= asked - 0.002 && $0 <= asked * 1.05 + 0.05 } == true,
                        "\(name) at \(scale): the \(seconds.decimalText) s timer lasted \(lasted ?? -1) s, not \(asked)"
                    )
                }
                // Apple's pool differs only in its width, which two operations at once never reach.
                let apple = try #require(result["apple"] as? [String: Any], "\(name): no Apple prediction")
                #expect(
                    (apple["seconds"] as? Double).map(toTheMillisecond)
                        == toTheMillisecond(edit.articleSeconds * scale), "\(name) at \(scale): Apple \(apple)")
            }
        }
    }
}
