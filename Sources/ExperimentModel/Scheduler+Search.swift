// The search through the races: the prediction's branches, each state's subtree explored once.

extension Scheduler {
    /// The prediction, and how many stretches of simulation the search ran to make it (each
    /// from a start or a split to the next split or the end; a remembered state runs none):
    /// the search's work, whatever the machine's speed.
    static func searching(
        _ workload: Workload, profile: PlatformProfile, timeScale: Double, mergingEqualStates: Bool
    ) -> (prediction: Prediction, simulations: Int) {
        var search = Search(budget: maximumBranches, merging: mergingEqualStates)
        // When the first worker wakes, against the experiment's adds, is a race of microseconds:
        // the model follows every case, workers taking items only after the last add (nominal,
        // as on an idle machine), after every add (as when a worker is already awake), or from
        // any add in between on (as when the adding thread is preempted on a loaded machine).
        let adds = max(1, workload.operations.count)
        let timelines = ([adds] + Array(1..<adds)).flatMap { firstWake in
            var simulation = Simulation(workload: workload, profile: profile, timeScale: timeScale)
            simulation.addOperationsInOrder(workersWakeAfterAdd: firstWake)
            return search.explore(simulation).timelines
        }
        var distinct: [PredictedTimeline] = []
        for timeline in timelines where !distinct.contains(timeline) {
            distinct.append(timeline)
        }
        return (
            Prediction(
                workload: workload, profile: profile, timeScale: timeScale, nominal: distinct[0], branches: distinct),
            search.simulations
        )
    }

    /// The search through the races: runs a simulation to its end, splitting it where two
    /// events that affect each other fall within their window, at most `budget` times.
    ///
    /// Races that do not affect each other's outcome lead different branches back into one
    /// state (a tick that adds no worker either way, a completion on another queue than the
    /// one suspended): from there the branches unfold alike, so each state's subtree is
    /// explored once and remembered. This is what keeps `table-view-scroll` quick to predict:
    /// its eight queues' short filter steps race the scroll's cancels and suspensions second
    /// after second, and the plain search re-runs the same continuations hundreds of times.
    ///
    /// A remembered subtree is reused only where the plain search would have explored it
    /// alike: it used `splits` of the budget, and the reuse has more than that left (or, if
    /// the budget cut it short, exactly what it had then). So the branches, their order and
    /// the budget's cut-off are those of the plain search.
    private struct Search {
        struct Explored {
            var timelines: [PredictedTimeline]
            var splits: Int
            /// The budget this subtree started with, if the budget ran out inside it.
            var cutAtBudget: Int? = nil

            func reusable(withBudget budget: Int) -> Bool {
                cutAtBudget.map { $0 == budget } ?? (budget > splits)
            }
        }

        var budget: Int
        let merging: Bool
        var explored: [Simulation: Explored] = [:]
        /// How many times ``explore(_:)`` ran a simulation (rather than reusing a remembered state).
        var simulations = 0

        init(budget: Int, merging: Bool) {
            self.budget = budget
            self.merging = merging
        }

        /// The timelines from `start` to the end; the nominal branch (events in time order) first.
        mutating func explore(_ start: Simulation) -> Explored {
            if merging, let known = explored[start], known.reusable(withBudget: budget) {
                budget -= known.splits
                return known
            }
            simulations += 1
            let entryBudget = budget
            var simulation = start
            var result: Explored
            var cut = false
            while true {
                simulation.dispatchAndAssign()
                let events = simulation.upcomingEvents()
                guard let first = events.first else {
                    result = Explored(timelines: [simulation.timeline], splits: 0)
                    break
                }
                if let rival = events.dropFirst().first(where: { first.races($0) }) {
                    var inOrder = simulation, reversed = simulation
                    inOrder.process(first)
                    reversed.process(rival)
                    let midLoop = simulation.completionsDuringCancelLoop(first, rival)
                    let orders = [inOrder, reversed] + midLoop
                    // Each order past the first is a split; the orders in the middle of a cancel
                    // loop are followed only while the budget allows them all.
                    let followed = budget > orders.count - 1 ? orders : budget > 1 ? [inOrder, reversed] : []
                    if !followed.isEmpty {
                        budget -= followed.count - 1
                        result = Explored(timelines: [], splits: 0)
                        for order in followed {
                            let branch = explore(order)
                            result.timelines += branch.timelines
                            cut = cut || branch.cutAtBudget != nil
                        }
                        cut = cut || followed.count < orders.count
                        break
                    }
                    cut = true
                }
                simulation.process(first)
            }
            result.splits = entryBudget - budget
            result.cutAtBudget = cut ? entryBudget : nil
            if merging { explored[start] = result }
            return result
        }
    }
}
