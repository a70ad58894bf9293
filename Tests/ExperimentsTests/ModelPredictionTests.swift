import ExperimentKit
import ExperimentModel
import ExperimentResults
import TestSupport
import Testing

@testable import Experiments

/// The model's predictions for each registered experiment against timelines computed by hand,
/// on both profiles at scales 1 and 0.1. Apple's must reproduce the articles' figures.
@Suite(.serialized, .oneAtATime) struct ModelPredictionTests: TwoCPUProfiles {

    func predict(_ experiment: Experiment, _ profile: PlatformProfile, _ scale: Double) -> Prediction {
        Scheduler.predict(experiment.workload(), profile: profile, timeScale: scale)
    }

    func rounded(_ values: [Double]) -> [Double] {
        values.map(toTheMillisecond)
    }

    func nominalStarts(_ prediction: Prediction) -> [Double] {
        rounded(prediction.nominal.spans.map { $0!.start })
    }

    @Test(arguments: [1.0, 0.1])
    func appleReproducesEveryArticleFigure(scale: Double) {
        for experiment in articleExperiments {
            guard let article = experiment.claim.seconds, experiment.claim.unreachableBecause == nil else { continue }
            let prediction = predict(experiment, Self.apple, scale)
            // Sleeps alone give the figure exactly; real CPU work (the image filters) adds its
            // milliseconds, as the article's "a little more than" does: within the tolerance.
            #expect(
                Tolerance.standard.widen(prediction.totalRange).contains(article * scale),
                "\(experiment.name): \(prediction.total) vs \(article * scale)")
            #expect(
                prediction.total >= article * scale - 1e-9, "\(experiment.name): never less than the article's sleeps")
        }
    }

    @Test func concurrentPrinterQueueOnLinux() {
        // Scale 1: two workers, then one per tick (0.97 s, 1.97 s), two freed at 2 s, the 7th at the tick of 2.97 s.
        let full = predict(concurrentPrinterQueue, Self.linux, 1)
        #expect(nominalStarts(full) == [0, 0, 0.97, 1.97, 2, 2, 2.97])
        #expect(rounded([full.totalRange.lowerBound, full.totalRange.upperBound]) == [4.97, 4.97])
        // Scale 0.1: 0.2 s sleeps in pairs end at 0.8 s, before the first tick.
        let tenth = predict(concurrentPrinterQueue, Self.linux, 0.1)
        #expect(nominalStarts(tenth) == [0, 0, 0.2, 0.2, 0.4, 0.4, 0.6])
        #expect(abs(tenth.total - 0.8) < 1e-9)
    }

    @Test(arguments: [1.0, 0.1])
    func widthTwoRunsInPairs(scale: Double) {
        for profile in [Self.linux, Self.apple] {
            let prediction = predict(printerQueueMaxTwo, profile, scale)
            #expect(nominalStarts(prediction) == rounded([0, 0, 2, 2, 4, 4, 6].map { $0 * scale }))
            #expect(abs(prediction.total - 8 * scale) < 1e-9)
        }
    }

    @Test(arguments: [1.0, 0.1])
    func userInitiatedTakesTheFirstFreeSlot(scale: Double) {
        for profile in [Self.linux, Self.apple] {
            // Words 1–2 at 0; at 2 s the concatenation (added 8th) and word 3; then pairs.
            let prediction = predict(qosOrdering, profile, scale)
            #expect(nominalStarts(prediction) == rounded([0, 0, 2, 4, 4, 6, 6, 2].map { $0 * scale }))
        }
    }

    @Test(arguments: [1.0, 0.1])
    func serialQueueIgnoresPriority(scale: Double) {
        let prediction = predict(serialQueue, Self.linux, scale)
        #expect(nominalStarts(prediction) == rounded((0..<8).map { Double($0) * 2 * scale }))
        #expect(abs(prediction.total - 16 * scale) < 1e-9)
    }

    @Test(arguments: [1.0, 0.1])
    func blockOperationBlocks(scale: Double) {
        let linux = predict(blockOperationMultiPrinter, Self.linux, scale)
        #expect(nominalStarts(linux) == rounded((0...7).map { Double($0) * 2 * scale }))
        #expect(abs(linux.total - 14 * scale) < 1e-9)
        let apple = predict(blockOperationMultiPrinter, Self.apple, scale)
        #expect(nominalStarts(apple) == rounded(Array(repeating: 0, count: 7) + [2 * scale]))
    }
}

/// What every registered experiment must declare.
@Suite(.serialized, .oneAtATime) struct RegistryTests {
    @Test func namesAreUniqueKebabCase() {
        let names = articleExperiments.map(\.name)
        #expect(Set(names).count == names.count)
        for name in names {
            #expect(name.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" }, "\(name)")
        }
    }

    @Test func everyExperimentIsDescribedAndItsLabelsAreUnique() {
        for experiment in articleExperiments {
            #expect(!experiment.title.isEmpty && !experiment.summary.isEmpty && !experiment.expectedOutcome.isEmpty)
            // No words of the article's is nil, never an empty quote.
            #expect(experiment.claim.quote?.isEmpty != true && !experiment.platformDifference.isEmpty)
            #expect(experiment.source.file.hasSuffix(".txt"))
            let labels = experiment.workload().operations.map(\.label)
            #expect(Set(labels).count == labels.count, "\(experiment.name): labels identify timeline rows")
        }
    }
}
