import ExperimentKit
import ExperimentModel
import ExperimentResults

extension ExperimentResult {
    /// This result, judged `unmodelled` when its plan names constructs the model leaves out
    /// (`Workload.unmodelled`, and for a learner's code those its file makes that the
    /// rehearsal cannot see, `Experiment.unseenConstructs`) and it passed, failed or was
    /// predicted: a prediction without them says nothing either way, and its checks, which hold
    /// the run to that prediction, are dropped. A learner's run that does what the plan does
    /// not have (an add, a sleep) is judged so too, with what it did as the reason when nothing
    /// was named. An error (a trap, a hang) stays one, but for a learner's run that hung where
    /// the plan names what it cannot tell: the hang is its named construct's.
    package func unmodelledIfSo() -> ExperimentResult {
        // Each construct once, where the code first makes it.
        var constructs: [UnmodelledConstruct] = []
        for construct in prediction.workload.unmodelled + experiment.unseenConstructs
        where !constructs.contains(where: { $0.construct == construct.construct }) {
            constructs.append(construct)
        }
        let unplanned = experiment.isLearners ? measurement?.modelOutOfDate ?? [] : []
        let hung =
            if case .hung = childEnding, experiment.isLearners, experiment.expectedEnding != .hangs, !constructs.isEmpty
            { true } else { false }
        guard !constructs.isEmpty || !unplanned.isEmpty, [.pass, .fail, .predicted].contains(verdict) || hung else {
            return self
        }
        var result = self
        result.verdict = .unmodelled
        result.checks = []
        result.reason =
            constructs.isEmpty
            ? "the run did what the plan does not have: " + unplanned.joined(separator: "; ")
            : "the plan leaves out what the code does: " + constructs.map(\.sentence).joined(separator: "; ")
        if hung, let reason = self.reason { result.reason! += " (\(reason))" }
        return result
    }

    /// Judges what a child reported against the prediction and the experiment's declared ending.
    ///
    /// A declared hang or trap that happens is judged like a return, on the timeline recorded up
    /// to that moment (without the total, which is the watchdog's or the trap's moment); one that
    /// does not happen fails. An undeclared hang, trap or failure is an `error`.
    ///
    /// CPU work the child timed where it ran replaces the costs `prediction` and
    /// `applePrediction` were made with: both are predicted again from the child's figures, and
    /// the Linux one from the pool monitor's phase the child measured (`Prediction.remade(for:)`).
    package static func judging(
        _ report: ChildProcess.Report, of experiment: Experiment, prediction planned: Prediction,
        applePrediction plannedApple: Prediction
    ) -> ExperimentResult {
        let judge = Judge(report, of: experiment, prediction: planned, applePrediction: plannedApple)
        // A prediction of other code than what ran says nothing about the run: drift is the
        // reason, whatever the timing did.
        // A learner's code is not held to a plan it outgrew: what it did is named instead
        // (``unmodelledIfSo()``).
        if let measurement = judge.report.measurement, !measurement.modelOutOfDate.isEmpty, !experiment.isLearners {
            return judge.result(
                .fail, checks: measurement.modelOutOfDate.map { Check("model out of date: \($0)", passed: false) })
        }
        let detail = judge.report.diagnosticLine.map { ": " + $0 } ?? ""
        switch (experiment.expectedEnding, report.ending) {
        case (.returns, .returned):
            return judge.judged(includeTotal: true, ending: nil)
        case (.hangs, .hung(let seconds)):
            // A learner's hang is the plan's (``Runner/endingAsPlanned(_:predicted:)``): named with what never finished.
            let running = judge.stillRunning.dropFirst(2)
            let demonstrated =
                !experiment.isLearners
                ? "as this experiment demonstrates"
                : running.isEmpty ? "as its plan predicts" : "as its plan predicts (\(running))"
            return judge.judged(
                includeTotal: false,
                ending: Check(
                    "the child hung, \(demonstrated), and was stopped by the watchdog after \(Format.seconds(seconds, digits: 1))",
                    passed: true
                ))
        case (.traps(let text), .trapped(let signal)):
            return judge.judged(
                includeTotal: false,
                ending: Check(
                    "the child trapped (signal \(signal)), as this experiment demonstrates\(detail)",
                    passed: report.diagnostics.contains(text)
                ))
        case (.hangs, .returned), (.traps, .returned):
            return judge.failure(
                .fail,
                "expected the child to \(experiment.expectedEnding == .hangs ? "hang" : "trap"), but the experiment returned"
            )
        case (_, .hung(let seconds)):
            return judge.failure(
                .error,
                "hung: no result after \(Format.seconds(seconds, digits: 1)) (watchdog), child stopped"
                    + judge.stillRunning)
        case (_, .trapped(let signal)):
            return judge.failure(.error, "trapped: the child was killed by signal \(signal)\(detail)")
        case (_, .exited(let status)):
            return judge.failure(.error, "the child exited with status \(status)\(detail)")
        case (_, .unreadable):
            return judge.failure(.error, "the child exited without reporting the experiment's end")
        case (_, .interrupted(let signal)):
            return judge.failure(.error, "interrupted by signal \(signal): the child was stopped")
        }
    }
}

/// What a verdict is made from: the child's report, and both predictions made again from what
/// the child measured.
private struct Judge {
    let experiment: Experiment
    let report: ChildProcess.Report
    /// The run as recorded, or an empty one when nothing was.
    let measurement: MeasuredRun
    let prediction: Prediction
    let applePrediction: Prediction

    init(
        _ report: ChildProcess.Report, of experiment: Experiment, prediction planned: Prediction,
        applePrediction plannedApple: Prediction
    ) {
        self.report = report
        self.experiment = experiment
        measurement =
            report.measurement
            ?? MeasuredRun(totalSeconds: 0, enqueueSeconds: nil, operations: [], output: [], outcome: Outcome())
        prediction = planned.remade(for: measurement)
        applePrediction = plannedApple.remade(for: measurement)
    }

    /// The run held to the prediction (with its total, when it returned), the ending's own
    /// check, and the experiment's checks.
    func judged(includeTotal: Bool, ending: Check?) -> ExperimentResult {
        let timed = experiment.timing == .predicted
        let checks =
            (timed ? TimingChecks.checks(measurement, against: prediction, includeTotal: includeTotal) : [])
            + (ending.map { [$0] } ?? [])
            + experiment.checks(measurement, prediction)
        return result(checks.contains { !$0.passed } ? .fail : .pass, checks: checks)
    }

    /// A verdict with `checks`, the first failed one its reason.
    func result(_ verdict: Verdict, checks: [Check]) -> ExperimentResult {
        ExperimentResult(
            experiment: experiment, prediction: prediction, applePrediction: applePrediction,
            measurement: measurement, verdict: verdict, reason: checks.first { !$0.passed }?.description,
            checks: checks,
            childEnding: report.ending
        )
    }

    /// In a learner's run the watchdog stopped, the work still running then, each with the line
    /// that added it when the plan has one: `; still running: 'work' at Probe.swift:28`.
    var stillRunning: String {
        guard experiment.isLearners else { return "" }
        let running = measurement.locatingOperations(in: prediction.workload).operations.filter { !$0.finished }
        guard !running.isEmpty else { return "" }
        return "; still running: "
            + running.map { "'\($0.label)'" + ($0.line.map { " at \($0.named)" } ?? "") }.joined(separator: ", ")
    }

    /// A verdict with no checks, for a run that ended otherwise than it should have.
    func failure(_ verdict: Verdict, _ reason: String) -> ExperimentResult {
        ExperimentResult(
            experiment: experiment, prediction: prediction, applePrediction: applePrediction,
            measurement: report.measurement, verdict: verdict, reason: reason, checks: [],
            childEnding: report.ending
        )
    }
}
