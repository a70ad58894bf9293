// A learner's task whose body both blocks (`sleep`) and suspends (`Task.sleep`): a chain of steps.

import ExperimentModel
import Foundation

/// The steps of a planned task whose body both blocks and suspends, or starts `async let`
/// children, as a run follows them: each sleep or `Task.sleep` of the body is the next step's
/// row, compared with the plan's; a child's, the next of that child's steps.
///
/// `@unchecked Sendable`: `lab`, `steps` and `body` are constants (`body` an identity compared,
/// never used to reach the task); `next` and `children` are read and written only while `lock`
/// is held.
final class TaskSteps: @unchecked Sendable {
    private let lock = NSLock()
    private let lab: Lab
    private let steps: [Int]
    private var next = 0
    private let body: UnsafeCurrentTask?
    /// The body's `async let` children as planned, each with its task and steps once it is found.
    private var children: [(planned: Workload.Registration.AsyncLetChild, task: UnsafeCurrentTask?, steps: TaskSteps?)]

    /// Made in the task whose body it follows.
    init(lab: Lab, steps: [Int], children: [Workload.Registration.AsyncLetChild] = []) {
        self.lab = lab
        self.steps = steps
        self.children = children.map { ($0, nil, nil) }
        body = children.isEmpty ? nil : withUnsafeCurrentTask(body: { $0 })
    }

    /// The steps of what runs here: the body's, or those of the `async let` child whose task
    /// this is. A child is found by the frame of its `async let` on the stack of its first
    /// call (a return address, compared as it is: no line is looked up while the run is timed),
    /// or, where the plan has none (its children are alike), as the first not yet found.
    func here() -> TaskSteps {
        guard let body, let here = withUnsafeCurrentTask(body: { $0 }), here != body else { return self }
        return lock.withLock {
            if let known = children.first(where: { $0.task == here }), let steps = known.steps { return steps }
            let frames = Set(CallSite.Stack.capture()?.addresses ?? [])
            let free = children.indices.filter { children[$0].task == nil }
            let found =
                free.first { children[$0].planned.frame.map(frames.contains) == true }
                ?? free.first { children[$0].planned.frame == nil } ?? free.first
            let steps = TaskSteps(lab: lab, steps: found.map { children[$0].planned.steps } ?? [])
            if let found { children[found] = (children[found].planned, here, steps) }
            return steps
        }
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

    /// The body ended, and with it every child: a step one of them never made is drift.
    func ended() {
        guard let plan = lab.plan else { return }
        let (left, children) = lock.withLock { (steps.dropFirst(next), self.children) }
        for index in left + children.filter({ $0.steps == nil }).flatMap(\.planned.steps) {
            lab.drift("'\(plan.operations[index].label)' is in the plan, but the task never made that wait")
        }
        for child in children { child.steps?.ended() }
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
    func planSteps(_ work: RecordedWork, named name: String, pool: Int, after: [Int] = []) -> [Int] {
        let waits = work.waits
        var steps: [Int] = []
        for (number, wait) in waits.enumerated() {
            // The body's leaves and signals are the last step's, at its end or partway through.
            steps.append(
                planStep(
                    wait, number: number, of: name, work: number == waits.count - 1 ? work : RecordedWork(), pool: pool,
                    after: steps.last.map { [$0] } ?? after))
        }
        return steps
    }

    /// The step of a chain named `name` that waits `wait`, its `number`th, after `after`. Called
    /// with `lock` held.
    func planStep(
        _ wait: RecordedWork.Wait, number: Int, of name: String, work: RecordedWork, pool: Int, after: [Int]
    ) -> Int {
        let label = "\(name): \(wait.holdsAThread ? "sleep" : "Task.sleep") \(Format.seconds(wait.articleSeconds))"
        let index = addPlanned(
            Operation(), label: number == 0 ? name : label, work: work, executor: .queue(pool), dependencies: after)
        workload.operations[index].modelledWork =
            wait.holdsAThread
            ? ModelledWork(articleSeconds: wait.articleSeconds)
            : ModelledWork(articleSeconds: wait.articleSeconds, work: .timer)
        return index
    }

    /// Run: the planned task's body, its waits followed as the steps `registration` plans; a
    /// body with `async let`s, its children's too, and its last step, which waits for them all,
    /// is a row as the body ends.
    func performSteps<Success>(
        _ registration: Workload.Registration, _ body: () async throws -> Success
    ) async rethrows -> Success {
        let children = registration.asyncLets ?? []
        let end = registration.asyncLets == nil ? nil : registration.operations.last
        let follower = TaskSteps(
            lab: self, steps: end == nil ? registration.operations : registration.operations.dropLast(),
            children: children)
        defer {
            follower.ended()
            if let end, let label = plan?.operations[safe: end]?.label {
                context.timeline.end(context.timeline.begin(label))
            }
        }
        return try await Lab.$work.withValue(RecordedWork()) {
            try await Lab.$taskSteps.withValue(follower) { try await body() }
        }
    }
}
