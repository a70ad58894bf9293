import ExperimentKit
import ExperimentModel
import ExperimentResults
import ExperimentRunner
import TestSupport
import Testing

@testable import Experiments

/// The model on cases nobody tuned it for: for each experiment with parameters, a few values
/// drawn at random within its ranges (seeded, so a failure can be replayed), run for real. The
/// measured timeline must fall within the predicted bounds and the outcome must match — the
/// verdict's own checks. Where a tick or a cancel meets a completion, the prediction covers
/// both branches, so no draw is skipped for racing.
extension TimedRuns {
    @Suite struct ParameterDraws {
        static let scale = 0.05
        /// Draws whose predicted run is longer than this (real seconds) are drawn again, to keep
        /// the suite fast; the prediction is the model's, so this filters by length, not by outcome.
        /// (A lower limit would save suite time but leave the longer combinations untried:
        /// coverage is not traded for suite time.)
        static let longestRun = 0.8

        static func draw(_ spec: ParameterSpec, using generator: inout SeededGenerator) -> String {
            switch spec.kind {
            case .seconds(let range):
                let value = Double.random(in: range, using: &generator)
                return ((value * 20).rounded() / 20).decimalText
            case .count(let range):
                return String(Int.random(in: range, using: &generator))
            case .width:
                return ["default", "1", "2", "3", "4"].randomElement(using: &generator)!
            case .serviceClass:
                return ServiceClass.allCases.randomElement(using: &generator)!.rawValue
            }
        }

        static var parameterised: [Experiment] {
            articleExperiments.filter { !$0.parameters.isEmpty }
        }

        @Test(arguments: parameterised.map(\.name))
        func randomValuesAgreeWithThePrediction(name: String) throws {
            let experiment = try #require(articleExperiments.first { $0.name == name })
            var generator = SeededGenerator(
                seed: UInt64(truncatingIfNeeded: name.utf8.reduce(5381) { $0 &* 33 &+ Int($1) }))
            var tried = 0
            for _ in 0..<2 {
                var runner: Runner
                var predicted: Runner.Predictions
                repeat {
                    let settings = Dictionary(
                        uniqueKeysWithValues: experiment.parameters.map { ($0.key, Self.draw($0, using: &generator)) })
                    runner = Runner(
                        executable: BuiltBinary.url, timeScale: Self.scale, profile: .linux,
                        settings: try ParameterSettings(settings, for: [experiment]))
                    predicted = runner.predictions(experiment)
                    tried += 1
                } while Tolerance.standard.widen(predicted.chosen.totalRange).upperBound > Self.longestRun
                    && tried < 200
                // The run is judged against the predictions the draw was kept for, not made again.
                let result = runner.result(of: experiment, predicted: predicted)
                #expect(
                    result.verdict == .pass, "\(name) \(runner.parameters(experiment).values): \(result.reason ?? "")")
            }
        }
    }
}
