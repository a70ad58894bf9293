import Foundation
import Testing

/// Dispatch as the articles use it, pasted by a learner: a block after a delay (`asyncAfter`),
/// a group's `notify` (beside its `wait()`), serial and concurrent queues of the code's own
/// with their barriers, an OperationQueue's barrier block, work items, and `concurrentPerform`.
/// Each edit is predicted, and its run holds to the
/// prediction at full scale and at a quarter, its timers lasting their article seconds times
/// the scale. Both profiles plan these alike: two blocks at once never reach the width where
/// the pools differ.
extension TimedRuns {
    @Suite struct DispatchCorpus {
        typealias Edit = AsynchronousCorpus.Edit

        static let edits: [Edit] = [
            // A block after two seconds: the timer holds no thread, the block then blocks a pool
            // thread for its second, and the group's wait ends with its leave.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "global-async-after",
                    code: """
                        let group = DispatchGroup()
                        group.enter()
                        DispatchQueue.global().asyncAfter(deadline: .now() + 2) {
                            print("two seconds later")
                            sleep(1)
                            group.leave()
                        }
                        group.wait()
                        """, expected: .pass), articleSeconds: 3, ends: ["two seconds later": 3], timers: [2]),
            // The timer runs beside a queue's operation, and fires after the experiment's own
            // sleep: its deadline counts from the instant the thread sets it.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-after-beside-a-queue",
                    code: """
                        let queue = OperationQueue()
                        queue.addOperation { print("on the queue"); sleep(3) }
                        sleep(1)
                        DispatchQueue.global().asyncAfter(deadline: .now() + 1) {
                            print("timer fired")
                            sleep(2)
                        }
                        queue.waitUntilAllOperationsAreFinished()
                        """, expected: .pass), articleSeconds: 4, ends: ["on the queue": 3, "timer fired": 4],
                timers: [1]),
            // The notify block waits for the group's members: an operation that leaves it as its
            // work ends, and a block sent into it; it then blocks a pool thread for its second.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "group-notify-after-its-members",
                    code: """
                        let group = DispatchGroup()
                        let queue = OperationQueue()
                        group.enter()
                        queue.addOperation { print("download"); sleep(2); group.leave() }
                        DispatchQueue.global().async(group: group) { print("resize"); sleep(1) }
                        group.notify(queue: .global()) { print("all done"); sleep(1) }
                        """, expected: .pass), articleSeconds: 3, ends: ["download": 2, "resize": 1, "all done": 3]),
            // A notify and a wait on one group: the wait returns as the group empties, while the
            // notify block runs on.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "group-notify-and-wait",
                    code: """
                        let group = DispatchGroup()
                        for part in 1...2 {
                            DispatchQueue.global().async(group: group) { print("part \\(part)"); sleep(UInt32(part)) }
                        }
                        group.notify(queue: .global()) { print("notified"); sleep(1) }
                        group.wait()
                        print("waited")
                        """, expected: .pass), articleSeconds: 3, ends: ["part 1": 1, "part 2": 2, "notified": 3]),
            // A serial queue of the code's own runs its blocks one at a time, in the order sent.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "serial-queue-in-order",
                    code: """
                        let serial = DispatchQueue(label: "serial")
                        let group = DispatchGroup()
                        for word in ["one", "two", "three"] {
                            serial.async(group: group) { print(word); sleep(1) }
                        }
                        group.wait()
                        """, expected: .pass), articleSeconds: 3, ends: ["one": 1, "two": 2, "three": 3]),
            // Three serial queues, three threads at once: a serial queue's blocks go to the
            // overcommit pool, which does not wait for the monitor as two CPUs' pool would.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "serial-queues-side-by-side",
                    code: """
                        let group = DispatchGroup()
                        for number in 1...3 {
                            let queue = DispatchQueue(label: "serial \\(number)")
                            queue.async(group: group) { print("on queue \\(number)"); sleep(2) }
                        }
                        group.wait()
                        """, expected: .pass), articleSeconds: 2,
                ends: ["on queue 1": 2, "on queue 2": 2, "on queue 3": 2]),
            // A concurrent queue's barrier waits for the reads sent before it, and the read sent
            // after waits for it; a barrier sync waits for them all.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "concurrent-queue-barrier",
                    code: """
                        let shared = DispatchQueue(label: "shared", attributes: .concurrent)
                        shared.async { print("read 1"); sleep(1) }
                        shared.async { print("read 2"); sleep(2) }
                        shared.async(flags: .barrier) { print("write"); sleep(1) }
                        shared.async { print("read 3"); sleep(1) }
                        shared.sync(flags: .barrier) { print("all read") }
                        """, expected: .pass), articleSeconds: 4,
                ends: ["read 1": 1, "read 2": 2, "write": 3, "read 3": 4]),
            // A timer on a serial queue of the code's own: its block is sent after half a second
            // and waits its turn behind the block before it.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-after-on-a-serial-queue",
                    code: """
                        let serial = DispatchQueue(label: "delayed")
                        let group = DispatchGroup()
                        serial.async(group: group) { print("now"); sleep(1) }
                        group.enter()
                        serial.asyncAfter(deadline: .now() + 0.5) {
                            print("half a second later")
                            sleep(1)
                            group.leave()
                        }
                        group.wait()
                        """, expected: .pass), articleSeconds: 2, ends: ["now": 1, "half a second later": 2],
                timers: [0.5]),
            // An OperationQueue's barrier block waits for both downloads, and the operation added
            // after it waits for the barrier.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "operation-queue-barrier",
                    code: """
                        let queue = OperationQueue()
                        queue.addOperation { print("download 1"); sleep(1) }
                        queue.addOperation { print("download 2"); sleep(2) }
                        queue.addBarrierBlock { print("both downloaded"); sleep(1) }
                        queue.addOperation { print("after the barrier"); sleep(1) }
                        queue.waitUntilAllOperationsAreFinished()
                        """, expected: .pass), articleSeconds: 4,
                ends: ["download 1": 1, "download 2": 2, "both downloaded": 3, "after the barrier": 4]),
            // A work item sent to a global queue: its wait ends with its block, and its notify
            // block follows it.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "work-item-wait-and-notify",
                    code: """
                        let item = DispatchWorkItem { print("work item"); sleep(1) }
                        DispatchQueue.global().async(execute: item)
                        item.notify(queue: .global()) { print("item done"); sleep(1) }
                        item.wait()
                        print("waited for the item")
                        """, expected: .pass), articleSeconds: 2, ends: ["work item": 1, "item done": 2]),
            // perform() runs the block on the experiment's thread: what it adds next comes after.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "work-item-performed-here",
                    code: """
                        let item = DispatchWorkItem { print("performed here"); sleep(1) }
                        item.perform()
                        let queue = OperationQueue()
                        queue.addOperation { print("after the item"); sleep(1) }
                        queue.waitUntilAllOperationsAreFinished()
                        """, expected: .pass), articleSeconds: 2, ends: ["after the item": 2]),
            // An item cancelled before it is sent never runs its block; its wait returns at once.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "work-item-cancelled-first",
                    code: """
                        let cancelled = DispatchWorkItem { print("never printed"); sleep(1) }
                        cancelled.cancel()
                        DispatchQueue.global().async(execute: cancelled)
                        let other = DispatchWorkItem { print("runs"); sleep(1) }
                        DispatchQueue.global().async(execute: other)
                        other.wait()
                        cancelled.wait()
                        """, expected: .pass), articleSeconds: 1, ends: ["runs": 1]),
            // A work item made with `.barrier` is a barrier on a concurrent queue, as Dispatch
            // runs it: it waits for both reads, and the read sent after waits for it.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "work-item-barrier",
                    code: """
                        let queue = DispatchQueue(label: "shared", attributes: .concurrent)
                        queue.async { print("read 1"); sleep(1) }
                        queue.async { print("read 2"); sleep(2) }
                        let write = DispatchWorkItem(flags: .barrier) { print("write"); sleep(1) }
                        queue.async(execute: write)
                        queue.async { print("read 3"); sleep(1) }
                        write.wait()
                        queue.sync(flags: .barrier) { print("all done") }
                        """, expected: .pass), articleSeconds: 4,
                ends: ["read 1": 1, "read 2": 2, "write": 3, "read 3": 4]),
            // A work item sent into a group: the group's wait ends with the item's block.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "work-item-in-a-group",
                    code: """
                        let group = DispatchGroup()
                        let item = DispatchWorkItem { print("item in a group"); sleep(2) }
                        DispatchQueue.global().async(group: group, execute: item)
                        group.wait()
                        print("group done")
                        """, expected: .pass), articleSeconds: 2, ends: ["item in a group": 2]),
            // concurrentPerform takes as many threads as iterations, one per CPU at most: the
            // calling thread and one pool worker here, each taking the next iteration as it
            // frees; the call returns when the last ends.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "concurrent-perform-four-sleeps",
                    code: """
                        DispatchQueue.concurrentPerform(iterations: 4) { index in
                            print("iteration \\(index)")
                            sleep(1)
                        }
                        print("all four done")
                        """, expected: .pass), articleSeconds: 2,
                ends: ["iteration 0": 1, "iteration 1": 1, "iteration 2": 2, "iteration 3": 2]),
            // Two iterations, two threads: they run side by side.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "concurrent-perform-two-iterations",
                    code: """
                        DispatchQueue.concurrentPerform(iterations: 2) { index in
                            print("half \\(index + 1)")
                            sleep(2)
                        }
                        """, expected: .pass), articleSeconds: 2, ends: ["half 1": 2, "half 2": 2]),
            // Iterations are claimed as threads free, not split beforehand: while the calling
            // thread sleeps through the long one, the worker takes both short ones.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "concurrent-perform-uneven-iterations",
                    code: """
                        let seconds: [UInt32] = [3, 1, 1]
                        DispatchQueue.concurrentPerform(iterations: seconds.count) { index in
                            print("part \\(index) sleeps \\(seconds[index]) s")
                            sleep(seconds[index])
                        }
                        """, expected: .pass), articleSeconds: 3,
                ends: ["part 0 sleeps 3 s": 3, "part 1 sleeps 1 s": 1, "part 2 sleeps 1 s": 2]),
            // What the thread does after the call follows its last iteration.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "concurrent-perform-then-a-queue",
                    code: """
                        DispatchQueue.concurrentPerform(iterations: 3) { index in
                            print("step \\(index)")
                            sleep(1)
                        }
                        let queue = OperationQueue()
                        queue.addOperation { print("after the loop"); sleep(1) }
                        queue.waitUntilAllOperationsAreFinished()
                        """, expected: .pass), articleSeconds: 3,
                ends: ["step 0": 1, "step 1": 1, "step 2": 2, "after the loop": 3]),
        ]

        @Test(.timeLimit(.minutes(30)), arguments: [1.0, 0.25])
        func everyEditPassesAgainstItsPrediction(scale: Double) throws {
            try AsynchronousCorpus.holdToTheirPredictions(Self.edits, scale: scale)
        }
    }
}
