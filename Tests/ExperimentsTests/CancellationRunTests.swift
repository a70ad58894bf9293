import ExperimentKit
import Testing

@testable import Experiments
@testable import Pictures

/// The asynchronous and cancellation experiments, run for real: exact outcomes where the model
/// says they are certain, membership in the model's set where it says they race.
extension TimedRuns {
    @Suite struct CancellationRuns {
        func ints(_ value: JSONValue?) -> [Int]? {
            value.flatMap(ArraySumCancellation.intArray)
        }

        @Test func sumOperationAddsEveryPairCorrectly() async throws {
            let run = try await TimedRuns.measured(sumOperationExperiment)
            #expect(ints(run.outcome["sums"]) == [6, 13, 7, 12, 18, 1])
            #expect(
                run.outcome["completionOrder"]?.stringArray?.sorted() == Summing.asyncPairs.map(Summing.label).sorted())
            #expect(
                run.output.map(\.text).sorted() == [
                    "1 + 0 = 1", "1 + 5 = 6", "3 + 9 = 12", "5 + 8 = 13", "6 + 1 = 7", "6 + 12 = 18",
                ])
        }

        @Test func theBrokenDependencyDoesNotWait() async throws {
            let run = try await TimedRuns.measured(asyncDependencyBug)
            #expect(run.outcome[DependencyBug.brokenFilter] == .string("nil"))
            #expect(
                run.outcome[DependencyBug.fixedFilter]
                    == .string(InputReportingOperation.describe(SourceImages.named(DependencyBug.image))))
            let brokenFilter = try #require(run.span(DependencyBug.brokenFilter))
            let brokenDownload = try #require(run.span(DependencyBug.brokenDownload))
            #expect(brokenFilter.start < brokenDownload.end, "the filter ran before the download ended")
            let fixedFilter = try #require(run.span(DependencyBug.fixedFilter))
            let fixedLoad = try #require(run.span(DependencyBug.fixedLoad))
            #expect(fixedFilter.start >= fixedLoad.end)
        }

        @Test func cancellationOutcomes() async throws {
            let cases: [(Experiment, [Int])] = [
                (cancellationIgnored, [3, 7, 11, 15, 19]),
                (cancellationAtTwoSeconds, [3, 7]),
                (cancellationProgressAtTwoSeconds, [3, 7]),
                (cancellationProgressAtFourSeconds, [3, 7, 11, 15]),
            ]
            for (experiment, sums) in cases {
                let run = try await TimedRuns.measured(experiment)
                #expect(ints(run.outcome["outputArray"]) == sums, "\(experiment.name)")
                // The loop's own row ends right after its last sum.
                let sumRows = run.operations.filter { $0.label.contains(" + ") }
                #expect(sumRows.count == sums.count, "\(experiment.name)")
            }
            let progress = try await TimedRuns.measured(cancellationProgressAtFourSeconds)
            #expect(
                progress.output.map(\.text).filter { $0.hasSuffix("processed") }
                    == [20, 40, 60, 80].map { "\($0)% of the array processed" })
        }

        @Test func groupAddCancelledAwayFromTheRaceIsExact() async throws {
            let early = try await TimedRuns.measured(groupCancellationEarly)
            #expect(early.outcome["outputArray"]?.stringArray?.sorted() == ["(1, 2, 3)", "(3, 4, 7)"])
            let late = try await TimedRuns.measured(groupCancellationLate)
            #expect(
                late.outcome["outputArray"]?.stringArray?.sorted() == [
                    "(1, 2, 3)", "(3, 4, 7)", "(5, 6, 11)", "(7, 8, 15)",
                ])
        }

        @Test func groupAddAtTheArticlesInstantGivesOneOfTheRacesOutcomes() async throws {
            // Not who wins: only that what arrived is one of the outcomes the model derives.
            let run = try await TimedRuns.measured(groupCancellation)
            let arrived = try #require(run.outcome["outputArray"]?.stringArray)
            #expect([2, 3, 4].contains(arrived.count))
            #expect(
                arrived.allSatisfy {
                    ["(1, 2, 3)", "(3, 4, 7)", "(5, 6, 11)", "(7, 8, 15)", "(9, 10, 19)"].contains($0)
                })
        }

        @Test func pitfallsHangAsDeclaredAndShowBothBugs() async throws {
            let result = try await TimedRuns.reported(asyncOperationPitfalls)
            TimedRuns.requirePass(result)
            let run = try #require(result.measurement)
            #expect(result.checks.contains { $0.description.hasPrefix("the child hung") && $0.passed })
            #expect(run.outcome["2017 isCancelled after cancel()"] == .bool(false))
            #expect(run.outcome["fixed loop steps"] == .number(2))
            let stuck = try #require(run.span(Pitfalls.brokenInstant))
            #expect(!stuck.finished)
        }

        @Test func cancellationSemanticsStates() async throws {
            let run = try await TimedRuns.measured(cancellationSemantics)
            #expect(run.outcome["A after the queue took it"] == .string("cancelled, finished"))
            #expect(run.outcome["B right after the cancel"] == .string("cancelled, executing"))
            #expect(run.outcome["C right after the cancel"] == .string("finished"))
            #expect(run.outcome["E right after the cancel"] == .string("cancelled, ready"))
            #expect(Set(run.operations.map(\.label)) == [Semantics.b, Semantics.c, Semantics.d])
        }
    }
}
