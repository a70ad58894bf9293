// Work starting and ending in a simulated run: queues and pools handing it on, workers taking it, threads freed.

extension Simulation {
    /// At time zero, adds the queued operations and the blocks sent to global queues one by one,
    /// in the order the code makes them, letting the queues start work after each; workers take
    /// it from the `firstWake`-th add on, after each one. Cancellations
    /// planned for 0 s come first; operations added after a sleep wait for their instant.
    mutating func addOperationsInOrder(workersWakeAfterAdd firstWake: Int) {
        while cancelsDone < workload.cancellations.count, workload.cancellations[cancelsDone].atArticleSeconds <= 0 {
            processCancel(index: cancelsDone, time: 0)
        }
        for (count, index) in workload.operations.indices.enumerated()
        where !added[index] && workload.operations[index].addedAtArticleSeconds <= 0 {
            added[index] = true
            dispatchReady()
            if count + 1 >= firstWake { assignWorkers() }
        }
        assignWorkers()
    }

    /// Ready: added, not yet handed on, and its dependencies finished (or itself cancelled,
    /// which makes Foundation drop the wait). Under `linux` an operation that had a dependency
    /// removed waits for it forever (``PlannedOperation/hasRemovedDependency``).
    func isReady(_ index: Int) -> Bool {
        let operation = workload.operations[index]
        let waitsForever = profile.kind == .linux && operation.hasRemovedDependency
        return added[index] && !submitted[index]
            && (cancelled[index] || (!waitsForever && operation.dependencies.allSatisfy { finished[$0] }))
    }

    /// The priority list a queue files the operation under: its `queuePriority` when one was
    /// set, on a queue of any width; otherwise one derived from its QoS, except on a queue of
    /// width 1, where it is normal (corelibs' `_addOperations`: `__priorityValue`, else
    /// `__actualMaxNumOps == 1 ? nil : __propertyQoS`).
    func queuePriority(of index: Int, width: Int?) -> Int {
        let operation = workload.operations[index]
        if let explicit = operation.queuePriority { return explicit }
        return width == 1 ? 0 : operation.serviceClass?.derivedQueuePriority ?? 0
    }

    /// The pool an operation's start runs on: a global queue's own class; for a queued operation,
    /// the default pool (an operation's own QoS does not move it to another pool: a `.utility`
    /// operation shares the default pool's workers), its overcommit one for a serial DispatchQueue's. A queue whose own `qualityOfService` is set
    /// runs on that class's pool, which the plan does not hold: it changes a figure only beside
    /// blocking work on another class's pool, which no experiment runs.
    func poolClass(of index: Int) -> PoolKey {
        switch workload.operations[index].executor {
        case .globalQueue(let serviceClass): return PoolKey(serviceClass: serviceClass)
        case .queue(let queue):
            let spec = workload.queues[queue]
            guard spec.isCooperativePool else { return PoolKey(serviceClass: .default, overcommits: spec.overcommits) }
            // Linux: the Swift runtime's queue of a priority is made with no target, so it runs
            // on that class's root queue and shares its workers with the global queues (a task
            // sent behind two blocks sleeping on the default pool starts at the monitor's tick,
            // 1.0 s, measured here). Apple: the cooperative pool is its own, one thread a core,
            // and waits for no other pool's workers.
            return profile.kind == .linux
                ? PoolKey(serviceClass: spec.priorityClass) : PoolKey(serviceClass: .default, overcommits: true)
        default: return PoolKey(serviceClass: .default)
        }
    }

    /// Hands every ready operation to its queue, pool or thread, then gives waiting work to workers.
    mutating func dispatchAndAssign() {
        dispatchReady()
        assignWorkers()
    }

    /// Ready operations go to their queue's pool (within the queue's width), to the calling
    /// thread (blocks of a started BlockOperation), or to a global queue.
    mutating func dispatchReady() {
        for (queueIndex, queue) in workload.queues.enumerated() where !suspended[queueIndex] {
            let width = queue.isCooperativePool ? profile.cpus : queue.maxConcurrentOperationCount ?? Int.max
            while queueRunning[queueIndex] < width, !queue.isCooperativePool || cooperativePoolHasRoom {
                let candidates = workload.operations.indices.filter {
                    workload.operations[$0].executor == .queue(queueIndex) && isReady($0)
                }
                // Highest priority first; enqueue order within a priority.
                guard
                    let next = candidates.max(by: {
                        let left = queuePriority(of: $0, width: width), right = queuePriority(of: $1, width: width)
                        return left != right ? left < right : $0 > $1
                    })
                else { break }
                submitted[next] = true
                queueRunning[queueIndex] += 1
                pools[poolClass(of: next), default: Pool()].waiting.append(PoolItem(operation: next, handedWork: false))
            }
        }
        let blocks = workload.operations.indices.filter { workload.operations[$0].executor == .blockOperationBlock }
        if let first = blocks.first, isReady(first) {
            // `start()` runs the first block on the calling thread; on Apple platforms the others go to the pool at once.
            submitted[first] = true
            begin(first, pool: nil, thread: 0)
            if profile.kind == .apple {
                for block in blocks.dropFirst() {
                    submitted[block] = true
                    pools[PoolKey(serviceClass: .default), default: Pool()].waiting.append(
                        PoolItem(operation: block, handedWork: false))
                }
            }
        } else if profile.kind == .linux, !callerBusy, let next = blocks.first(where: isReady) {
            submitted[next] = true
            begin(next, pool: nil, thread: 0)
        }
        for index in workload.operations.indices where isReady(index) {
            switch workload.operations[index].executor {
            case .globalQueue(let serviceClass):
                submitted[index] = true
                pools[PoolKey(serviceClass: serviceClass), default: Pool()].waiting.append(
                    PoolItem(operation: index, handedWork: false))
            case .experimentThread:
                submitted[index] = true
                begin(index, pool: nil, thread: 0)
            case .concurrentPerformIteration(let first) where first == index:
                startConcurrentPerform(at: first)
            default:
                break
            }
        }
    }

    /// Gives waiting items to idle workers, or to new ones within the on-demand limit; work that
    /// ends at once (a cancelled start, a `main()` that handed its work off, an empty block)
    /// frees its thread straight away, which may ready and start more.
    mutating func assignWorkers() {
        repeat {
            for key in pools.keys.sorted(by: {
                ($0.serviceClass.derivedQueuePriority, $0.overcommits ? 1 : 0) > (
                    $1.serviceClass.derivedQueuePriority, $1.overcommits ? 1 : 0
                )
            }) {
                let now = self.now
                pools[key]!.workers.removeAll {
                    !$0.busy && now - $0.idleSince > PlatformProfile.idleWorkerLifetime
                }
                let onDemandLimit =
                    profile.kind == .linux && !key.overcommits ? profile.cpus : PlatformProfile.maximumWorkers
                while let item = pools[key]!.waiting.first {
                    let worker: Int
                    if let idle = pools[key]!.workers.firstIndex(where: { !$0.busy }) {
                        pools[key]!.workers[idle].busy = true
                        worker = pools[key]!.workers[idle].id
                    } else if pools[key]!.workers.count < onDemandLimit {
                        worker = nextWorkerID
                        nextWorkerID += 1
                        pools[key]!.workers.append(Worker(id: worker, busy: true, idleSince: now))
                    } else {
                        break
                    }
                    pools[key]!.waiting.removeFirst()
                    if item.claimsIteration {
                        claimIteration(of: item.operation, pool: key, thread: worker)
                    } else if item.handedWork {
                        running.append(
                            Running(
                                operation: item.operation, kind: .handedWork, end: now + stepSeconds(item.operation),
                                begun: now, pool: key, thread: worker))
                        spans[item.operation]?.lane = worker
                    } else {
                        begin(item.operation, pool: key, thread: worker)
                    }
                }
            }
            guard let instant = running.firstIndex(where: \.immediate) else { return }
            complete(instant)
            dispatchReady()
        } while true
    }

    /// The operation's `start()` on `thread`: a cancelled one finishes at once without its work;
    /// otherwise its first step begins, or its work is handed off and the thread freed.
    mutating func begin(_ operation: Int, pool: PoolKey?, thread: Int) {
        let planned = workload.operations[operation]
        spans[operation] = PredictedSpan(
            label: planned.label, start: now, end: now, lane: thread, ranWork: !cancelled[operation], stepsCompleted: 0,
            cancelled: cancelled[operation])
        if pool == nil { callerBusy = true }
        guard !cancelled[operation] else {
            running.append(
                Running(operation: operation, kind: .cancelledStart, end: now, begun: now, pool: pool, thread: thread))
            return
        }
        cancel(planned.cancelsWhenStarting)
        if profile.kind == .apple, let pool {
            for block in furtherBlocks(of: operation) where !submitted[block] {
                submitted[block] = true
                pools[pool, default: Pool()].waiting.append(PoolItem(operation: block, handedWork: false))
            }
        }
        switch planned.work {
        case .blocking:
            running.append(
                Running(
                    operation: operation, kind: .step, end: now + stepSeconds(operation), begun: now, pool: pool,
                    thread: thread))
        case .handedToPool(let serviceClass):
            running.append(
                Running(operation: operation, kind: .mainReturned, end: now, begun: now, pool: pool, thread: thread))
            pools[PoolKey(serviceClass: serviceClass), default: Pool()].waiting.append(
                PoolItem(operation: operation, handedWork: true))
        case .timer:
            running.append(
                Running(operation: operation, kind: .mainReturned, end: now, begun: now, pool: pool, thread: thread))
            running.append(
                Running(
                    operation: operation, kind: .timer, end: now + stepSeconds(operation), begun: now, pool: nil,
                    thread: nil))
        case .neverFinishes:
            running.append(
                Running(operation: operation, kind: .mainReturned, end: now, begun: now, pool: pool, thread: thread))
            spans[operation]?.end = .infinity
        }
    }

    /// Ends the work at `index` in `running`, at the current time.
    mutating func complete(_ index: Int) {
        let item = running.remove(at: index)
        let operation = item.operation, planned = workload.operations[operation]
        switch item.kind {
        case .mainReturned:
            // A task suspended in a timer gives its place in the cooperative pool back.
            if let queue = suspendedTaskQueue(of: operation) { queueRunning[queue] -= 1 }
            release(item.thread, of: item.pool)
            return
        case .step, .handedWork:
            // A step ended: the next one follows on the same thread, unless that was the last or
            // the loop saw the cancel.
            stepsDone[operation] += 1
            spans[operation]?.stepsCompleted = stepsDone[operation]
            let stops = planned.checksCancellation && cancelled[operation]
            if stepsDone[operation] < planned.steps, !stops {
                running.append(
                    Running(
                        operation: operation, kind: item.kind, end: now + stepSeconds(operation), begun: now,
                        pool: item.pool, thread: item.thread))
                return
            }
        case .timer:
            // A cancelled timer delivers nothing.
            if !cancelled[operation] { stepsDone[operation] += 1 }
        case .cancelledStart:
            break
        }
        spans[operation]?.stepsCompleted = stepsDone[operation]
        spans[operation]?.end = now
        finished[operation] = true
        if case .concurrentPerformIteration(let first) = planned.executor, let thread = item.thread {
            return claimIteration(of: first, pool: item.pool, thread: thread)
        }
        // A queued BlockOperation's next block, still to run: on this thread (a cancelled
        // operation's blocks end at once, as its start does).
        let parent = if case .executionBlock(let of) = planned.executor { of } else { operation }
        if let thread = item.thread, let next = furtherBlocks(of: parent).first(where: { !submitted[$0] }) {
            submitted[next] = true
            cancelled[next] = cancelled[next] || spans[parent]?.ranWork == false
            begin(next, pool: item.pool, thread: thread)
            return
        }
        if case .queue(let queueIndex) = workload.operations[parent].executor,
            suspendedTaskQueue(of: parent) == nil || item.kind == .cancelledStart,
            ([parent] + furtherBlocks(of: parent)).allSatisfy({ finished[$0] })
        {
            queueRunning[queueIndex] -= 1
        }
        release(item.thread, of: item.pool)
    }

    /// The `concurrentPerform` call whose first iteration is planned at `first` begins on the
    /// calling thread: it takes as many threads as iterations, at most one per CPU of the
    /// profile; the calling thread claims the first iteration, and the others are continuations
    /// left on the default pool for its workers (``Executor/concurrentPerformIteration(firstAt:)``).
    mutating func startConcurrentPerform(at first: Int) {
        let iterations = workload.operations.filter { $0.executor == .concurrentPerformIteration(firstAt: first) }
        for _ in 1..<min(iterations.count, profile.cpus) {
            pools[PoolKey(serviceClass: .default), default: Pool()].waiting.append(
                PoolItem(operation: first, handedWork: false, claimsIteration: true))
        }
        claimIteration(of: first, pool: nil, thread: 0)
    }

    /// A thread of the `concurrentPerform` call whose first iteration is planned at `first`
    /// (its calling thread, or a worker that took a continuation, or finished an iteration)
    /// begins the call's next iteration in index order; with none left, the thread is free.
    mutating func claimIteration(of first: Int, pool: PoolKey?, thread: Int) {
        guard
            let next = workload.operations.indices.first(where: {
                workload.operations[$0].executor == .concurrentPerformIteration(firstAt: first) && !submitted[$0]
            })
        else {
            return release(thread, of: pool)
        }
        submitted[next] = true
        begin(next, pool: pool, thread: thread)
    }

    /// Whether a task may start beside those the cooperative pool runs: on Linux each priority's
    /// queue is as wide as the CPUs on its own (the Swift runtime's global executor makes one
    /// queue a priority), on Apple platforms one pool of a thread a CPU serves them all.
    var cooperativePoolHasRoom: Bool {
        guard profile.kind == .apple else { return true }
        let running = workload.queues.indices.filter { workload.queues[$0].isCooperativePool }.map { queueRunning[$0] }
        return running.reduce(0, +) < profile.cpus
    }

    /// The cooperative pool's queue of a task whose work is a timer (`Task.sleep`): it holds its
    /// place only until it suspends, not until the timer fires.
    func suspendedTaskQueue(of operation: Int) -> Int? {
        guard case .queue(let queue) = workload.operations[operation].executor,
            workload.queues[queue].isCooperativePool,
            workload.operations[operation].work == .timer
        else { return nil }
        return queue
    }

    /// The execution blocks after the first of the queued BlockOperation planned at `operation`.
    func furtherBlocks(of operation: Int) -> [Int] {
        furtherBlocksOf[operation]
    }

    /// Frees `thread` (none for a timer): a worker of `pool` goes idle from now; with no pool, it
    /// is the calling thread.
    mutating func release(_ thread: Int?, of pool: PoolKey?) {
        guard let thread else { return }
        if let key = pool, let index = pools[key]?.workers.firstIndex(where: { $0.id == thread }) {
            pools[key]!.workers[index].busy = false
            pools[key]!.workers[index].idleSince = now
        } else if pool == nil {
            callerBusy = false
        }
    }
}
