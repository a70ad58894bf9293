// Swift concurrency's tasks a learner's code starts, planned on the cooperative pool.

import ExperimentModel
import Foundation

/// A task the code starts (`Task { … }`, `Task.detached { … }`), as the lab follows it: the
/// instrumented initialisers (`Experiments/Lab/ArticleConcurrency.swift`) wrap the task's body
/// in ``run(_:)`` and call ``started(_:)`` once the task exists.
///
/// In a rehearsal, the body runs at once, in a task of its own, with every sleep recording and
/// every `Task.sleep` returning at once; the experiment's thread waits for it (``started(_:)``) and
/// plans it: a task whose body blocks (`sleep`) is an operation that holds a thread of the
/// cooperative pool for its sleeps; one whose body suspends (`Task.sleep`) is a timer that holds
/// none. In a run, the body is its planned operation's row, its sleeps compared with the plan's.
///
/// A task whose body opens a task group (`withTaskGroup`, `withThrowingTaskGroup`) is planned as
/// its children, each an operation of the pool as a task is, and the task's own row after them:
/// what its body does once the group has ended waits for every child.
///
/// `@unchecked Sendable`: `role` and `lab` are constants, `startedAt` is written before the
/// task starts, `RecordedWork` and `TaskGroupPlan`
/// lock their own state, `ended` is a semaphore, `groupsOpened`, `group` and
/// `printedBeforeItsGroup` are read and written only while `lab.lock` is held, and `priority` is
/// written by the task before it signals `ended` and read by the experiment's thread only after
/// it waited for that signal.
public final class TaskStart: @unchecked Sendable {
    enum Role {
        /// Rehearsed from the experiment's thread, which waits for it and plans it.
        case rehearsed(RecordedWork)
        /// Planned: its operation's row in a run (nil: the run has none to follow), and the
        /// planned operations of its group's children, in the order it adds them.
        case planned(Int?, children: [Int])
        /// Planned as a chain of steps, one per wait of its body, and its `async let` children's
        /// (``TaskSteps``).
        case steps(Workload.Registration)
        /// Outside the plan, named: run as a row of its own, labelled with the construct.
        case unplanned(row: String)
    }

    let lab: Lab
    let role: Role
    let construct: String
    /// Whether it is a child of a task group (`group.addTask`), which is no host of groups.
    let isChild: Bool
    let ended = DispatchSemaphore(value: 0)
    var priority: TaskPriority?
    /// Rehearsal: the line of the experiment's code that started it (a child's `group.addTask`),
    /// read as it is called: its body runs where no frame of that code is on the stack.
    var site: String?
    /// Rehearsal: the task group its body opened, if any, what the body had printed by then, and
    /// how many groups it opened.
    var group: TaskGroupPlan?
    var printedBeforeItsGroup = 0
    var groupsOpened = 0
    /// Run: whether its body opened its planned group.
    var groupFollowed = false
    /// Rehearsal: the stack of the code that started it, which shows the line of its body.
    var startedAt: CallSite.Stack?

    init(lab: Lab, role: Role, construct: String, isChild: Bool = false) {
        self.lab = lab
        self.role = role
        self.construct = construct
        self.isChild = isChild
    }

    /// The task's body, as the lab follows it.
    public func run<Success>(_ body: () async throws -> Success) async rethrows -> Success {
        switch role {
        case .rehearsed(let work):
            priority = Task.currentPriority
            defer { ended.signal() }
            // A child is no host of groups: one opened inside it is named.
            guard !isChild else {
                do {
                    return try await Lab.$work.withValue(work) { try await body() }
                } catch {
                    if !(error is CancellationError) {
                        lab.unmodelled(
                            "a child task that throws",
                            why:
                                "its error, rethrown by the group's next() or for try await, ends the group and cancels the other children, which the model does not plan yet",
                            site: site)
                    }
                    throw error
                }
            }
            work.beginsATasksBody()
            return try await Lab.$work.withValue(work) {
                try await Lab.$runningTask.withValue(self) { try await body() }
            }
        case .planned(let index, let children):
            defer { lab.unfinishedTaskEnded() }
            guard !children.isEmpty else { return try await lab.performTask(index, body) }
            return try await lab.performTask(index, rowAfterItsGroup: true) {
                try await Lab.$runningTask.withValue(self) { try await body() }
            }
        case .steps(let registration):
            defer { lab.unfinishedTaskEnded() }
            return try await lab.performSteps(registration, body)
        case .unplanned(let row):
            defer { lab.unfinishedTaskEnded() }
            guard lab.mode == .running else { return try await Lab.outsideThePlan(body) }
            let span = lab.context.timeline.begin(row)
            defer { lab.context.timeline.end(span) }
            return try await Lab.outsideThePlan(body)
        }
    }

    /// The task `handle` exists: in a rehearsal from the experiment's thread, the thread waits
    /// for its body to end (the rehearsal's waits return at once, so it ends at once) and plans it.
    /// A body that does not end is cancelled and named; after it, no task is waited for (each
    /// would cost the rehearsal its limit): each is named at once.
    public func started<Success, Failure>(_ handle: Task<Success, Failure>) {
        guard case .rehearsed(let work) = role else { return }
        let waited = !lab.lock.withLock { lab.aTaskDidNotEnd }
        guard waited, ended.wait(timeout: .now() + Self.rehearsalLimit) == .success else {
            handle.cancel()
            lab.lock.withLock { lab.aTaskDidNotEnd = true }
            return lab.unmodelled(
                construct,
                why: waited
                    ? "its body did not end in the rehearsal, where every wait returns at once: it waits for something the model does not plan"
                    : "a task before it did not end in the rehearsal, which does not wait for the tasks after it")
        }
        let group: TaskGroupPlan? = lab.lock.withLock { self.group }
        let printedBefore = lab.lock.withLock { printedBeforeItsGroup }
        guard
            let index = lab.planTask(
                construct, work: work, priority: priority, group: group, printedBeforeItsGroup: printedBefore,
                startedAt: startedAt)
        else { return }
        lab.lock.withLock { lab.plannedTasks[AnyHashable(handle)] = index }
    }

    /// A child its group did not add (`addTaskUnlessCancelled` of a cancelled group): its body
    /// never runs. In a rehearsal, the child the group recorded is one the plan cannot hold.
    public func notAdded() {
        switch role {
        case .rehearsed:
            lab.unmodelled(
                construct,
                why: "its group was cancelled, so the child was not added, which the model does not plan yet",
                site: site)
        case .planned, .steps, .unplanned:
            lab.unfinishedTaskEnded()
        }
    }

    /// Run: whether the group being opened is the task's planned one, its first.
    func takesItsGroup() -> Bool {
        lab.lock.withLock {
            defer { groupFollowed = true }
            return !groupFollowed
        }
    }

    /// Real seconds a rehearsal waits for a task's body, which, with every wait returning at
    /// once, ends in milliseconds unless it waits for something of its own.
    static let rehearsalLimit = 2.0
}

extension Lab {
    /// `Task { … }` or `Task.detached { … }` (`construct`), about to start: what the lab does
    /// with its body (``TaskStart``); nil outside a session. A task started inside a work (an
    /// operation's, another task's), off the experiment's thread, or isolated to an actor (the
    /// experiment's thread may be the one it needs) is named, and runs as Swift runs it.
    public static func startingTask<Success>(
        _ construct: String, of operation: @isolated(any) () async throws -> Success
    ) -> TaskStart? {
        guard let lab = current else { return nil }
        let isolatedToAnActor = operation.isolation != nil
        let planned = work == nil && lab.isExperimentThread && !isolatedToAnActor
        switch lab.mode {
        case .rehearsing:
            guard planned else {
                lab.unmodelled(
                    construct,
                    why: isolatedToAnActor
                        ? "a task isolated to an actor runs where the actor does, which the model does not plan yet"
                        : "a task started inside a work starts at an instant the plan does not have")
                return TaskStart(lab: lab, role: .unplanned(row: construct), construct: construct)
            }
            let start = TaskStart(lab: lab, role: .rehearsed(RecordedWork(isATasks: true)), construct: construct)
            start.startedAt = CallSite.Stack.capture()
            return start
        case .running:
            lab.unfinishedTaskStarted()
            guard planned else { return TaskStart(lab: lab, role: .unplanned(row: construct), construct: construct) }
            let registration = lab.lock.withLock { lab.follow(nil, as: .task, queueName: nil) }
            let operations = registration?.operations ?? []
            if let registration, registration.isChainOfSteps {
                return TaskStart(lab: lab, role: .steps(registration), construct: construct)
            }
            return TaskStart(
                lab: lab, role: .planned(operations.first, children: Array(operations.dropFirst())),
                construct: construct)
        }
    }

    /// A task rehearsed from the experiment's thread, planned on the cooperative pool of its
    /// priority: its body's sleeps hold a thread of it; its `Task.sleep`s are a timer that holds
    /// none. A body that does both is a chain of steps (``planSteps(_:named:pool:after:)``).
    func planTask(
        _ construct: String, work: RecordedWork, priority: TaskPriority?, group: TaskGroupPlan?,
        printedBeforeItsGroup: Int, startedAt: CallSite.Stack? = nil
    ) -> Int? {
        let children = group?.children ?? []
        if let child = children.first(where: { $0.work.suspends && $0.work.totalSeconds > 0 }) {
            unmodelled(
                "group.addTask",
                why:
                    "a child that both blocks (sleep) and suspends (Task.sleep) is a chain of steps the model does not plan yet",
                site: child.site)
            return nil
        }
        if let why = Self.unplannableTask(work, hasChildren: !children.isEmpty) {
            unmodelled(construct, why: why)
            return nil
        }
        if let asyncLets = work.asyncLetChildren?.children, !asyncLets.isEmpty {
            return planTask(
                construct, startingAsyncLets: asyncLets, work: work, priority: priority, group: group,
                startedAt: startedAt)
        }
        return lock.withLock {
            let pool = cooperativePool(priority)
            if group == nil, work.suspends, work.totalSeconds > 0 {
                let steps = planSteps(
                    work, named: work.printed.first ?? "task \(workload.operations.count + 1)", pool: pool)
                registrations.append(
                    Workload.Registration(kind: .task, operations: steps, completion: nil, isChainOfSteps: true))
                return steps[0]
            }
            var planned: [Int] = []
            for (child, after, _) in children {
                let label = child.printed.first ?? "child \(workload.operations.count + 1)"
                planned.append(planOnThePool(child, label: label, pool: pool, after: after.map { [planned[$0]] } ?? []))
            }
            let before = group == nil ? work.printed : Array(work.printed.prefix(printedBeforeItsGroup))
            let index = planOnThePool(
                work, label: before.first ?? "task \(workload.operations.count + 1)", pool: pool, after: planned)
            registrations.append(Workload.Registration(kind: .task, operations: [index] + planned, completion: nil))
            return index
        }
    }

    /// Why a task's body, beside its group's children if it `hasChildren`, cannot be planned; nil when it can.
    private static func unplannableTask(_ work: RecordedWork, hasChildren: Bool) -> String? {
        if work.suspends, work.totalSeconds > 0, work.loopsUntilCancelled {
            return "its body both blocks and suspends until a cancel ends it, which the model does not plan yet"
        }
        if hasChildren, work.suspends || work.totalSeconds > 0 {
            return "its body blocks or suspends beside its task group, a chain of steps the model does not plan yet"
        }
        return nil
    }

    /// A task's work (or a child's) as an operation of the cooperative pool `pool` that waits for
    /// `after`: its sleeps hold a thread, its `Task.sleep`s are a timer. Called with `lock` held.
    private func planOnThePool(_ work: RecordedWork, label: String, pool: Int, after: [Int] = []) -> Int {
        let index = addPlanned(Operation(), label: label, work: work, executor: .queue(pool), dependencies: after)
        if work.loopsUntilCancelled { loopingUntilCancelled.append(index) }
        if work.suspends {
            workload.operations[index].modelledWork = ModelledWork(articleSeconds: work.suspendedSeconds, work: .timer)
        }
        return index
    }

    /// `task.cancel()` of a task the experiment's thread started, from that thread. In a
    /// rehearsal, a task that suspends in `Task.sleep` is cancelled at the thread's instant: its
    /// sleep ends then, throwing `CancellationError`, and a task not yet started runs to its
    /// first `Task.sleep`, which throws at once; a task that blocks and looks at
    /// `Task.isCancelled` (or `Task.checkCancellation()`) before each of its sleeps stops at its
    /// next look. A cancel of a task that owns a task group cancels every child, as Swift's does.
    /// A cancel after a wait of the thread (an instant the plan does not have), of a
    /// task that blocks without looking (a cancel does not stop a `sleep`), or from inside a work
    /// is named. `cancel` is Swift's.
    public static func cancelling(_ handle: some Hashable, cancel: () -> Void) {
        defer { cancel() }
        guard let lab = current, lab.mode == .rehearsing else { return }
        let why: String? = lab.lock.withLock {
            guard Lab.work == nil, lab.experimentThread == ObjectIdentifier(Thread.current) else {
                return "a cancel inside a work comes at an instant the plan does not have"
            }
            guard let index = lab.plannedTasks[AnyHashable(handle)] else {
                return "the task it cancels is not in the plan"
            }
            guard !lab.waited else { return "after the experiment's thread waited, at an instant the plan cannot tell" }
            if lab.registrations.contains(where: { $0.operations.contains(index) && $0.asyncLets != nil }) {
                return
                    "a cancel of a task with async let children reaches them too, at instants the model does not plan yet"
            }
            guard !lab.registrations.contains(where: { $0.operations.first == index && $0.isChainOfSteps })
            else {
                return
                    "a cancel of a task that both blocks and suspends ends it at its next Task.sleep or look, which the model does not plan yet"
            }
            // Cancelling the task that owns a group cancels every child, the last added first: the
            // model takes one cancel at a time, and would otherwise start a child as soon as the
            // cancel of the one it waits for had ended that one.
            let children =
                lab.registrations.first { $0.kind == .task && $0.operations.first == index }
                .map { Array($0.operations.dropFirst().reversed()) } ?? []
            let cancelled = children.isEmpty ? [index] : children
            guard
                cancelled.allSatisfy({
                    lab.workload.operations[$0].work == .timer || lab.workload.operations[$0].checksCancellation
                })
            else {
                return
                    "a cancel does not stop a task's sleep, and its body does not look at Task.isCancelled before each of its sleeps"
            }
            lab.readCancels()
            for operation in cancelled {
                lab.cancelledOperations.insert(operation)
                lab.workload.cancel(.operation(operation), atArticleSeconds: lab.virtualNow)
            }
            return nil
        }
        if let why { lab.unmodelled("Task.cancel()", why: why) }
    }

    /// The plan's queue for the cooperative pool's tasks of `priority`: on Linux, the Swift
    /// runtime gives each priority a queue of its own, one a CPU wide (`DispatchGlobalExecutor.inc`).
    /// Called with `lock` held.
    func cooperativePool(_ priority: TaskPriority?) -> Int {
        let name = "cooperative pool (\(priority.map { "priority \($0.rawValue)" } ?? "no priority"))"
        if let index = workload.queues.firstIndex(where: { $0.isCooperativePool && $0.name == name }) { return index }
        return workload.addQueue(
            QueueSpec(name: name, isCooperativePool: true, priorityClass: ServiceClass(priority ?? .medium)))
    }

    /// Runs the planned task `index`'s body as its row, recording its sleeps and suspensions,
    /// and compares them with the plan when it ends.
    func performTask<Success>(
        _ index: Int?, rowAfterItsGroup: Bool = false, _ body: () async throws -> Success
    ) async rethrows -> Success {
        guard let index, let plan, plan.operations.indices.contains(index) else { return try await body() }
        let planned = plan.operations[index]
        let work = RecordedWork()
        let row = TaskRow(timeline: context.timeline, label: planned.label)
        if !rowAfterItsGroup { row.begin() }
        defer {
            row.end(cancelled: Task.isCancelled)
            if planned.work == .timer {
                // A cancel ends a Task.sleep at once: a cancelled task suspends less than its
                // plan's whole timer, as the plan's cancel has it.
                if !Task.isCancelled { compareSleeps(work.suspendedSeconds, with: planned, cancelled: { false }) }
            } else {
                compareSleeps(work.totalSeconds, with: planned, cancelled: { Task.isCancelled })
            }
        }
        return try await Lab.$work.withValue(work) { try await Lab.$taskRow.withValue(row) { try await body() } }
    }

    /// The body of a task outside the plan, started where it inherits a planned task's task-local
    /// values (a chain's steps, a task's row, its group): its waits, rows and groups are its own.
    static func outsideThePlan<Success>(_ body: () async throws -> Success) async rethrows -> Success {
        try await $work.withValue(RecordedWork()) {
            try await $taskSteps.withValue(nil) {
                try await $taskRow.withValue(nil) {
                    try await $runningTask.withValue(nil) { try await $openGroup.withValue(nil) { try await body() } }
                }
            }
        }
    }

    /// In a run, a task is among the work the run waits for before it ends, whoever's code it is.
    func unfinishedTaskStarted() {
        unfinished.enter()
    }

    func unfinishedTaskEnded() {
        if mode == .running { unfinished.leave() }
    }

    /// `Task.isCancelled` as the code reads it (`original` gives Swift's answer): in a rehearsal
    /// of a learner's task, the look is recorded and answered `false`, as an operation's
    /// `isCancelled` is (``lookingAtCancellation(of:)``), so a body that looks before each of its
    /// sleeps stops at a planned cancel, and a loop that only a cancel ends is found. In another
    /// work (an operation's, a block's), no cancel of its own reaches `Task.isCancelled`: Swift
    /// answers, and a loop that only it would end is named, as nothing ends it.
    public static func lookingAtTaskCancellation(_ original: () -> Bool) -> Bool {
        guard let lab = current, lab.mode == .rehearsing, let work else { return original() }
        guard !work.isATasks else { return work.checkedCancellation() }
        let (answer, endless) = work.lookedAtNoTasksCancel(answer: original())
        if endless {
            lab.unmodelled(
                "Task.isCancelled",
                why:
                    "a loop waits for Task.isCancelled where no cancel reaches it (an operation's or a block's cancel does not set it): nothing ends it"
            )
        }
        return answer
    }
}
