// The events of a simulated run (completions, monitor ticks, cancels, suspensions, additions) and what each changes.

/// Something that happens at an instant and changes the simulation.
enum Event {
    case completion(Double)
    case tick(index: Int, time: Double)
    case cancel(index: Int, time: Double)
    case suspension(index: Int, time: Double)
    /// The experiment's own thread adds the operations planned for this instant.
    case addition(time: Double)

    var time: Double {
        switch self {
        case .completion(let time), .tick(_, let time), .cancel(_, let time), .suspension(_, let time),
            .addition(let time):
            return time
        }
    }

    /// Whether the two events can happen in either order on a real machine, and the order matters.
    func races(_ other: Event) -> Bool {
        let gap = abs(time - other.time)
        switch (self, other) {
        case (.completion, .tick), (.tick, .completion): return gap <= Scheduler.tieWindow
        case (.completion, .cancel), (.cancel, .completion), (.completion, .suspension), (.suspension, .completion),
            (.completion, .addition), (.addition, .completion):
            return gap <= Scheduler.cancelTieWindow
        default: return false
        }
    }
}

extension Simulation {
    /// The next completion, monitor tick and cancel, earliest first.
    mutating func upcomingEvents() -> [Event] {
        var events: [Event] = []
        if let completion = running.map(\.end).min() { events.append(.completion(completion)) }
        if let tick = pendingTick { events.append(.tick(index: tick.index, time: tick.time)) }
        if cancelsDone < workload.cancellations.count {
            events.append(
                .cancel(index: cancelsDone, time: workload.cancellations[cancelsDone].atArticleSeconds * timeScale))
        }
        if suspensionsDone < workload.suspensions.count {
            events.append(
                .suspension(
                    index: suspensionsDone, time: workload.suspensions[suspensionsDone].atArticleSeconds * timeScale))
        }
        if let addition = workload.operations.indices.filter({ !added[$0] }).map({
            workload.operations[$0].addedAtArticleSeconds
        }).min() {
            events.append(.addition(time: addition * timeScale))
        }
        return events.sorted { $0.time < $1.time }
    }

    mutating func process(_ event: Event) {
        switch event {
        case .completion(let time): processCompletion(at: time)
        case .tick(let index, let time): processTick(index: index, time: time)
        case .cancel(let index, let time): processCancel(index: index, time: time)
        case .suspension(let index, let time):
            now = max(now, time)
            suspensionsDone = index + 1
            suspended[workload.suspensions[index].queue] = workload.suspensions[index].isSuspended
        case .addition(let time):
            now = max(now, time)
            for index in workload.operations.indices
            where !added[index] && workload.operations[index].addedAtArticleSeconds * timeScale <= time {
                added[index] = true
                dispatchReady()
            }
        }
    }

    /// The next monitor tick, when one can matter: under `linux`, while some work waits for a worker.
    /// Ticks that fell while nothing waited changed nothing and are passed over.
    var pendingTick: (index: Int, time: Double)? {
        guard profile.kind == .linux, pools.values.contains(where: { !$0.waiting.isEmpty }) else { return nil }
        var index = ticksDone
        while tickTime(index) < now - Scheduler.tieWindow {
            index += 1
        }
        return (index, tickTime(index))
    }

    func tickTime(_ index: Int) -> Double {
        profile.firstTickSeconds + Double(index) * PlatformProfile.monitorInterval
    }

    // MARK: Processing events

    /// The monitor: for each pool whose work waits while every worker is busy (blocked), one more worker.
    mutating func processTick(index: Int, time: Double) {
        now = max(now, time)
        ticksDone = index + 1
        for key in pools.keys where !key.overcommits {
            var pool = pools[key]!
            if !pool.waiting.isEmpty, !pool.workers.contains(where: { !$0.busy }),
                pool.workers.count < PlatformProfile.maximumWorkers
            {
                pool.workers.append(Worker(id: nextWorkerID, busy: false, idleSince: now))
                nextWorkerID += 1
            }
            pools[key] = pool
        }
    }

    /// The experiment's thread cancels: the targets are flagged; a timer stops at once.
    mutating func processCancel(index: Int, time: Double) {
        now = max(now, time)
        cancelsDone = index + 1
        let targets: [Int]
        switch workload.cancellations[index].target {
        case .operation(let operation): targets = [operation]
        case .queue(let queue):
            targets = workload.operations.indices.filter { workload.operations[$0].executor == .queue(queue) }
        }
        cancel(targets)
    }

    /// `cancelAllOperations()` flags the queue's operations one at a time, in the order they
    /// were added, and each `cancel()` lets the queue schedule (corelibs). A completion that
    /// lands during that loop frees a worker that takes the first operation the loop has not
    /// flagged yet, which starts its work; the flagged ones before it start and end at once. An
    /// operation the queue has handed to its pool but no worker has begun is one the loop can
    /// still flag first. For a queue's cancel racing a completion: one simulation for each
    /// operation not yet begun that the loop may reach last before the completion (not the last
    /// such one: that is the cancel before the completion), each with the loop finishing after
    /// the freed worker took its next operation.
    func completionsDuringCancelLoop(_ one: Event, _ other: Event) -> [Simulation] {
        let pair: (cancel: Int, cancelTime: Double, completion: Event)
        switch (one, other) {
        case (.cancel(let index, let time), .completion): pair = (index, time, other)
        case (.completion, .cancel(let index, let time)): pair = (index, time, one)
        default: return []
        }
        guard case .queue(let queue) = workload.cancellations[pair.cancel].target else { return [] }
        let loopOrder = workload.operations.indices
            .filter { workload.operations[$0].executor == .queue(queue) && !finished[$0] }
            .sorted {
                (workload.operations[$0].addedAtArticleSeconds, $0) < (
                    workload.operations[$1].addedAtArticleSeconds, $1
                )
            }
        let notBegun = loopOrder.indices.filter { spans[loopOrder[$0]] == nil }
        return notBegun.dropLast().map { reached in
            var interleaved = self
            interleaved.cancel(Array(loopOrder[...reached]))
            interleaved.process(pair.completion)
            interleaved.dispatchAndAssign()
            interleaved.processCancel(index: pair.cancel, time: pair.cancelTime)
            return interleaved
        }
    }

    /// Flags the targets not finished yet as cancelled; a timer stops at once.
    mutating func cancel(_ targets: [Int]) {
        for operation in targets where !finished[operation] {
            cancelled[operation] = true
            spans[operation]?.cancelled = true
            if let timer = running.firstIndex(where: { $0.operation == operation && $0.kind == .timer }) {
                running[timer].end = now
            }
        }
    }

    /// Ends the first piece of work due at `time` (one at a time, as each finishing thread
    /// reschedules its queue before the next one does): a step either starts the next step on
    /// the same thread or finishes its operation; freed threads and queue slots go back.
    mutating func processCompletion(at time: Double) {
        now = max(now, time)
        guard
            let first = running.indices.filter({ running[$0].end <= time + 1e-9 }).min(by: {
                running[$0].end < running[$1].end
            })
        else { return }
        complete(first)
    }
}
