import Foundation
import TestSupport
import Testing

@testable import ExperimentKit
@testable import ExperimentModel
@testable import ExperimentResults
@testable import ExperimentRunner
@testable import Experiments

// The instrumented types, named apart from Foundation's (this file sees both).
private typealias LabQueue = Experiments.OperationQueue
private typealias LabBlockOperation = Experiments.BlockOperation

/// Plans read from the real objects an experiment's code builds, checked against the model's
/// prediction: nothing here runs timed work.
@Suite(.serialized, .oneAtATime) struct LabPlanTests: TwoCPUProfiles {

    func starts(_ workload: Workload, _ profile: PlatformProfile = linux) -> [Double] {
        Scheduler.predict(workload, profile: profile, timeScale: 1).nominal.startsToTheMillisecond
    }

    func plan(_ experiment: Experiment, _ settings: [String: String] = [:]) throws -> Workload {
        experiment.workload(try experiment.parameters(overriding: settings))
    }

    @Test(arguments: [
        (1, [0.0, 2, 4, 6, 8, 10, 12], 14.0), (2, [0, 0, 2, 2, 4, 4, 6], 8), (3, [0, 0, 0, 2, 2, 2, 4], 6),
    ])
    func thePrinterQueuesWidthIsReadFromTheQueue(width: Int, expectedStarts: [Double], total: Double) throws {
        let workload = try plan(printerQueueMaxTwo, ["width": String(width)])
        #expect(workload.queues.count == 1)
        #expect(workload.queues[0].maxConcurrentOperationCount == width)
        #expect(workload.queues[0].startsSuspended == false)
        // Seven closures of sleep(2), named by what they print, in the order they were added.
        #expect(workload.operations.map(\.label) == PrinterQueue.words)
        #expect(
            workload.operations.allSatisfy {
                $0.articleSeconds == 2 && $0.steps == 1 && $0.executor == .queue(0) && $0.work == .blocking
            })
        // Width 3 on 2 CPUs: the third worker comes at once (on demand up to the CPU count, then
        // the queue's width is the limit only while the pool has the workers: a tick adds it).
        let prediction = Scheduler.predict(workload, profile: Self.apple, timeScale: 1)
        #expect(starts(workload, Self.apple) == expectedStarts)
        #expect(abs(prediction.total - total) < 1e-9)
    }

    /// The articles' experiments are written as a learner writes: the model reads all of each,
    /// so none is ever judged unmodelled, at its defaults or at either end of every parameter.
    @Test func noBuiltInExperimentIsUnmodelled() throws {
        for experiment in articleExperiments {
            #expect(try plan(experiment).unmodelled == [], "\(experiment.name)")
            for spec in experiment.parameters {
                let ends: [String] =
                    switch spec.kind {
                    case .seconds(let range): [range.lowerBound.decimalText, range.upperBound.decimalText]
                    case .count(let range): [String(range.lowerBound), String(range.upperBound)]
                    case .width: ["default", "1"]
                    case .serviceClass: ServiceClass.allCases.map(\.rawValue)
                    }
                for value in ends {
                    #expect(
                        try plan(experiment, [spec.key: value]).unmodelled == [],
                        "\(experiment.name) \(spec.key)=\(value)")
                }
            }
        }
    }

    @Test func theDefaultWidthIsReadAsNoLimit() throws {
        let workload = try plan(concurrentPrinterQueue)
        #expect(workload.queues[0].maxConcurrentOperationCount == nil)
        #expect(starts(workload) == [0, 0, 0.97, 1.97, 2, 2, 2.97])
    }

    @Test func aChangedQoSIsReadFromTheOperation() throws {
        // The article's .userInitiated jumps the queue; .background waits for every word.
        let userInitiated = try plan(qosOrdering)
        #expect(userInitiated.operations.last?.serviceClass == .userInitiated)
        #expect(starts(userInitiated) == [0, 0, 2, 4, 4, 6, 6, 2])
        let background = try plan(qosOrdering, ["qos": "background"])
        #expect(background.operations.last?.serviceClass == .background)
        #expect(starts(background) == [0, 0, 2, 2, 4, 4, 6, 6])
        // The closures took the queue's own QoS, as Foundation gives it to them.
        #expect(background.operations.dropLast().allSatisfy { $0.serviceClass == .default })
    }

    @Test func anAddedDependencyIsReadFromTheOperations() {
        let workload = Lab.rehearse(
            { _ in
                let printerQueue = LabQueue()
                printerQueue.maxConcurrentOperationCount = 2
                let first = LabBlockOperation {
                    Experiments.print("first"); Experiments.sleep(2)
                }
                let second = LabBlockOperation {
                    Experiments.print("second"); Experiments.sleep(1)
                }
                let third = LabBlockOperation {
                    Experiments.print("third"); Experiments.sleep(1)
                }
                third.addDependency(first)
                printerQueue.addOperations([first, second, third], waitUntilFinished: false)
                printerQueue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]))
        #expect(workload.operations.map(\.label) == ["first", "second", "third"])
        #expect(workload.operations.map(\.dependencies) == [[], [], [0]])
        #expect(workload.operations.map(\.articleSeconds) == [2, 1, 1])
        // Without the dependency the third would take the slot the second frees at 1 s.
        #expect(starts(workload) == [0, 0, 2])
    }

    /// The standard library's and Foundation's other ways to print and to wait, as the articles
    /// write them, are read as `print(String)` and `sleep` are: the line printed names the row,
    /// and every wait counts in article seconds.
    @Test func printsOfAnyItemsAndEverySleepAreRead() {
        let workload = Lab.rehearse(
            { _ in
                let queue = LabQueue()
                queue.addOperation {
                    Experiments.print("sum", 3 + 4); instrumentedUsleep(250_000); instrumentedSleep(1)
                }
                queue.addOperation {
                    Experiments.print([1, 2], terminator: ""); Experiments.sleep(0.5)
                }
                queue.addOperation {
                    Experiments.debugPrint("quoted"); Experiments.sleep(2)
                }
                queue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]))
        #expect(workload.operations.map(\.label) == ["sum 7", "[1, 2]", "\"quoted\""])
        #expect(workload.operations.map(\.articleSeconds) == [1.25, 0.5, 2])
    }

    @Test func aDependencyCycleIsReadWhateverTheOrderOfAdding() throws {
        let workload = try plan(dependencyCycle)
        #expect(workload.operations.map(\.label) == [Cycle.a, Cycle.b, Cycle.c])
        #expect(workload.operations.map(\.dependencies) == [[1], [0], []])
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(prediction.nominal.spans.map { $0 == nil } == [true, true, false])
    }

    /// `OperationQueue.main` is the lab's own in every session: in an article's code the plan
    /// holds its operations (nothing runs the main queue while that code has the main thread) and
    /// a wait for it is a wait for them; in a learner's code, whose run goes on to run them, both
    /// are named as left out.
    @Test func theMainQueueIsHeldInAnArticlesPlanAndNamedInALearners() {
        let code: (RunContext) -> Void = { _ in
            LabQueue.main.addOperation {
                Experiments.print("on main"); Experiments.sleep(1)
            }
            LabQueue.main.waitUntilAllOperationsAreFinished()
        }
        let article = Lab.rehearse(code, parameters: Parameters([]))
        #expect(article.unmodelled.isEmpty)
        #expect(article.queues.map(\.maxConcurrentOperationCount) == [1])
        #expect(article.queues.map(\.startsSuspended) == [true])
        #expect(Scheduler.predict(article, profile: Self.linux, timeScale: 1).nominal.spans == [nil])
        let learners = Lab.rehearse(code, parameters: Parameters([]), isLearners: true)
        #expect(
            learners.unmodelled.map(\.construct) == [
                "OperationQueue.main", "OperationQueue.main.waitUntilAllOperationsAreFinished()",
            ])
        #expect(learners.queues.map(\.startsSuspended) == [false])
    }

    /// The Experiments module's `DispatchQueue.concurrentPerform`, which this file, seeing
    /// Dispatch's too, cannot name apart from it.
    func concurrentPerform(_ iterations: Int, _ work: (Int) -> Void) {
        Lab.current?.performingConcurrently(iterations: iterations, work) {
            DispatchQueue.dispatchConcurrentPerform(iterations: iterations, execute: $0)
        }
    }

    /// A learner's `concurrentPerform`: each iteration is called once, in index order, and
    /// planned as an iteration of the call; the thread goes on after the last. Inside an
    /// operation's work it is named.
    @Test func concurrentPerformIsPlannedIterationByIterationOnTheExperimentsThread() {
        let workload = Lab.rehearse(
            { _ in
                concurrentPerform(3) { index in
                    Experiments.print("iteration \(index)"); Experiments.sleep(index + 1)
                }
                let queue = LabQueue()
                queue.addOperation {
                    Experiments.print("after"); Experiments.sleep(1)
                }
                queue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]), isLearners: true)
        #expect(workload.unmodelled.isEmpty)
        #expect(workload.operations.map(\.label) == ["iteration 0", "iteration 1", "iteration 2", "after"])
        #expect(workload.operations.prefix(3).map(\.articleSeconds) == [1, 2, 3])
        #expect(workload.operations.prefix(3).allSatisfy { $0.executor == .concurrentPerformIteration(firstAt: 0) })
        #expect(workload.operations[3].dependencies == [0, 1, 2])
        // The caller takes 1 s then 3 s, the worker 2 s: the add comes at 4 s.
        #expect(starts(workload) == [0, 0, 1, 4])
        let inside = Lab.rehearse(
            { _ in
                let queue = LabQueue()
                queue.addOperation {
                    concurrentPerform(2) { _ in Experiments.sleep(1) }
                }
                queue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]), isLearners: true)
        #expect(inside.unmodelled.map(\.construct) == ["DispatchQueue.concurrentPerform inside a work"])
    }

    /// `Task.isCancelled` (read as the instrumented one reads it) in an operation's work is
    /// Swift's own answer, which no cancel of the operation sets: a loop on it is named, and
    /// planned as one step, not planned to stop at the queue's cancel.
    @Test func aLoopOnTaskIsCancelledInAnOperationIsNamed() {
        let workload = Lab.rehearse(
            { _ in
                let queue = LabQueue()
                queue.addOperation {
                    Experiments.print("looping")
                    while !Lab.lookingAtTaskCancellation({ false }) { Experiments.sleep(1) }
                }
                Experiments.sleep(1)
                queue.cancelAllOperations()
            }, parameters: Parameters([]), isLearners: true)
        #expect(workload.unmodelled.map(\.construct) == ["Task.isCancelled"])
        #expect(workload.operations.map(\.steps) == [1])
        #expect(workload.operations.map(\.articleSeconds) == [1])
    }

    @Test func aSuspendedQueueIsReadAsStartingSuspended() {
        let workload = Lab.rehearse(
            { context in
                let queue = LabQueue()
                queue.isSuspended = true
                queue.addOperation {
                    Experiments.print("held"); Experiments.sleep(1)
                }
                context.sleep(untilArticleSeconds: 1.5)
                queue.isSuspended = false
                queue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]))
        #expect(workload.queues[0].startsSuspended)
        #expect(workload.suspensions == [PlannedSuspension(atArticleSeconds: 1.5, queue: 0, isSuspended: false)])
        #expect(starts(workload) == [1.5])
    }

    @Test func suspendingAndCancellingAreReadAtTheInstantTheyAreMade() throws {
        let suspended = try plan(suspendedQueue)
        #expect(suspended.suspensions.map(\.atArticleSeconds) == [0.5, 2.5])
        #expect(suspended.suspensions.map(\.isSuspended) == [true, false])
        #expect(starts(suspended) == [0, 0, 2.5, 2.5])

        let cancelled = try plan(cancellationSemantics)
        #expect(cancelled.queues.map(\.maxConcurrentOperationCount) == [nil, 1])
        #expect(
            cancelled.cancellations == [
                PlannedCancellation(atArticleSeconds: 0, target: .operation(0)),
                PlannedCancellation(atArticleSeconds: 0.5, target: .operation(1)),
                PlannedCancellation(atArticleSeconds: 0.5, target: .operation(2)),
                PlannedCancellation(atArticleSeconds: 0.5, target: .queue(1)),
            ])
        #expect(cancelled.operations[2].articleSeconds == 0.1)
    }

    @Test func aStartedBlockOperationIsReadBlockByBlockWithItsCompletion() throws {
        let workload = try plan(blockOperationMultiPrinter)
        #expect(workload.operations.map(\.label) == PrinterQueue.words + [MultiPrinter.completion])
        #expect(workload.operations.dropLast().allSatisfy { $0.executor == .blockOperationBlock })
        #expect(workload.operations.last?.executor == .globalQueue(.default))
        #expect(workload.operations.last?.dependencies == Array(0..<7))
    }

    @Test func anOperationClassThatCannotBeRehearsedDeclaresItsWork() {
        let workload = Lab.rehearse(
            { _ in
                let queue = LabQueue()
                queue.addOperation(TimerOperation())
                queue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]))
        #expect(workload.operations.count == 1)
        #expect(workload.operations[0].work == .timer && workload.operations[0].articleSeconds == 1.5)
        #expect(workload.operations[0].label == "timer")
    }

    /// ArraySumOperation is not the instrumented BlockOperation: its cancel() is read from
    /// isCancelled at the instant the experiment's thread had reached, and its work from what it declares.
    @Test func anArticleOperationClassIsCancelledAtTheInstantItsCodeSays() {
        let workload = cancellationAtTwoSeconds.workload()
        #expect(workload.operations.map(\.label) == ["ArraySumOperation"])
        #expect(
            workload.operations[0].steps == 5 && workload.operations[0].articleSeconds == 1
                && workload.operations[0].checksCancellation)
        #expect(workload.cancellations == [PlannedCancellation(atArticleSeconds: 1.75, target: .operation(0))])
        let ignored = cancellationIgnored.workload(
            try! cancellationIgnored.parameters(overriding: ["cancel-at": "3", "pairs": "4"]))
        #expect(ignored.operations[0].steps == 4 && !ignored.operations[0].checksCancellation)
        #expect(ignored.cancellations == [PlannedCancellation(atArticleSeconds: 3, target: .operation(0))])
    }

    /// GroupAdd: its five SumOperations on the suspended queue started at once, cancelled at
    /// the article's instant; its completion blocks (which need the run's sums) are rehearsed
    /// once and what they would add is not planned, so the append queue is not in the plan.
    @Test func groupAddsPlanIsItsQueueAndItsCompletionsAreFollowOn() {
        let workload = groupCancellation.workload()
        #expect(workload.queues.count == 1)
        #expect(workload.queues[0].maxConcurrentOperationCount == 2 && workload.queues[0].startsSuspended)
        #expect(workload.suspensions == [PlannedSuspension(atArticleSeconds: 0, queue: 0, isSuspended: false)])
        #expect(
            workload.operations.map(\.label) == Summing.cancellationPairs.map { "SumOperation \(Summing.label($0))" })
        #expect(workload.operations.allSatisfy { $0.articleSeconds == 1 && $0.steps == 1 && $0.executor == .queue(0) })
        #expect(workload.cancellations == [PlannedCancellation(atArticleSeconds: 1, target: .queue(0))])
    }

    /// Alerts that share one name: each is a row of its own, and the one that starts first
    /// cancels the others, as its `main()` does (found by name on its queue), which the
    /// rehearsal reads from what the class declares; another queue's alert is left alone.
    @Test func anOperationThatCancelsItsNamesakesAsItStarts() {
        let workload = Lab.rehearse(
            { _ in
                let queue = LabQueue()
                queue.maxConcurrentOperationCount = 1
                let other = LabQueue()
                queue.addOperation(ConnectivityAlertOperation(message: "first"))
                queue.addOperation {
                    Experiments.print("sync"); Experiments.sleep(1)
                }
                queue.addOperation(ConnectivityAlertOperation(message: "second"))
                other.addOperation(ConnectivityAlertOperation(message: "elsewhere"))
                queue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]))
        let name = ConnectivityAlertOperation.alertName
        #expect(workload.operations.map(\.label) == [name, "sync", "\(name) #2", "\(name) #3"])
        #expect(workload.operations.map(\.cancelsWhenStarting) == [[2], [], [0], []])
        // The second alert is cancelled as the first starts: it ends at once, after the sync message.
        #expect(starts(workload) == [0, 1, 2, 0])
        let prediction = Scheduler.predict(workload, profile: Self.linux, timeScale: 1)
        #expect(prediction.nominal.spans[2]?.ranWork == false)
        #expect(abs(prediction.total - 2) < 1e-9)
    }

    /// A serial underlying DispatchQueue runs one operation at a time: read from the queue's
    /// `underlyingQueue`, one the lab was told is serial (as the Experiments module's
    /// `DispatchQueue(label:)` tells it; here the test cannot name that one apart from
    /// Dispatch's); another DispatchQueue leaves the queue's own width.
    @Test func aSerialUnderlyingQueueIsReadAsWidthOne() {
        let workload = Lab.rehearse(
            { _ in
                let serial = DispatchQueue(
                    dispatchLabel: "serial", qos: .default, attributes: [], autoreleaseFrequency: .inherit, target: nil)
                Lab.current?.madeQueue(serial, serial: true)
                let unknown = DispatchQueue(
                    dispatchLabel: "concurrent", qos: .default, attributes: .concurrent, autoreleaseFrequency: .inherit,
                    target: nil)
                let onSerial = LabQueue()
                onSerial.underlyingQueue = serial
                let onUnknown = LabQueue()
                onUnknown.maxConcurrentOperationCount = 3
                onUnknown.underlyingQueue = unknown
                onSerial.addOperation {
                    Experiments.print("first"); Experiments.sleep(0.5)
                }
                onSerial.addOperation {
                    Experiments.print("second"); Experiments.sleep(0.5)
                }
                onUnknown.addOperation {
                    Experiments.print("elsewhere"); Experiments.sleep(0.5)
                }
                onSerial.waitUntilAllOperationsAreFinished()
                onUnknown.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]))
        #expect(workload.queues.map(\.maxConcurrentOperationCount) == [1, 3])
        #expect(starts(workload) == [0, 0.5, 0])
    }

    /// A queued BlockOperation of several blocks: a row for each, in turn on one worker here and
    /// at once on Apple platforms; what depends on it, and its completion, wait for them all.
    @Test func aQueuedBlockOperationIsReadBlockByBlock() throws {
        let workload = try plan(blockOperationThreeBlocks)
        #expect(workload.operations.map(\.label) == ThreeBlocks.tasks + [ThreeBlocks.completion])
        #expect(
            workload.operations.map(\.executor) == [
                .queue(0), .executionBlock(of: 0), .executionBlock(of: 0), .globalQueue(.default),
            ])
        #expect(workload.operations.last?.dependencies == [0, 1, 2])
        let linux = Scheduler.predict(workload, profile: Self.linux, timeScale: 1).nominal
        #expect(starts(workload) == [0, 2, 4, 6])
        #expect(Set(linux.spans.prefix(3).map { $0?.lane }).count == 1, "one worker runs the three blocks")
        #expect(starts(workload, Self.apple) == [0, 0, 0, 2])

        let gated = Lab.rehearse(
            { _ in
                let queue = LabQueue()
                let blocks = LabBlockOperation {
                    Experiments.print("one"); Experiments.sleep(1)
                }
                blocks.addExecutionBlock {
                    Experiments.print("two"); Experiments.sleep(1)
                }
                let after = LabBlockOperation {
                    Experiments.print("after"); Experiments.sleep(1)
                }
                after.addDependency(blocks)
                let cancelled = LabBlockOperation {
                    Experiments.print("never"); Experiments.sleep(1)
                }
                cancelled.addExecutionBlock {
                    Experiments.print("never either"); Experiments.sleep(1)
                }
                cancelled.cancel()
                queue.addOperations([blocks, after, cancelled], waitUntilFinished: false)
                queue.waitUntilAllOperationsAreFinished()
            }, parameters: Parameters([]))
        #expect(gated.operations.map(\.label) == ["one", "two", "after", "never", "never either"])
        #expect(gated.operations[2].dependencies == [0, 1])
        #expect(starts(gated) == [0, 1, 2, 0, 0])
        let spans = Scheduler.predict(gated, profile: Self.linux, timeScale: 1).nominal.spans
        #expect(
            spans[3]?.ranWork == false && spans[4]?.ranWork == false, "a cancelled operation runs none of its blocks")
    }

    /// The 2017 ImageLoadOperation finishes at once; its download, a row of its own the class
    /// declares, goes on for its latency after it. The fixed one waits for its download.
    @Test func workThatOutlivesItsOperationIsARowOfItsOwn() {
        let workload = asyncDependencyBug.workload()
        #expect(
            workload.operations.map(\.label) == [
                DependencyBug.brokenLoad, DependencyBug.brokenDownload, DependencyBug.brokenFilter,
                DependencyBug.fixedLoad, DependencyBug.fixedFilter,
            ])
        #expect(workload.operations[1].executor == .globalQueue(.default) && workload.operations[1].work == .timer)
        #expect(workload.operations[1].dependencies == [0] && workload.operations[2].dependencies == [0])
        // The fixed pair is added after waiting for the 2017 pair: not for its download.
        #expect(workload.operations[3].dependencies == [0, 2])
        #expect(starts(workload) == [0, 0, 0, 0, 1])
        #expect(
            abs(Scheduler.predict(workload, profile: Self.linux, timeScale: 1).total - DependencyBug.downloadSeconds)
                < 1e-9)
    }

    @Test func outsideALabTheInstrumentedTypesAreFoundations() {
        Lab.withNoSessionOpen {
            #expect(Lab.current == nil)
            let queue = LabQueue()
            let ran = LockedFlag()
            queue.addOperation { ran.set() }
            queue.waitUntilAllOperationsAreFinished()
            #expect(ran.value)
        }
    }
}

/// An operation whose work the rehearsal cannot call (it would start a timer): it says what
/// its work is. `@unchecked Sendable`: no stored state of its own.
private final class TimerOperation: Foundation.Operation, ModelledOperation, @unchecked Sendable {
    override init() {
        super.init()
        name = "timer"
    }

    var modelledWork: ModelledWork { ModelledWork(articleSeconds: 1.5, work: .timer) }
}

/// A flag set from another thread. `@unchecked Sendable`: `flag` is read and written only under `lock`.
private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var flag = false
    func set() { lock.withLock { flag = true } }
    var value: Bool { lock.withLock { flag } }
}

/// Runs that differ from their plan fail as such, naming the operation and the difference.
@Suite(.serialized, .oneAtATime) struct LabDriftTests {
    /// An experiment made for a drift test: only its name, its code and the article its code
    /// comes from matter; the words a learner would read are placeholders.
    static func scratch(
        _ name: String, title: String = "test", source: ArticleSource,
        claim: ArticleClaim = ArticleClaim(quote: "test", seconds: nil),
        code: @escaping @Sendable (RunContext) throws -> Void
    ) -> Experiment {
        Experiment(name, source: source, code: code)
            .title(title).summary("test").claim(claim.quote, seconds: claim.seconds).expectedOutcome("test")
            .platformDifference("test")
    }

    /// Judges `experiment` (as ``judged(_:scale:)``, at the lowest scale) and expects no drift:
    /// what ran is what its plan says.
    @discardableResult
    static func judgedWithoutDrift(_ experiment: Experiment, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> (result: ExperimentResult, measurement: MeasuredRun)
    {
        let result = try judged(experiment, scale: 0.05)
        let measurement = try #require(result.measurement, sourceLocation: sourceLocation)
        #expect(measurement.modelOutOfDate == [], "\(experiment.name)", sourceLocation: sourceLocation)
        return (result, measurement)
    }

    /// One closure's work depends on something the rehearsal cannot see (here, whether it is
    /// the rehearsal), the way a stale plan would differ from the code that runs.
    static func drifting(extraOperation: Bool) -> Experiment {
        scratch(
            "drifting", title: "A closure whose sleep changes after the plan was read", source: PrinterQueue.source,
            code: { context in
                let printerQueue = LabQueue()
                printerQueue.maxConcurrentOperationCount = 2
                printerQueue.addOperation {
                    Experiments.print("Каждый 🍎"); Experiments.sleep(2)
                }
                printerQueue.addOperation {
                    Experiments.print("Где 💎"); Experiments.sleep(context.isRehearsal ? 2 : 3)
                }
                if extraOperation, !context.isRehearsal {
                    printerQueue.addOperation {
                        Experiments.print("Фазан 🍆"); Experiments.sleep(2)
                    }
                }
                printerQueue.waitUntilAllOperationsAreFinished()
            }
        )
    }

    /// Runs `experiment` in this process, as a child does (plan first, then the run, its events
    /// streamed), and judges what it streamed. Not timed against the model: only drift matters here.
    static func judged(_ experiment: Experiment, scale: Double) throws -> ExperimentResult {
        let events = EventLog()
        let encoder = JSONEncoder()
        let plan = experiment.workload()
        let timeline = Timeline(clock: MonotonicClock()) { event in events.append(try! encoder.encode(event)) }
        let outcome = try experiment.run(
            RunContext(timeScale: scale, timeline: timeline, parameters: experiment.defaultParameters), plan)
        timeline.finish(outcome: outcome)
        var assembler = MeasuredRunAssembler()
        for line in events.lines {
            assembler.add(try JSONDecoder().decode(TimelineEvent.self, from: line))
        }
        let report = ChildProcess.Report(
            ending: .returned, measurement: assembler.measurement(stoppedAt: nil), diagnostics: "")
        let prediction = Scheduler.predict(plan, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: scale)
        return .judging(report, of: experiment, prediction: prediction, applePrediction: prediction)
    }

    @Test func aSleepThatChangedIsTheReasonNotATiming() throws {
        let result = try Self.judged(Self.drifting(extraOperation: false), scale: 0.05)
        #expect(result.verdict == .fail)
        #expect(result.reason == "model out of date: 'Где 💎' slept 3.00 s, the plan says 2.00 s")
        #expect(result.checks.allSatisfy { $0.description.hasPrefix("model out of date") })
    }

    @Test func anOperationThePlanDoesNotHaveIsNamed() throws {
        let result = try Self.judged(Self.drifting(extraOperation: true), scale: 0.05)
        #expect(result.verdict == .fail)
        let reasons = result.checks.map(\.description)
        #expect(
            reasons.contains("model out of date: an operation on 'queue 1' was added that the plan does not have"),
            "\(reasons)")
    }

    /// An experiment that adds the operation `make` builds to a queue and waits for it.
    static func oneOperation(named name: String, _ make: @escaping @Sendable () -> Foundation.Operation) -> Experiment {
        scratch(
            name, title: "An operation class sleeping longer than it declares", source: ArraySumCancellation.source,
            code: { _ in
                let queue = LabQueue()
                queue.addOperation(make())
                queue.waitUntilAllOperationsAreFinished()
            }
        )
    }

    /// ArraySumOperation edited to sleep a quarter of a second more after each sum: its `main()`
    /// is the plan, so the edit is planned (unequal sleeps, one step of their sum), and the run
    /// follows it.
    @Test func anEditedOperationSubclassIsPlannedFromItsMain() throws {
        let experiment = Self.oneOperation(named: "edited-array-sum") {
            SlowerArraySumOperation(input: Summing.cancellationPairs(2), checksCancellation: false)
        }
        let planned = try #require(experiment.workload().operations.first)
        #expect((planned.articleSeconds, planned.steps) == (2.5, 1))
        let measurement = try Self.judgedWithoutDrift(experiment).measurement
        #expect(measurement.span("ArraySumOperation") != nil)
    }

    /// GroupSumOperation edited to sleep a quarter of a second more: planned as its `main()` sleeps.
    @Test func anEditedGroupSumOperationIsPlannedFromItsMain() throws {
        let experiment = Self.oneOperation(named: "edited-group-sum") { SlowerGroupSumOperation(input: (1, 2)) }
        #expect(experiment.workload().operations.map(\.articleSeconds) == [1.25])
        #expect(experiment.workload().operations.map(\.checksCancellation) == [false])
        _ = try Self.judgedWithoutDrift(experiment)
    }

    /// The appends GroupAdd's completion blocks make are follow-on work: the run, which makes
    /// them, is not drift. (Which sums arrive is timed in CancellationRunTests, in a child with
    /// its pool primed; here, in the test process, a second worker may start late.)
    @Test func groupAddsAppendsAreNotDrift() throws {
        let measurement = try Self.judgedWithoutDrift(groupCancellationEarly).measurement
        let arrived = try #require(measurement.outcome["outputArray"]?.stringArray)
        #expect(!arrived.isEmpty && Set(arrived).isSubset(of: ["(1, 2, 3)", "(3, 4, 7)"]), "\(arrived)")
    }

    /// sum-operation's sleeps are made on DispatchQueue.global() workers, after main() returned:
    /// they are recorded as their operation's work (else each would read as 0 s, drift).
    @Test func sumOperationsHandedOverSleepsAreItsWork() throws {
        let measurement = try Self.judgedWithoutDrift(sumOperationExperiment).measurement
        #expect(
            sumOperationExperiment.workload().operations.allSatisfy {
                $0.articleSeconds == asyncAddSeconds && $0.work == .handedToPool(.default)
            })
        for pair in Summing.asyncPairs {
            let operation = try #require(measurement.span(Summing.label(pair)))
            let sleep = try #require(measurement.span(Summing.workerLabel(pair)))
            #expect(operation.end >= sleep.end, "the operation's row runs until its callback")
        }
    }

    /// An asynchronous operation whose handed-over sleep changed without its declared work.
    @Test func aHandedOverSleepThatChangedIsTheReason() throws {
        let result = try Self.judged(
            Self.oneOperation(named: "drifting-async-sum") { SlowerAsyncOperation() }, scale: 0.05)
        #expect(result.verdict == .fail)
        #expect(result.reason == "model out of date: 'async sum' slept 1.25 s, the plan says 1.00 s")
    }

    @Test func anExperimentAsPlannedHasNoDrift() throws {
        let (result, measurement) = try Self.judgedWithoutDrift(maxTwoThreeOperations)
        #expect(measurement.operations.map(\.label).sorted() == MaxTwo.labels)
        #expect(!result.checks.contains { $0.description.hasPrefix("model out of date") })
    }
}

/// ArraySumOperation whose loop was changed: an extra sleep after each sum.
/// `@unchecked Sendable`: no stored state of its own.
private final class SlowerArraySumOperation: ArraySumOperation, @unchecked Sendable {
    override func main() {
        for pair in inputArray {
            _ = slowAdd(pair)
            Experiments.sleep(0.25)
        }
    }
}

/// GroupSumOperation whose sum was changed: an extra sleep, and no look at `isCancelled`.
/// `@unchecked Sendable`: no stored state of its own.
private final class SlowerGroupSumOperation: GroupSumOperation, @unchecked Sendable {
    override func main() {
        _ = slowAdd(inputPair)
        Experiments.sleep(0.25)
    }
}

/// An AsyncOperation that declares SumOperation's work but sleeps a quarter of a second more on
/// the worker it hands its sleep to. `@unchecked Sendable`: no stored state of its own.
private final class SlowerAsyncOperation: AsyncOperation, ModelledOperation, @unchecked Sendable {
    override init() {
        super.init()
        name = "async sum"
    }

    override func main() {
        asyncWork { workEnded in
            DispatchQueue.global().dispatchAsync(
                group: nil, qos: .unspecified, flags: [],
                execute: Lab.handingOver {
                    Experiments.sleep(asyncAddSeconds + 0.25)
                    workEnded()
                    self.finish()
                })
        }
    }

    var modelledWork: ModelledWork { ModelledWork(articleSeconds: asyncAddSeconds, work: .handedToPool(.default)) }
}

/// The events a child would write. `@unchecked Sendable`: `collected` is guarded by `lock`.
private final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var collected: [Data] = []
    func append(_ line: Data) { lock.withLock { collected.append(line) } }
    var lines: [Data] { lock.withLock { collected } }
}
