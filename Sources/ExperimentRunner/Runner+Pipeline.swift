import ExperimentKit
import ExperimentResults
import Foundation

/// A run of many experiments as a pipeline: the next child prepares while one runs.
extension Runner {
    /// Runs `experiments` in order, each `repeats` times in its own child, telling progress (what
    /// runs, the time it is expected to take, the time left for the run) to `progress`.
    /// `finished` sees each experiment's result, its repeats combined, once complete (to place
    /// its files and print it) and may change it. When `stops` says so after a child, the run
    /// ends there: the experiments with every repeat finished are returned, then, if the
    /// repetition of the next was cut short, a result of its runs that finished
    /// (`ExperimentResult.isCutShort`).
    ///
    /// While a child runs, the next one (the next repeat, or the next experiment) is started to
    /// prepare and wait for its go (`prepares(_:beside:)`), so its start costs the run nothing;
    /// beside an experiment with CPU work, once that one has ended, while it is judged.
    /// Where its run leaves room before the pool monitor's first tick (`primesAhead(_:)`), it
    /// is also told to touch the pool a settle before the running one is expected to end, so
    /// it settles meanwhile; the ended one is then judged before the go. One whose turn never
    /// comes (an interrupt, the run's end) is killed and reaped. Otherwise a child that ended is
    /// judged once the next has been told to go, while that one touches the pool and settles (a
    /// millisecond or two of the 30 ms), unless either has CPU work: the next one's timed work,
    /// or the judging's own, could then run beside each other.
    package func run(
        _ experiments: [Experiment], repeats: Int, stops: () -> Bool, progress: (String) -> Void,
        finished: (inout ExperimentResult, _ position: Int) -> Void
    ) -> [ExperimentResult] {
        // Every plan is read before any clock starts: a rehearsal that traps or hangs costs its
        // plan child, never a run's timing. An interrupt meanwhile ends the run before any runs.
        let predicted = predictions(experiments)
        let experiments = zip(experiments, predicted).map { Self.endingAsPlanned($0, predicted: $1) }
        if Interruption.shared.signal != nil { return [] }
        let pipeline = Pipeline(runner: self, experiments: experiments, predicted: predicted, repeats: repeats)
        defer {
            pipeline.prepared?.abandon()
            pipeline.lastChild?.waitUntilEnded()
        }
        for turn in pipeline.turns.indices {
            if runsExperiments { progress(pipeline.progressLine(turn)) }
            pipeline.run(turn, finished: finished)
            if stops() {
                pipeline.stop(after: turn, finished: finished)
                return pipeline.results
            }
        }
        pipeline.judgeUnjudged(finished: finished)
        return pipeline.results
    }

    /// The children of one run, one turn after another: the child prepared ahead, the child
    /// ended and not yet judged, the runs of the experiment under way, and the results.
    /// (A class: the child prepared ahead is set by the running child's callbacks.)
    private final class Pipeline {
        let runner: Runner
        let experiments: [Experiment]
        let predicted: [Predictions]
        let repeats: Int
        let runsPerExperiment: Int
        /// Each child's turn: which experiment, and which of its runs.
        let turns: [(index: Int, run: Int)]
        var prepared: ChildProcess.Child?
        /// The child that ran last, whose lineage the next go (or the run's end) waits to see ended.
        private(set) var lastChild: ChildProcess.Child?
        private(set) var results: [ExperimentResult] = []
        private var runs: [ExperimentResult] = []
        /// The last turn's child, ended, to judge; how long judging the last one without CPU work
        /// took (only such an experiment runs beside a child started ahead, ``Runner/prepares(_:beside:)``).
        private var unjudged: (turn: Int, ran: Ran)?
        private var judging = 0.0

        init(runner: Runner, experiments: [Experiment], predicted: [Predictions], repeats: Int) {
            self.runner = runner
            self.experiments = experiments
            self.predicted = predicted
            self.repeats = repeats
            runsPerExperiment = runner.runsExperiments ? repeats : 1
            turns = experiments.indices.flatMap { [runsPerExperiment] index in
                (1...runsPerExperiment).map { (index: index, run: $0) }
            }
        }

        /// `[3/54] serial-queue · expected 16.0 s · about 80 s left for the run`.
        func progressLine(_ turn: Int) -> String {
            let (index, run) = turns[turn]
            let expected = predicted.map(\.chosen.total)
            // The figure shown leaves out CPU work that is measured only when it runs: say so, as `list` does.
            let cpuWork = predicted[index].chosen.leavesOutCPUWork ? " + CPU work" : ""
            let left = expected[index...].reduce(0, +) * Double(repeats) - expected[index] * Double(run - 1)
            let repetition = repeats > 1 ? " (run \(run)/\(repeats))" : ""
            // A plan that leaves out what the code does (what the rehearsal named, or what only
            // the learner's file text shows) predicts nothing to show: no figure.
            let leavesOut =
                !predicted[index].chosen.workload.unmodelled.isEmpty || !experiments[index].unseenConstructs.isEmpty
            let expectation =
                predicted[index].planFailure != nil
                ? "no plan, not run"
                : leavesOut
                    ? "unmodelled, no prediction" : "expected \(Format.seconds(expected[index], digits: 1))\(cpuWork)"
            return
                "[\(index + 1)/\(experiments.count)] \(experiments[index].name)\(repetition) · \(expectation) · about \(Format.seconds(left, digits: 0)) left for the run"
        }

        /// Runs the turn's child (the one prepared ahead, if any), starting the next one ahead
        /// once its clock has started and priming it near its end where that fits.
        func run(_ turn: Int, finished: (inout ExperimentResult, Int) -> Void) {
            let index = turns[turn].index
            // Judging an experiment with CPU work predicts it again with what that work cost, which
            // takes CPU time of its own: done before the next child goes, not beside it.
            if predicted[index].chosen.leavesOutCPUWork
                || unjudged.map({ predicted[turns[$0.turn].index].chosen.leavesOutCPUWork }) == true
            {
                judgeUnjudged(finished: finished)
            }
            let next = turn + 1 < turns.count ? turns[turn + 1].index : nil
            let child = prepared
            prepared = nil
            let current = (experiments[index], predicted[index])
            let priming = next.flatMap {
                runner.primingSeconds(during: current, before: (experiments[$0], predicted[$0]), judging: judging)
            }
            let ran = runner.running(
                experiments[index], predicted: predicted[index], prepared: child, previous: lastChild,
                judgePrevious: { self.judgeUnjudged(finished: finished) },
                whenClockStarted: {
                    if self.runner.runsExperiments, let next,
                        Runner.prepares((self.experiments[next], self.predicted[next]), beside: self.predicted[index])
                    {
                        self.prepared = self.runner.start(
                            self.experiments[next], predicted: self.predicted[next], ahead: true)
                    }
                },
                nearItsEnd: priming.map { ($0, { self.prepared?.prime() }) }
            )
            unjudged = (turn, ran)
            lastChild = ran.child ?? lastChild
            // The child after one with CPU work, not started beside it (its work is timed where
            // it runs), starts once that one has ended: it prepares while that one is judged.
            if prepared == nil, runner.runsExperiments, ran.child != nil, let next,
                Runner.preparesAhead((experiments[next], predicted[next]))
            {
                prepared = runner.start(experiments[next], predicted: predicted[next], ahead: true)
            }
        }

        /// The run stops after `turn`: its child counts if it ended before the stop came, and the
        /// runs of the experiment cut short that finished are its result.
        func stop(after turn: Int, finished: (inout ExperimentResult, Int) -> Void) {
            if case .interrupted = unjudged?.ran.report?.ending { unjudged = nil }
            judgeUnjudged(finished: finished)
            if !runs.isEmpty { finishRuns(of: turns[turn].index, finished: finished) }
        }

        /// Judges the child that ended last, and finishes its experiment after its last run.
        func judgeUnjudged(finished: (inout ExperimentResult, Int) -> Void) {
            guard let (turn, ran) = unjudged else { return }
            unjudged = nil
            let (index, run) = turns[turn]
            let started = DispatchTime.now()
            defer {
                if !predicted[index].chosen.leavesOutCPUWork {
                    judging = DispatchTime.now().seconds(since: started)
                }
            }
            runs.append(runner.judged(ran, of: experiments[index], predicted: predicted[index]))
            if run == runsPerExperiment { finishRuns(of: index, finished: finished) }
        }

        /// The experiment's runs combined into its result, handed to `finished`, and kept.
        private func finishRuns(of index: Int, finished: (inout ExperimentResult, Int) -> Void) {
            var result = ExperimentResult.repeated(runs, of: runsPerExperiment)
            runs = []
            finished(&result, index + 1)
            results.append(result)
        }
    }
}
