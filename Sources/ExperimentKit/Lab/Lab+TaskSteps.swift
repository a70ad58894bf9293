// A learner's task whose body both blocks (`sleep`) and suspends (`Task.sleep`): a chain of steps.

import ExperimentModel
import Foundation

/// The steps of a planned task whose body both blocks and suspends, as a run follows them: each
/// sleep or `Task.sleep` of the body is the next step's row, compared with the plan's.
///
/// `@unchecked Sendable`: `lab` and `steps` are constants; `next` is read and written only
/// while `lock` is held.
final class TaskSteps: @unchecked Sendable {
    private let lock = NSLock()
    private let lab: Lab
    private let steps: [Int]
    private var next = 0

    init(lab: Lab, steps: [Int]) {
        self.lab = lab
        self.steps = steps
    }

    /// A wait of the body begins (`holdsAThread`: a `sleep`; else a `Task.sleep`): the next
    /// step's row, begun now; nil (drift) when the plan has no such step.
    func begin(holdsAThread: Bool, articleSeconds: Double) -> Timeline.OpenSpan? {
        guard let plan = lab.plan else { return nil }
        let index: Int? = lock.withLock {
            defer { next += 1 }
            return steps[safe: next]
        }
        guard let index else {
            lab.drift("a task made a wait its plan's chain of steps does not have")
            return nil
        }
        let planned = plan.operations[index]
        if (planned.work == .timer) == holdsAThread {
            lab.drift(
                "'\(planned.label)' \(holdsAThread ? "blocked in sleep" : "suspended in Task.sleep"), the plan says otherwise"
            )
        }
        lab.compareSleeps(articleSeconds, with: planned, cancelled: { Task.isCancelled })
        return lab.context.timeline.begin(planned.label)
    }

    /// The body ended: a step it never made is drift.
    func ended() {
        guard let plan = lab.plan else { return }
        let left = lock.withLock { steps.dropFirst(next) }
        for index in left {
            lab.drift("'\(plan.operations[index].label)' is in the plan, but the task never made that wait")
        }
    }
}

extension Lab {
    /// Run: the steps of the planned task whose body runs here.
    @TaskLocal static var taskSteps: TaskSteps?

    /// Rehearsal: a task whose body both blocks and suspends, planned as a chain of steps on the
    /// cooperative pool `pool`, one per wait in the order the body made them, each after the one
    /// before: a `sleep` holds a thread of the pool for its seconds, a `Task.sleep` is a timer
    /// that holds none. The first step is named by what the body printed, the others by it and
    /// their wait. Returns the steps. Called with `lock` held.
    func planSteps(_ work: RecordedWork, named name: String, pool: Int) -> [Int] {
        let waits = work.waits
        var steps: [Int] = []
        for (number, wait) in waits.enumerated() {
            let label = "\(name): \(wait.holdsAThread ? "sleep" : "Task.sleep") \(Format.seconds(wait.articleSeconds))"
            // The body's leaves and signals are the last step's, at its end or partway through.
            let index = addPlanned(
                Operation(), label: number == 0 ? name : label, work: number == waits.count - 1 ? work : RecordedWork(),
                executor: .queue(pool), dependencies: steps.last.map { [$0] } ?? [])
            workload.operations[index].modelledWork =
                wait.holdsAThread
                ? ModelledWork(articleSeconds: wait.articleSeconds)
                : ModelledWork(articleSeconds: wait.articleSeconds, work: .timer)
            steps.append(index)
        }
        return steps
    }

    /// Run: the planned task's body, its waits followed as the steps `steps`.
    func performSteps<Success>(_ steps: [Int], _ body: () async throws -> Success) async rethrows -> Success {
        let follower = TaskSteps(lab: self, steps: steps)
        defer { follower.ended() }
        return try await Lab.$work.withValue(RecordedWork()) {
            try await Lab.$taskSteps.withValue(follower) { try await body() }
        }
    }
}
