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
        (includeTotal ? [totalCheck(measurement, prediction, tolerance)] : [])
            + [startsCheck(measurement, prediction, tolerance), overlapCheck(measurement, prediction, tolerance)]
    }

    /// The total within the predicted range, widened by the tolerance.
    static func totalCheck(_ measurement: MeasuredRun, _ prediction: Prediction, _ tolerance: Tolerance) -> Check {
        let totalBounds = tolerance.widen(prediction.totalRange)
        return Check(
            "total \(placed(measurement.totalSeconds, in: totalBounds)) (model \(Format.range(prediction.totalRange)) \(tolerance.description))",
            passed: totalBounds.contains(measurement.totalSeconds))
    }

    /// Every operation ran, or not, as predicted, and started inside its predicted window.
    static func startsCheck(_ measurement: MeasuredRun, _ prediction: Prediction, _ tolerance: Tolerance) -> Check {
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
        return Check(
            misplaced.isEmpty
                ? "every operation ran (or not) as predicted and started inside its predicted window"
                : misplaced.joined(separator: "; "),
            passed: misplaced.isEmpty)
    }

    /// As many ran at once as predicted (``overlapForgivingLateStarts(_:_:_:)`` for the fewest).
    static func overlapCheck(_ measurement: MeasuredRun, _ prediction: Prediction, _ tolerance: Tolerance) -> Check {
        let overlap = measurement.maximumOverlap(of: prediction.workload)
        let predicted = prediction.maximumOverlapRange
        let predictedText =
            predicted.lowerBound == predicted.upperBound
            ? "\(predicted.lowerBound)" : "\(predicted.lowerBound)–\(predicted.upperBound)"
        if predicted.contains(overlap) {
            return Check("at most \(overlap) ran at once (predicted \(predictedText))", passed: true)
        }
        let forgiven =
            overlap < predicted.lowerBound ? overlapForgivingLateStarts(measurement, prediction, tolerance) : overlap
        guard predicted.contains(forgiven) else {
            return Check("at most \(overlap) ran at once, not the \(predictedText) predicted", passed: false)
        }
        return Check(
            "at most \(overlap) ran at once, \(forgiven) with each start late inside its window counted at its predicted instant (predicted \(predictedText))",
            passed: true)
    }

    /// How many ran at once with every start that came after its predicted range, yet inside
    /// the window the start check accepts, moved back to the range's end: the lateness the
    /// tolerance forgives a start, forgiven the operations it kept apart (two 12.5 ms operations
    /// meant to run together miss each other when a busy machine wakes one 13 ms late). Only
    /// the fewest at once are read so: a start moved earlier can only add overlap.
    static func overlapForgivingLateStarts(_ measurement: MeasuredRun, _ prediction: Prediction, _ tolerance: Tolerance)
        -> Int
    {
        let intervals = prediction.workload.operations.enumerated().compactMap {
            (index, planned) -> (start: Double, end: Double)? in
            guard !planned.isInstant, let span = measurement.span(planned.label) else { return nil }
            guard let range = prediction.startRange(index), span.start > range.upperBound,
                tolerance.widen(range).contains(span.start)
            else { return (span.start, span.end) }
            return (range.upperBound, span.end)
        }
        return Overlap.maximum(of: intervals)
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
