import ExperimentKit
import ExperimentModel
import ExperimentResults
import ExperimentRunner
import Foundation
import TestSupport
import Testing

@testable import Experiments
@testable import Pictures

/// The image experiments, run for real at a reduced scale: which images arrive, in which
/// cells, and the PNG files a person opens.
extension TimedRuns {
    @Suite struct ImageRuns {
        @Test func filterImagesAppendsAllFive() async throws {
            let run = try await TimedRuns.measured(filterImages)
            #expect(run.outcome["appended"]?.stringArray?.sorted() == SourceImages.filterNames.sorted())
        }

        /// The blur is timed in the child, inside each operation, and the verdict's model counts
        /// exactly those figures, not the runner's own calibration.
        @Test func theModelCountsEachBlurAtWhatItCostInTheChild() throws {
            let result = TimedRuns.run(filterImages, scale: 0.1)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            #expect(run.cpuCosts.map(\.label).sorted() == SourceImages.filterNames.sorted())
            #expect(run.cpuCosts.allSatisfy { $0.source == .measured && $0.seconds > 0 })
            let counted = Dictionary(
                uniqueKeysWithValues: result.prediction.workload.operations.map { ($0.label, $0.cpuSeconds) })
            #expect(run.cpuCosts.allSatisfy { counted[$0.label] == $0.seconds })
            for cost in run.cpuCosts {
                // The operation sleeps 0.1 s, then blurs: its row holds both.
                let span = try #require(run.span(cost.label))
                #expect(span.end - span.start >= 0.1 + cost.seconds - 1e-6, "\(cost.label)")
            }
        }

        @Test func loadAndFilterFiltersTheDownload() async throws {
            let run = try await TimedRuns.measured(loadAndFilter)
            #expect(run.outcome["outputIsTheFilteredDownload"] == .bool(true))
            let load = try #require(run.span(LoadAndFilterLabels.load))
            let filter = try #require(run.span(LoadAndFilterLabels.filter))
            #expect(filter.start >= load.end)
        }

        @Test func fourImagesArriveVeniceLast() async throws {
            let run = try await TimedRuns.measured(fourImages)
            #expect(
                run.outcome["arrived"]?.stringArray?.sorted() == [
                    "1 Eiffel Tower", "2 Venice", "3 screenshot", "4 arctic-12",
                ])
            #expect(run.outcome["arrived"]?.stringArray?.last == "2 Venice")
        }

        @Test func cancellingAtSixSecondsLeavesOneThreeAndFour() async throws {
            let run = try await TimedRuns.measured(fourImagesCancelledAtSixSeconds)
            #expect(run.outcome["arrived"]?.stringArray?.sorted() == ["1 Eiffel Tower", "3 screenshot", "4 arctic-12"])
            let veniceLoad = try #require(run.span(ImageProvider.labels("2 Venice")[0]))
            #expect(veniceLoad.cancelled)
            #expect(ImageProvider.labels("2 Venice").dropFirst().allSatisfy { run.span($0) == nil })
            // Venice's filters never ran: the model counts them at the child's calibration; the
            // others at what they cost in the run.
            let venice = Set(ImageProvider.labels("2 Venice")[1...2])
            #expect(run.cpuCosts.filter { venice.contains($0.label) }.map(\.source) == [.calibrated, .calibrated])
            #expect(
                run.cpuCosts.filter { !venice.contains($0.label) }.map(\.source)
                    == Array(repeating: .measured, count: 6))
        }

        /// Its own child at 0.1, not the shared run at 0.05: which cells are still on screen when
        /// a picture arrives weighs the filters' CPU time, which does not shrink with the time
        /// scale, against scrolling that does; at 0.05 on a loaded machine fewer cells get theirs.
        @Test func theTableGivesPicturesOnlyToCellsOnScreen() throws {
            let result = TimedRuns.run(tableViewScroll, scale: 0.1)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            #expect(
                run.outcome["cells given their picture"].flatMap(ArraySumCancellation.intArray) == [2, 3, 4, 5, 6, 7])
            #expect(run.outcome["cells cancelled without a picture"].flatMap(ArraySumCancellation.intArray) == [0, 1])
            #expect(run.outcome["pictures that reached a cell that had left"] == .number(0))
        }

        @Test func thePicturesAreWrittenAsPNGFiles() throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("images-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let runner = Runner(executable: BuiltBinary.url, timeScale: 0.05, profile: .linux, imagesDirectory: folder)
            let result = runner.result(of: fourImagesCancelledAtSixSeconds)
            TimedRuns.requirePass(result)
            let paths = try #require(result.measurement?.outcome["images"]?.stringArray)
            #expect(paths.count == 3)
            for path in paths {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(Array(data.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "\(path) is a PNG")
            }
        }
    }
}

/// An image chain whose run differs from the code the plan was read from fails as drift,
/// naming the operation, never as a timing.
@Suite(.serialized, .oneAtATime) struct ImageChainDriftTests {
    /// The plan is read from an ImageProvider (load → filter → post-process → output); the run
    /// builds the chain as an older provider did, without the post-process.
    static let chainWithoutPostProcess = LabDriftTests.scratch(
        "drifting-chain", title: "A provider whose chain lost its post-process after the plan was read",
        source: fourImages.source, claim: .none,
        code: { context in
            let labels = ImageProvider.labels("1 screenshot")
            if context.isRehearsal {
                let provider = ImageProvider(
                    imageName: "screenshot", title: "1 screenshot", latency: 0.5, context: context
                ) { _ in }
                provider.start()
                provider.wait()
            } else {
                let queue = Experiments.OperationQueue()
                queue.maxConcurrentOperationCount = 2
                let load = ImageLoadOperation(imageName: "screenshot", latency: 0.5, label: labels[0], context: context)
                let filter = FilterOperation(label: labels[1], context: context)
                let output = ImageOutputOperation(label: labels[3], context: context) { _ in }
                filter.addDependency(load)
                output.addDependency(filter)
                queue.addOperations([load, filter, output], waitUntilFinished: true)
            }
        }
    )

    @Test func aChainThatDiffersFromThePlanFailsWithTheDriftReason() throws {
        let plan = Self.chainWithoutPostProcess.workload()
        // The plan is the provider's: four operations in a chain, on a queue created suspended.
        #expect(plan.operations.map(\.label) == ImageProvider.labels("1 screenshot"))
        #expect(plan.operations.map(\.dependencies) == [[], [0], [1], [2]])
        #expect(plan.queues.map(\.startsSuspended) == [true])
        #expect(plan.operations[0].work == .timer && plan.operations[0].articleSeconds == 0.5)
        // Outside a child, the filters' CPU work is left to measure, never calibrated.
        #expect(plan.operations.map(\.cpuWorkToMeasure) == [false, true, true, false])

        let result = try LabDriftTests.judged(Self.chainWithoutPostProcess, scale: 0.05)
        #expect(result.verdict == .fail)
        #expect(
            result.reason == "model out of date: '1 screenshot · output' is in the plan, but the run never added it")
        #expect(result.checks.allSatisfy { $0.description.hasPrefix("model out of date") })
    }

    @Test func theProvidersChainAsBuiltHasNoDrift() throws {
        let measurement = try LabDriftTests.judgedWithoutDrift(loadAndFilter).measurement
        #expect(measurement.operations.map(\.label) == [LoadAndFilterLabels.load, LoadAndFilterLabels.filter])
    }
}
