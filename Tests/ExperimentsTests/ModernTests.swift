import Foundation
import Testing
@testable import ExperimentKit
@testable import Experiments
import TestSupport

/// The Swift-concurrency counterparts, run for real: exact outcomes (words, sums, tuples,
/// images), and the task-overhead benchmark's figures.
extension TimedRuns {
    @Suite struct ModernRuns {
        static let scale = 0.1

        func ints(_ value: JSONValue?) -> [Int]? {
            value.flatMap(ArraySumCancellation.intArray)
        }

        /// Which round (of `seconds` each) every planned operation started in, in plan order.
        func rounds(_ run: MeasuredRun, of experiment: Experiment, seconds: Double) -> [Int] {
            experiment.workload().operations.map { planned in
                run.span(planned.label).map { Int(($0.start / seconds).rounded()) } ?? -1
            }
        }

        @Test func sevenSleepingChildrenRunAtOnce() throws {
            let run = try TimedRuns.measured(concurrentPrinterQueueAsync, scale: Self.scale)
            #expect(run.output.map(\.text).sorted() == PrinterQueue.words.sorted())
            #expect(rounds(run, of: concurrentPrinterQueueAsync, seconds: 2 * Self.scale) == Array(repeating: 0, count: 7))
            #expect(run.maximumOverlap(of: concurrentPrinterQueueAsync.workload()) == 7)
        }

        @Test func twoInFlightRunInPairsTheSeventhAlone() throws {
            let run = try TimedRuns.measured(printerQueueMaxTwoAsync, scale: Self.scale)
            #expect(run.output.map(\.text).sorted() == PrinterQueue.words.sorted())
            #expect(rounds(run, of: printerQueueMaxTwoAsync, seconds: 2 * Self.scale) == [0, 0, 1, 1, 2, 2, 3])
            #expect(run.maximumOverlap(of: printerQueueMaxTwoAsync.workload()) == 2)
        }

        @Test func sixAdditionsAllCorrectAllAtOnce() throws {
            let run = try TimedRuns.measured(sumOperationAsync, scale: Self.scale)
            #expect(ints(run.outcome["sums"]) == [6, 13, 7, 12, 18, 1])
            #expect(run.outcome["completionOrder"]?.stringArray?.sorted() == Summing.asyncPairs.map(Summing.label).sorted())
            #expect(run.output.map(\.text).sorted() == ["1 + 0 = 1", "1 + 5 = 6", "3 + 9 = 12", "5 + 8 = 13", "6 + 1 = 7", "6 + 12 = 18"])
            #expect(run.maximumOverlap(of: sumOperationAsync.workload()) == 6)
        }

        @Test func cancelledLoopKeepsTheSumUnderWay() throws {
            let run = try TimedRuns.measured(cancellationAtTwoSecondsAsync, scale: Self.scale)
            #expect(ints(run.outcome["outputArray"]) == [3, 7])
            #expect(run.operations.filter { $0.label.contains(" + ") }.map(\.label) == ["1 + 2", "3 + 4"])
            let loop = try #require(run.span(AsyncCancellation.loopLabel))
            #expect(loop.cancelled, "the loop ended by throwing CancellationError")
            let secondSum = try #require(run.span("3 + 4"))
            let cancelledAt = try #require(run.outcome["cancelledAtSeconds"]?.numberValue)
            #expect(secondSum.start < cancelledAt && secondSum.end > cancelledAt, "the cancel came during the second sum, which ran to its end")
        }

        @Test func cancelledGroupDeliversExactlyTheTwoSumsUnderWay() throws {
            let run = try TimedRuns.measured(groupCancellationAsync, scale: Self.scale)
            #expect(run.outcome["outputArray"]?.stringArray?.sorted() == ["(1, 2, 3)", "(3, 4, 7)"])
            #expect(Set(run.operations.map(\.label)) == ["1 + 2", "3 + 4"], "no other child was added")
        }

        @Test func fourChildTasksFilterEveryImage() throws {
            let run = try TimedRuns.measured(fourImagesAsync, scale: Self.scale)
            let titles = SimulatedDownloads.providerImages.enumerated().map { "\($0.offset + 1) \($0.element)" }
            let arrived = try #require(run.outcome["arrived"]?.stringArray)
            #expect(arrived.sorted() == titles.sorted())
            #expect(arrived.last == "2 Venice")
            // Each output is the article's pipeline applied to its picture, pixel for pixel.
            let expected = try SimulatedDownloads.providerImages.enumerated().map { index, name in
                let picture = try #require(SourceImages.named(name))
                return Outcome.Field("\(index + 1) \(name)", .string(ArrivedImage.checksum(picture.mistedTopAndBottom(radius: ImageCosts.blurRadius).postProcessed())))
            }
            guard case .object(let checksums) = run.outcome["outputCRC32"] else {
                Issue.record("no checksums in the outcome")
                return
            }
            #expect(checksums.sorted { $0.key < $1.key } == expected.sorted { $0.key < $1.key })
        }

        @Test func taskOverheadFiguresArePositiveAndEveryTaskRanOnce() throws {
            // Not registered yet (its total is not predictable: see TaskOverheadPlan), so it runs
            // here, in this process, with the checks it will be judged by.
            let timeline = Timeline(clock: MonotonicClock())
            let workload = taskOverhead.workload()
            timeline.finish(outcome: try taskOverhead.run(RunContext(timeScale: 1, timeline: timeline), workload))
            let run = try #require(timeline.measurement())
            let prediction = Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1)
            for check in taskOverhead.checks(run, prediction) {
                #expect(check.passed, "\(check.description)")
            }
            let figures = run.outcome.fields.compactMap(OverheadFigure.Reported.init)
            #expect(figures.count == 6)
            #expect(figures.allSatisfy { $0.everyTaskRanOnce && $0.microsecondsPerTask.count == TaskOverheadPlan.repeats })
            #expect(figures.flatMap(\.microsecondsPerTask).allSatisfy { $0 > 0 && $0.isFinite })
            #expect(run.output.count == 2 + OverheadMechanism.allCases.count, "a header, one line per mechanism, and the medians' precision")
            #expect(run.output.last?.text.hasPrefix("each figure: the median of 5 runs of 10 000 and 100 000 tasks; half the runs of every figure within ±") == true)
            #expect(run.span(TaskOverheadPlan.label) != nil)
        }
    }
}

/// The counterparts' plans, as the model predicts them, and their small parts: fast and certain.
@Suite struct ModernUnitTests: TwoCPUProfiles {

    func predict(_ experiment: Experiment, scale: Double = 1) -> Prediction {
        Scheduler.predict(experiment.workload(), profile: Self.linux, timeScale: scale)
    }

    func starts(_ prediction: Prediction) -> [Double] {
        prediction.nominal.startsToTheMillisecond
    }

    @Test func sleepingChildrenHoldNoThreadSoLinuxMatchesTheArticle() {
        let all = predict(concurrentPrinterQueueAsync)
        #expect(starts(all) == Array(repeating: 0, count: 7))
        #expect(all.totalRange == 2...2 && all.maximumOverlapRange == 7...7)
        #expect(predict(concurrentPrinterQueue).total > 4.9, "the Operation version waits for threads")
        let pairs = predict(printerQueueMaxTwoAsync)
        #expect(starts(pairs) == [0, 0, 2, 2, 4, 4, 6])
        #expect(pairs.totalRange == 8...8)
        #expect(predict(sumOperationAsync).totalRange == 1...1)
    }

    @Test func cancellationsLeaveTheSumsUnderWay() {
        let loop = predict(cancellationAtTwoSecondsAsync)
        #expect(loop.stepsCompleted(0) == [2])
        #expect(loop.totalRange == 2...2)
        let group = predict(groupCancellationAsync)
        #expect((0..<5).map { group.workRuns($0) } == [[true], [true], [false], [false], [false]])
        #expect(group.totalRange == 1...1)
    }

    @Test func fourImagesEndWithVeniceAndItsFilters() {
        let prediction = predict(fourImagesAsync)
        // Outside a child the filters are left to measure; counted at Venice's costs, they end it.
        #expect(prediction.leavesOutCPUWork && prediction.total == 10)
        let venice = ImageCosts.costs(of: "Venice"), labels = ImageProvider.labels("2 Venice")
        let counted = prediction.counting([
            CPUCost(label: labels[1], seconds: venice.filter, source: .calibrated),
            CPUCost(label: labels[2], seconds: venice.postProcess, source: .calibrated),
        ])
        #expect(abs(counted.total - (10 + venice.filter + venice.postProcess)) < 1e-9)
    }

    @Test func besideCheckGivesBothModelFigures() {
        let check = ModernCounterpart.beside(concurrentPrinterQueue, predict(concurrentPrinterQueueAsync))
        #expect(check.passed)
        #expect(check.description.contains("concurrent-printer-queue: the model gives it 4.97 s, 4 at once here; this one 2.00 s, 7 at once"))
    }

    @Test func tallyCountsEachTaskOnce() {
        let once = TaskTally(count: 3)
        (0..<3).forEach(once.mark)
        #expect(once.everyTaskRanOnce)
        let twice = TaskTally(count: 3)
        [0, 1, 1].forEach(twice.mark)
        #expect(!twice.everyTaskRanOnce, "one ran twice and one never")
    }

    @Test func awaitingATaskFromSynchronousCodeReturnsOrThrows() {
        struct Failure: Error {}
        #expect((try? AwaitFromRun.wait { 42 }) == 42)
        #expect(throws: Failure.self) { try AwaitFromRun.wait { () async throws -> Int in throw Failure() } }
    }

    @Test func tableAlignsItsColumns() {
        let figures = OverheadMechanism.allCases.flatMap { mechanism in
            [10_000, 100_000].map { OverheadFigure(mechanism: mechanism, tasks: $0, microsecondsPerTask: [3, 1, 2], everyTaskRanOnce: true) }
        }
        let table = OverheadFigure.table(figures)
        #expect(table.count == 4)
        #expect(table[0].contains("10 000") && table[0].contains("100 000"))
        let articleColumns = zip(table, ["article 000 says"] + OverheadMechanism.allCases.map(\.articleSays)).map { row, article in
            row.range(of: article).map { row.distance(from: row.startIndex, to: $0.lowerBound) }
        }
        #expect(Set(articleColumns).count == 1 && articleColumns[0] != nil, "the article's words start in one column")
        #expect(table[1].contains("2.00"), "the median of 3, 1, 2")
    }
}
