import ExperimentKit
import Foundation

/// A timeline row that shows how long something lasted without being one of the plan's
/// operations (a GroupOperation started with `start()` on the experiment's own thread, which
/// only waits for its queue). Outside a running lab, it is just `body()`.
func detailRow(_ label: String, _ body: () -> Void) {
    guard let lab = Lab.current, lab.mode == .running else { return body() }
    lab.context.timeline.operation(label, body)
}
