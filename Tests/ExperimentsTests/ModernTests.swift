import ExperimentKit
import ExperimentModel
import Foundation
import TestSupport
import Testing

@testable import Experiments
@testable import Pictures

/// The Swift-concurrency counterparts, run for real: exact outcomes (words, sums, tuples,
/// images), and the task-overhead benchmark's figures.
extension TimedRuns {
    @Suite struct ModernRuns {
        /// The shared full run's: what these assert (order, rounds, sums, figures) is the same at the lowest scale.
        static let scale = TimedRuns.fullRunScale

        /// Which round (of `seconds` each) every planned word started in, in plan order.
        func rounds(_ run: MeasuredRun, of experiment: Experiment, seconds: Double) -> [Int] {
            PrinterQueue.printing(experiment.workload()).map { planned in
                run.span(planned.label).map { Int(($0.start / seconds).rounded()) } ?? -1
            }
        }

        @Test func sevenSleepingChildrenRunAtOnce() async throws {
            let run = try await TimedRuns.measured(concurrentPrinterQueueAsync)
            #expect(run.output.map(\.text).sorted() == PrinterQueue.words.sorted())
            #expect(
                rounds(run, of: concurrentPrinterQueueAsync, seconds: 2 * Self.scale) == Array(repeating: 0, count: 7))
            #expect(run.maximumOverlap(of: concurrentPrinterQueueAsync.workload()) == 7)
        }

        @Test func twoInFlightRunInPairsTheSeventhAlone() async throws {
            let run = try await TimedRuns.measured(printerQueueMaxTwoAsync)
            #expect(run.output.map(\.text).sorted() == PrinterQueue.words.sorted())
            #expect(rounds(run, of: printerQueueMaxTwoAsync, seconds: 2 * Self.scale) == [0, 0, 1, 1, 2, 2, 3])
            #expect(run.maximumOverlap(of: printerQueueMaxTwoAsync.workload()) == 2)
        }

        @Test func sixAdditionsAllCorrectAllAtOnce() async throws {
            let run = try await TimedRuns.measured(sumOperationAsync)
            let printed = run.output.map(\.text)
            #expect(
                printed.filter { $0.contains(" = ") }.sorted() == [
                    "1 + 0 = 1", "1 + 5 = 6", "3 + 9 = 12", "5 + 8 = 13", "6 + 1 = 7", "6 + 12 = 18",
                ])
            #expect(
                printed.filter { !$0.contains(" = ") }.sorted() == Summing.asyncPairs.map(Summing.label).sorted(),
                "each child printed its pair")
            #expect(run.maximumOverlap(of: sumOperationAsync.workload()) == 6)
        }

        @Test func cancelledLoopKeepsTheSumUnderWay() async throws {
            let run = try await TimedRuns.measured(cancellationAtTwoSecondsAsync)
            #expect(run.output.map(\.text) == ["summing Task", "cancel()", "cancelled", "outputArray [3, 7]"])
            let loop = try #require(run.span("summing Task"))
            #expect(loop.cancelled, "the task ended cancelled")
            let cancelledAt = try #require(run.output.first { $0.text == "cancel()" }?.at)
            // The second sum was under way at the cancel: it is in the outputArray, so it ran to its end.
            #expect(loop.end > cancelledAt, "the cancel came during the second sum")
        }

        @Test func cancelledGroupDeliversExactlyTheTwoSumsUnderWay() async throws {
            let run = try await TimedRuns.measured(groupCancellationAsync)
            let outputArray = try #require(ModernCounterpart.line(startingWith: "outputArray", in: run))
            #expect(["outputArray [(1, 2, 3), (3, 4, 7)]", "outputArray [(3, 4, 7), (1, 2, 3)]"].contains(outputArray))
            let children = run.operations.map(\.label).filter { $0.contains(" + ") }
            #expect(Set(children) == ["1 + 2", "3 + 4"] && children.count == 2, "no other child was added")
        }

        @Test func fourChildTasksFilterEveryImage() async throws {
            let run = try await TimedRuns.measured(fourImagesAsync)
            let titles = SimulatedDownloads.providerImages.enumerated().map { "\($0.offset + 1) \($0.element)" }
            let arrived = try #require(run.outcome["arrived"]?.stringArray)
            #expect(arrived.sorted() == titles.sorted())
            #expect(arrived.last == "2 Venice")
            // Each output is the article's pipeline applied to its picture, pixel for pixel.
            let expected = try SimulatedDownloads.providerImages.enumerated().map { index, name in
                let picture = try #require(SourceImages.named(name))
                return Outcome.Field(
                    "\(index + 1) \(name)",
                    .string(
                        ArrivedImage.checksum(picture.mistedTopAndBottom(radius: ImageCosts.blurRadius).postProcessed())
                    ))
            }
            guard case .object(let checksums) = run.outcome["outputCRC32"] else {
                Issue.record("no checksums in the outcome")
                return
            }
            #expect(checksums.sorted { $0.key < $1.key } == expected.sorted { $0.key < $1.key })
        }

        @Test func taskOverheadFiguresArePositiveAndEveryTaskRanOnce() async throws {
            // At this scale the benchmark is sized down (500 and 5 000 tasks): the same
            // figures and checks as the article's size, in a twentieth of the time.
            let run = try await TimedRuns.measured(taskOverhead)
            let figures = run.outcome.fields.compactMap(OverheadFigure.Reported.init)
            #expect(figures.count == 6)
            #expect(
                figures.allSatisfy { $0.everyTaskRanOnce && $0.microsecondsPerTask.count == TaskOverheadPlan.repeats })
            #expect(figures.flatMap(\.microsecondsPerTask).allSatisfy { $0 > 0 && $0.isFinite })
            #expect(
                run.output.count == 2 + OverheadMechanism.allCases.count,
                "a header, one line per mechanism, and the medians' precision")
            #expect(
                run.output.last?.text.hasPrefix(
                    "each figure: the median of 5 runs of 500 and 5 000 tasks, sized to time scale 0.05; half the runs of every figure within ±"
                ) == true)
            #expect(run.span(TaskOverheadPlan.label) != nil)
        }
    }
}

/// The counterparts' plans, as the model predicts them, and their small parts: fast and certain.
@Suite(.serialized, .oneAtATime) struct ModernUnitTests: TwoCPUProfiles {

    func predict(_ experiment: Experiment, scale: Double = 1) -> Prediction {
        Scheduler.predict(experiment.workload(), profile: Self.linux, timeScale: scale)
    }

    func starts(_ prediction: Prediction) -> [Double] {
        prediction.nominal.startsToTheMillisecond
    }

    @Test func sleepingChildrenHoldNoThreadSoLinuxMatchesTheArticle() {
        let all = predict(concurrentPrinterQueueAsync)
        // The words, then the task's own row once its group has ended.
        #expect(starts(all) == Array(repeating: 0, count: 7) + [2])
        #expect(all.totalRange == 2...2 && all.maximumOverlapRange == 7...7)
        #expect(predict(concurrentPrinterQueue).total > 4.9, "the Operation version waits for threads")
        let pairs = predict(printerQueueMaxTwoAsync)
        #expect(starts(pairs) == [0, 0, 2, 2, 4, 4, 6, 8])
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
        #expect(
            check.description.contains(
                "concurrent-printer-queue: the model gives it 4.97 s, 4 at once here; this one 2.00 s, 7 at once"))
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
            [10_000, 100_000].map {
                OverheadFigure(mechanism: mechanism, tasks: $0, microsecondsPerTask: [3, 1, 2], everyTaskRanOnce: true)
            }
        }
        let table = OverheadFigure.table(figures)
        #expect(table.count == 4)
        #expect(table[0].contains("10 000") && table[0].contains("100 000"))
        let articleColumns = zip(table, [OverheadFigure.articleHeading] + OverheadMechanism.allCases.map(\.articleSays))
            .map { row, article in
                row.range(of: article).map { row.distance(from: row.startIndex, to: $0.lowerBound) }
            }
        #expect(Set(articleColumns).count == 1 && articleColumns[0] != nil, "the article's words start in one column")
        #expect(table[1].contains("2.00"), "the median of 3, 1, 2")
    }
}
