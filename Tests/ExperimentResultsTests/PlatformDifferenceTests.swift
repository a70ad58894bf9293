import ExperimentKit
import ExperimentModel
import TestSupport
import Testing

@testable import ExperimentReports
@testable import ExperimentResults

/// An experiment that states no platform difference of its own (a learner's) is told what the
/// two models predict for its plan, and which rule of each platform makes them differ.
@Suite(.serialized, .oneAtATime) struct PlatformDifferenceTests {
    /// `count` closures that sleep `seconds` on a queue of `width`, one of them a
    /// `BlockOperation` of two blocks when `blocks` is set; stating no difference.
    static func result(count: Int, seconds: Double, width: Int?, blocks: Bool = false) -> ExperimentResult {
        let experiment = Experiment("probe", source: ArticleSource(file: "000_test.txt", section: "Experiment 1")) {
            _, _ in Outcome()
        }
        .title("Probe")
        .summary("Sleeping closures.")
        .claim(nil, seconds: nil)
        .expectedOutcome("They all print.")
        .platformDifference("")
        .plannedAs {
            var workload = Workload()
            let queue = workload.addQueue(QueueSpec(name: "queue", maxConcurrentOperationCount: width))
            for index in 0..<count {
                let first = workload.add(
                    PlannedOperation(label: "closure \(index + 1)", articleSeconds: seconds, executor: .queue(queue)))
                if blocks, index == 0 {
                    workload.add(
                        PlannedOperation(
                            label: "its second block", articleSeconds: seconds, executor: .executionBlock(of: first)))
                }
            }
            return workload
        }
        let workload = experiment.workload()
        return ExperimentResult(
            experiment: experiment,
            prediction: Scheduler.predict(workload, profile: PlatformProfile(kind: .linux, cpus: 2), timeScale: 1),
            applePrediction: Scheduler.predict(workload, profile: PlatformProfile(kind: .apple, cpus: 2), timeScale: 1),
            measurement: nil, verdict: .pass, reason: nil, checks: []
        )
    }

    @Test func sleepersBeyondTheCPUsDifferByThePoolsGrowth() {
        let result = Self.result(count: 7, seconds: 2, width: nil)
        #expect(result.differsFromArticlePlatform)
        #expect(
            result.platformDifference
                == "The linux model predicts 4.97 s with at most 4 at once, the Apple one 2.00 s with at most 7 at once, because Linux's Dispatch starts one worker per CPU and adds one more a second while all of them block, where Apple's adds one as soon as one blocks."
        )
        #expect(
            ExperimentSection(result).notes.contains {
                $0.kind == .platformDifference && $0.text == result.platformDifference
            })
    }

    @Test func aBlockOperationsBlocksDifferByHowCorelibsRunsThem() {
        let result = Self.result(count: 1, seconds: 1, width: nil, blocks: true)
        #expect(
            result.platformDifference.hasPrefix(
                "The linux model predicts 2.00 s with at most 1 at once, the Apple one 1.00 s with at most 2 at once, because corelibs' BlockOperation runs its blocks one after another, Apple's side by side"
            ), "\(result.platformDifference)")
    }

    @Test func aSerialQueueDiffersInNothingAndTheNoteSaysSo() {
        let result = Self.result(count: 3, seconds: 1, width: 1)
        #expect(!result.differsFromArticlePlatform)
        #expect(
            result.platformDifference == "None the models see in this code: both predict 3.00 s with at most 1 at once."
        )
        #expect(
            ExperimentSection(result).notes.contains { $0.kind == .platformDifference },
            "a learner is told there is none")
    }

    @Test func anExperimentsOwnSentenceIsKept() {
        var result = Self.result(count: 7, seconds: 2, width: nil)
        result.experiment.platformDifference = "The article's own reason."
        #expect(result.platformDifference == "The article's own reason.")
    }
}
