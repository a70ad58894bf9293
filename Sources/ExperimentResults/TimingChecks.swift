import ExperimentKit
import ExperimentModel
import Foundation

/// The timing and structure checks every experiment gets from its prediction.
package enum TimingChecks {
    /// The total (unless the run was stopped, so its total is the stop's), every operation's
    /// start, and how many ran at once, against the prediction.
    package static func checks(
        _ measurement: MeasuredRun, against prediction: Prediction, includeTotal: Bool = true,
        tolerance: Tolerance = .standard
    ) -> [Check] {
        var checks: [Check] = []
        if includeTotal {
            let totalBounds = tolerance.widen(prediction.totalRange)
            checks.append(
                Check(
                    "total \(placed(measurement.totalSeconds, in: totalBounds)) (model \(Format.range(prediction.totalRange)) \(tolerance.description))",
                    passed: totalBounds.contains(measurement.totalSeconds)
                ))
        }

        var misplaced: [String] = []
        for (index, planned) in prediction.workload.operations.enumerated() {
            let span = measurement.span(planned.label)
            switch (prediction.workRuns(index), span) {
            case ([false], let span?):
                misplaced.append("'\(planned.label)' ran at \(Format.seconds(span.start)), predicted never to run")
            case ([true], nil):
                misplaced.append("'\(planned.label)' never ran")
            case (_, let span?):
                let range = prediction.startRange(index)!
                let window = tolerance.widen(range)
                if !window.contains(span.start) {
                    misplaced.append(
                        "'\(planned.label)' started at \(placed(span.start, in: window)) (predicted \(Format.range(range)))"
                    )
                }
            default:
                break
            }
        }
        checks.append(
            Check(
                misplaced.isEmpty
                    ? "every operation ran (or not) as predicted and started inside its predicted window"
                    : misplaced.joined(separator: "; "),
                passed: misplaced.isEmpty
            ))

        let overlap = measurement.maximumOverlap(of: prediction.workload)
        let predicted = prediction.maximumOverlapRange
        let predictedText =
            predicted.lowerBound == predicted.upperBound
            ? "\(predicted.lowerBound)" : "\(predicted.lowerBound)–\(predicted.upperBound)"
        checks.append(
            predicted.contains(overlap)
                ? Check("at most \(overlap) ran at once (predicted \(predictedText))", passed: true)
                : Check("at most \(overlap) ran at once, not the \(predictedText) predicted", passed: false))
        return checks
    }

    /// `0.31 s within 0.25–0.39 s`, or `0.43 s outside 0.25–0.39 s`: a failure reads as one. A
    /// figure just past a bound gets a third or fourth digit, so it never prints as the bound
    /// it crossed.
    static func placed(_ value: Double, in bounds: ClosedRange<Double>) -> String {
        let inside = bounds.contains(value)
        var digits = 2
        while !inside, digits < 4,
            [bounds.lowerBound, bounds.upperBound].contains(where: {
                Format.seconds($0, digits: digits) == Format.seconds(value, digits: digits)
            })
        {
            digits += 1
        }
        return
            "\(Format.seconds(value, digits: digits)) \(inside ? "within" : "outside") \(Format.range(bounds, digits: digits))"
    }
}
