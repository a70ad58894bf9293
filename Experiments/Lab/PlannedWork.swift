import ExperimentKit
import Foundation

extension Operation {
    /// The work of an article's Operation subclass (not the instrumented `BlockOperation`), run
    /// in a lab as the planned operation it is: one timeline row under the plan's label, its
    /// `print`s and `sleep`s recorded and its sleeps compared with what the class declared
    /// (``ModelledOperation``). Outside a lab, or not queued, it is just `work()`.
    func performAsPlanned(_ work: () -> Void) {
        guard let lab = Lab.current, let planned = lab.plannedIndex(ofQueued: self) else { return work() }
        lab.perform(planned, cancelled: { isCancelled }, work)
    }
}

/// A timeline row that shows how long something lasted without being one of the plan's
/// operations (a GroupOperation started with `start()` on the experiment's own thread, which
/// only waits for its queue). Outside a running lab, it is just `body()`.
func detailRow(_ label: String, _ body: () -> Void) {
    guard let lab = Lab.current, lab.mode == .running else { return body() }
    lab.context.timeline.operation(label, body)
}
