// The task groups a learner's planned task opens: each child planned as a task of the pool.

import ExperimentModel
import Foundation

/// A task group a planned task's body opens: in a rehearsal, each child's work, in the order
/// added, with how many of the group's children the body had received (`group.next()`) before
/// adding it; in a run, the planned operations of the children still to be added.
///
/// `@unchecked Sendable`: `recorded`, `awaited` and `toFollow` are read and written only while
/// `lock` is held.
final class TaskGroupPlan: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [(work: RecordedWork, awaitedBefore: Int, site: String?)] = []
    private var awaited = 0
    private var toFollow: [Int]

    init(following children: [Int] = []) {
        toFollow = children
    }

    /// Each child's work, and the child it waits for: added after the body received `n` children,
    /// it starts as the `n`th child added ends. The children end in the order they were added
    /// when each sleeps as long as the one before it, as the articles' rounds do: the `n`th to
    /// end is then the `n`th added, the earliest still running.
    var children: [(work: RecordedWork, after: Int?, site: String?)] {
        lock.withLock { recorded.map { ($0.work, $0.awaitedBefore > 0 ? $0.awaitedBefore - 1 : nil, $0.site) } }
    }

    /// Rehearsal: a child is added at the line `site` of the experiment's code; its work, to record.
    func added(at site: String?) -> RecordedWork {
        let work = RecordedWork(isATasks: true)
        lock.withLock { recorded.append((work, awaited, site)) }
        return work
    }

    /// Rehearsal: the body received a child that ended (`group.next()` returned one).
    func receivedChild() {
        lock.withLock { awaited += 1 }
    }

    /// Run: the planned operation of the next child added, if the plan has one.
    func nextChild() -> Int? {
        lock.withLock { toFollow.isEmpty ? nil : toFollow.removeFirst() }
    }
}

/// The row of a planned task in a run, begun as the task starts or, for a task with a group, as
/// the group ends (its planned operation waits for the children).
///
/// `@unchecked Sendable`: `span` is read and written only while `lock` is held.
final class TaskRow: @unchecked Sendable {
    private let lock = NSLock()
    private let timeline: Timeline
    let label: String
    private var span: Timeline.OpenSpan?

    init(timeline: Timeline, label: String) {
        self.timeline = timeline
        self.label = label
    }

    func begin() {
        lock.withLock { if span == nil { span = timeline.begin(label) } }
    }

    func end(cancelled: Bool) {
        begin()
        lock.withLock { span.map { timeline.end($0, cancelled: cancelled) } }
    }
}

extension Lab {
    /// The task whose body runs here (a child inherits its parent's).
    @TaskLocal static var runningTask: TaskStart?
    /// The task group whose body runs here, if a planned task opened it.
    @TaskLocal static var openGroup: TaskGroupPlan?
    /// Run: the row of the planned task whose body runs here.
    @TaskLocal static var taskRow: TaskRow?

    /// `withTaskGroup` or `withThrowingTaskGroup` (`construct`), which `open` opens as Swift
    /// does. The first group of a task the experiment's thread started is planned (its children
    /// are operations of the pool, and the task's row after them waits for them all); another
    /// group, or one opened anywhere else, is named.
    public static func openingTaskGroup<Result>(
        _ construct: String, isolation: isolated (any Actor)? = #isolation, _ open: () async throws -> Result
    ) async rethrows -> Result {
        guard let lab = current else { return try await open() }
        let host = runningTask
        switch lab.mode {
        case .rehearsing:
            guard let host, case .rehearsed(let hostWork) = host.role, work === hostWork,
                hostWork.asyncLetChildren?.runsInAChild != true
            else {
                lab.unmodelled(construct, why: outsideATask)
                return try await $openGroup.withValue(nil) { try await open() }
            }
            let plan = TaskGroupPlan()
            let first: Bool = lab.lock.withLock {
                host.groupsOpened += 1
                guard host.groupsOpened == 1 else { return false }
                host.group = plan
                host.printedBeforeItsGroup = hostWork.printed.count
                return true
            }
            guard first else {
                lab.unmodelled(
                    construct, why: "a second task group in one task is a chain of steps the model does not plan yet")
                return try await $openGroup.withValue(nil) { try await open() }
            }
            return try await $openGroup.withValue(plan) { try await open() }
        case .running:
            guard let host, case .planned(_, let children) = host.role, !children.isEmpty,
                host.takesItsGroup()
            else {
                return try await $openGroup.withValue(nil) { try await open() }
            }
            defer { taskRow?.begin() }
            return try await $openGroup.withValue(TaskGroupPlan(following: children)) { try await open() }
        }
    }

    static let outsideATask =
        "a task group outside a task the experiment's thread starts, or inside a child (a group's or an async let's), the model does not plan yet"

    /// `group.next()` returned a child, in the body of a group: in a rehearsal of a planned
    /// task's group, the children it adds from now on wait for one more child to end
    /// (`TaskGroupPlan.children`).
    public static func receivedChild() {
        guard let lab = current, lab.mode == .rehearsing else { return }
        openGroup?.receivedChild()
    }

    /// `group.addTask { … }` or `group.addTaskUnlessCancelled { … }` (`construct`): what the lab
    /// does with the child's body (``TaskStart``); nil outside a session.
    public static func addingChildTask(_ construct: String = "group.addTask") -> TaskStart? {
        guard let lab = current else { return nil }
        switch lab.mode {
        case .rehearsing:
            guard let plan = openGroup else {
                return TaskStart(lab: lab, role: .unplanned(row: construct), construct: construct, isChild: true)
            }
            let site = CallSite.inExperiment()
            let child = TaskStart(lab: lab, role: .rehearsed(plan.added(at: site)), construct: construct, isChild: true)
            child.site = site
            return child
        case .running:
            lab.unfinishedTaskStarted()
            guard let index = openGroup?.nextChild() else {
                return TaskStart(lab: lab, role: .unplanned(row: construct), construct: construct, isChild: true)
            }
            return TaskStart(lab: lab, role: .planned(index, children: []), construct: construct, isChild: true)
        }
    }
}
