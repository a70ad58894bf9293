// A learner's task whose body starts `async let` children, planned as chains of steps on the pool.

import ExperimentModel
import Foundation

extension Lab {
    /// Rehearsal: a task rehearsed from the experiment's thread whose body started the
    /// `async let` children `children`, planned if the calls and the text place them exactly
    /// (``placeAsyncLets(of:children:startedAt:)``), else named where they do not.
    func planTask(
        _ construct: String, startingAsyncLets children: [(work: RecordedWork, stack: CallSite.Stack?)],
        work: RecordedWork, priority: TaskPriority?, group: TaskGroupPlan?, startedAt: CallSite.Stack?
    ) -> Int? {
        if group != nil {
            unmodelled(
                "async let",
                why:
                    "a task group and async lets in one task's body are a chain of steps the model does not plan yet")
            return nil
        }
        if work.loopsUntilCancelled {
            unmodelled(
                construct, why: "its body loops until a cancel beside its async lets, which the model does not plan yet"
            )
            return nil
        }
        switch Self.placeAsyncLets(of: work, children: children, startedAt: startedAt) {
        case .failure(let unplaced):
            if let why = unplaced.why { unmodelled("async let", why: why, site: unplaced.site) }
            return nil
        case .success(let placement):
            return lock.withLock {
                planAsyncLets(
                    work, placement, named: work.printed.first ?? "task \(workload.operations.count + 1)",
                    pool: cooperativePool(priority))
            }
        }
    }

    /// Rehearsal: a task's body and its `async let` children, placed, as chains of steps on the
    /// cooperative pool `pool` (``planSteps(_:named:pool:after:)``), as Swift runs them: a child
    /// starts where the body declares it, after the body's step before (its task is enqueued on
    /// the pool then, and runs beside the body); the body's first step after its first use of a
    /// child's name waits for that child (the use awaits it), and the body's last step, a
    /// zero-second one, for every child (a body cannot end before its children: a child it
    /// never used is awaited there). The body's leaves and signals are that last step's.
    /// Returns the body's first step. Called with `lock` held.
    func planAsyncLets(_ work: RecordedWork, _ placement: AsyncLetPlacement, named name: String, pool: Int) -> Int {
        let declarations = placement.body.declarations
        var steps: [Int] = []
        // Each child's steps, once its `async let` is passed.
        var children = [[Int]?](repeating: nil, count: declarations.count)
        var awaited = Set<Int>()
        func start(before line: Int) {
            for (index, declaration) in declarations.enumerated()
            where children[index] == nil && declaration.line < line {
                children[index] =
                    placement.children[index].map {
                        planSteps($0, named: "async let \(declaration.name)", pool: pool, after: Array(steps.suffix(1)))
                    } ?? []
            }
        }
        func awaitedChildren(before line: Int) -> [Int] {
            declarations.indices.filter { (declarations[$0].awaitedAt ?? .max) < line && awaited.insert($0).inserted }
                .compactMap { children[$0]?.last }
        }
        for (number, (wait, line)) in zip(work.waits, placement.waitLines).enumerated() {
            start(before: line)
            steps.append(
                planStep(
                    wait, number: number, of: name, work: RecordedWork(), pool: pool,
                    after: Array(steps.suffix(1)) + awaitedChildren(before: line)))
        }
        start(before: .max)
        let left = declarations.indices.filter { awaited.insert($0).inserted }.compactMap { children[$0]?.last }
        let end = addPlanned(
            Operation(), label: steps.isEmpty ? name : "\(name): after its async lets", work: work,
            executor: .queue(pool), dependencies: Array(steps.suffix(1)) + left)
        workload.operations[end].modelledWork = ModelledWork(articleSeconds: 0)
        let planned = zip(placement.sites, children).map {
            Workload.Registration.AsyncLetChild(site: $0?.line, frame: $0?.frame, steps: $1 ?? [])
        }
        registrations.append(
            Workload.Registration(
                kind: .task, operations: steps + [end], completion: nil, isChainOfSteps: true, asyncLets: planned))
        return steps.first ?? end
    }
}
