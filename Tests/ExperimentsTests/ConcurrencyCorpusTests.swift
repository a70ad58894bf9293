import Foundation
import Testing

/// Swift concurrency as a learner writes it from the experiment's thread: tasks that block a
/// thread of the cooperative pool, tasks suspended in `Task.sleep`, which hold none, a task
/// that does both (a chain of steps), a detached task, a cancel that cuts a `Task.sleep`
/// short, task groups whose children suspend or block, all at once or two in flight, and
/// `async let` children that block or suspend, awaited, then slept after, or never awaited. Each
/// edit is predicted, and its run holds to the prediction at full scale and at a quarter, its
/// `Task.sleep`s lasting their article seconds times the scale. Both profiles give the pool a
/// thread a CPU, so they agree here.
extension TimedRuns {
    @Suite struct ConcurrencyCorpus {
        typealias Edit = AsynchronousCorpus.Edit

        static let edits: [Edit] = [
            // Three tasks that block: the cooperative pool runs one a CPU, so the third waits
            // for the first two, and the pool does not grow while they block.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "tasks-that-block",
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        for number in 1...3 {
                            Task {
                                print("task \\(number)")
                                sleep(1)
                                done.signal()
                            }
                        }
                        for _ in 1...3 { done.wait() }
                        """, expected: .pass), articleSeconds: 2, ends: ["task 1": 1, "task 2": 1, "task 3": 2]),
            // Four tasks suspended in `Task.sleep`: a suspended task holds no thread, so all four
            // wait at once.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "tasks-that-suspend",
                    code: """
                        let group = DispatchGroup()
                        for word in ["one", "two", "three", "four"] {
                            group.enter()
                            Task {
                                print(word)
                                try? await Task.sleep(for: .seconds(2))
                                group.leave()
                            }
                        }
                        group.wait()
                        """, expected: .pass), articleSeconds: 2,
                ends: ["one": 2, "two": 2, "three": 2, "four": 2]),
            // A task that sleeps until a deadline of the continuous clock: the time to it is
            // article time, as a `Task.sleep(for:)`'s.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-sleeps-until-a-deadline",
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            print("until")
                            try? await Task.sleep(until: .now + .seconds(1), clock: .continuous)
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 1, ends: ["until": 1]),
            // A detached task, with a priority, beside the experiment's own sleep.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "detached-task",
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task.detached(priority: .high) {
                            print("detached")
                            try? await Task.sleep(nanoseconds: 1_500_000_000)
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 1.5, ends: ["detached": 1.5]),
            // A cancel from the experiment's thread after its own second cuts the task's
            // `Task.sleep` short: it throws then, and the task ends.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-cancelled-while-it-sleeps",
                    code: """
                        let task = Task {
                            print("long wait")
                            try? await Task.sleep(for: .seconds(5))
                        }
                        sleep(1)
                        task.cancel()
                        """, expected: .pass), articleSeconds: 1, ends: ["long wait": 1]),
            // The tutorials' cancel: a loop of `Task.sleep`s that only a cancel ends. The cancel
            // at 1 s cuts the sleep it meets short, and the loop sees it and ends: the task
            // suspended 1 s of the plan's endless timer, as planned, not a drift.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-sleeps-until-cancelled",
                    code: """
                        let task = Task {
                            var rounds = 0
                            while !Task.isCancelled {
                                rounds += 1
                                print("working")
                                try? await Task.sleep(for: .seconds(0.3))
                            }
                            print("cancelled after", rounds, "rounds")
                        }
                        sleep(1)
                        task.cancel()
                        """, expected: .pass), articleSeconds: 1, ends: ["working": 1]),
            // The same with `Task.checkCancellation()` before each of ten steps: the cancel
            // throws out of the step it meets, at 1 s, not after the ten.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-checks-its-cancel-between-sleeps",
                    code: """
                        let task = Task {
                            do {
                                for step in 1...10 {
                                    try Task.checkCancellation()
                                    print("step", step)
                                    try await Task.sleep(for: .seconds(0.3))
                                }
                            } catch {
                                print("stopped")
                            }
                        }
                        sleep(1)
                        task.cancel()
                        """, expected: .pass), articleSeconds: 1, ends: ["step 1": 1]),
            // A chain of steps started after the experiment's thread waited for a queue: its
            // steps wait for that queue's work too, and each still follows the one before.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-steps-after-a-wait",
                    code: """
                        let queue = OperationQueue()
                        queue.addOperation { print("first"); sleep(1) }
                        queue.waitUntilAllOperationsAreFinished()
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            print("steps")
                            sleep(1)
                            try? await Task.sleep(for: .seconds(1))
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 3,
                ends: ["first": 1, "steps": 2, "steps: Task.sleep 1.00 s": 3]),
            // A task that blocks and looks at `Task.isCancelled` before each second stops at its
            // first look after the cancel: the second after 2.5 s ends at 3 s.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-looks-at-its-cancel",
                    code: """
                        let task = Task {
                            print("counting seconds")
                            while !Task.isCancelled {
                                sleep(1)
                            }
                        }
                        usleep(2_500_000)
                        task.cancel()
                        """, expected: .pass), articleSeconds: 3, ends: ["counting seconds": 3]),
            // A task that blocks, suspends, then blocks again: a chain of three steps, each after
            // the one before; the sleeps hold a thread of the pool, the suspension none.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-that-blocks-and-suspends",
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            print("steps")
                            sleep(1)
                            try? await Task.sleep(for: .seconds(2))
                            sleep(1)
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 4,
                ends: ["steps": 1, "steps: Task.sleep 2.00 s": 3, "steps: sleep 1.00 s": 4]),
            // A task group of seven children suspended in `Task.sleep`: none holds a thread, so
            // all seven wait at once, and what the task does after its group waits for them all.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-group-of-sleepers",
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            await withTaskGroup(of: Void.self) { group in
                                for word in ["one", "two", "three", "four", "five", "six", "seven"] {
                                    group.addTask {
                                        print(word)
                                        try? await Task.sleep(for: .seconds(2))
                                    }
                                }
                            }
                            print("all seven")
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 2,
                ends: ["one": 2, "four": 2, "seven": 2]),
            // The articles' bounded group: two children, then one more each time `next()` returns
            // one (added unless the group is cancelled); a child added after the `n`th `next()`
            // starts as the `n`th child ends.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "task-group-two-in-flight",
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            await withTaskGroup(of: Void.self) { group in
                                var words = ["one", "two", "three", "four", "five"][...]
                                for word in words.prefix(2) {
                                    group.addTask { print(word); try? await Task.sleep(for: .seconds(1)) }
                                }
                                words = words.dropFirst(2)
                                while await group.next() != nil {
                                    guard let word = words.popFirst() else { continue }
                                    guard group.addTaskUnlessCancelled(operation: {
                                        print(word); try? await Task.sleep(for: .seconds(1))
                                    }) else { break }
                                }
                            }
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 3,
                ends: ["one": 1, "two": 1, "three": 2, "four": 2, "five": 3]),
            // A throwing group of children that block, each added unless the group is cancelled:
            // two at a time on two CPUs, and the sum after the group waits for the third.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "throwing-task-group-that-blocks",
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            print("summing")
                            let total = try await withThrowingTaskGroup(of: Int.self) { group in
                                for part in 1...3 {
                                    let added = group.addTaskUnlessCancelled {
                                        print("part \\(part)")
                                        sleep(1)
                                        return part
                                    }
                                    if !added { break }
                                }
                                var sum = 0
                                for try await value in group { sum += value }
                                return sum
                            }
                            print("total \\(total)")
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 2,
                ends: ["part 1": 1, "part 2": 1, "part 3": 2, "summing": 2]),
            // Two `async let`s whose children block: each child is a task of the cooperative
            // pool, started where the body declares it, and the body's first use of their
            // names awaits both; two CPUs run both at once.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-lets-that-block",
                    declarations: """
                        func slowPart(_ number: Int) -> Int {
                            print("part \\(number)")
                            sleep(1)
                            return number
                        }
                        """,
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            async let first = slowPart(1)
                            async let second = slowPart(2)
                            let sum = await first + second
                            print("sum \\(sum)")
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 1,
                ends: ["async let first": 1, "async let second": 1, "sum 3": 1]),
            // Three: the pool runs two a CPU, so the third, enqueued last, waits for a thread.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "three-async-lets-that-block",
                    declarations: """
                        func slowThird(_ number: Int) -> Int {
                            print("third \\(number)")
                            sleep(1)
                            return number
                        }
                        """,
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            async let first = slowThird(1)
                            async let second = slowThird(2)
                            async let third = slowThird(3)
                            let sum = await first + second + third
                            print("sum \\(sum)")
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 2,
                ends: ["async let first": 1, "async let second": 1, "async let third": 2, "sum 6": 2]),
            // Two children suspended in `Task.sleep`: neither holds a thread, both wait at once.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-lets-that-suspend",
                    declarations: """
                        func pausedWord(_ word: String) async -> String {
                            print(word)
                            try? await Task.sleep(for: .seconds(2))
                            return word
                        }
                        """,
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            async let one = pausedWord("one")
                            async let two = pausedWord("two")
                            let words = await [one, two]
                            print(words.joined(separator: " "))
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 2,
                ends: ["async let one": 2, "async let two": 2, "one two": 2]),
            // A child awaited before the body's own `sleep(1)`: the sleep begins as the child ends.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-let-then-a-sleep",
                    declarations: """
                        func slowReady() -> Bool {
                            print("getting ready")
                            sleep(1)
                            return true
                        }
                        """,
                    code: """
                        let done = DispatchSemaphore(value: 0)
                        Task {
                            async let ready = slowReady()
                            let isReady = await ready
                            print("ready: \\(isReady)")
                            sleep(1)
                            done.signal()
                        }
                        done.wait()
                        """, expected: .pass), articleSeconds: 2,
                ends: ["async let ready": 1, "ready: true": 2]),
            // A child never awaited: the body's end awaits it, so the task lasts as long as it.
            Edit(
                edit: LearnerCorpus.Edit(
                    name: "async-let-never-awaited",
                    declarations: """
                        func slowSave() -> Bool {
                            print("saving")
                            sleep(1)
                            return true
                        }
                        """,
                    code: """
                        Task {
                            async let _ = slowSave()
                            print("not waiting for the save")
                        }
                        """, expected: .pass), articleSeconds: 1,
                ends: ["async let _": 1, "not waiting for the save": 1]),
        ]

        @Test(.timeLimit(.minutes(30)), arguments: [1.0, 0.25])
        func everyEditPassesAgainstItsPrediction(scale: Double) throws {
            try AsynchronousCorpus.holdToTheirPredictions(Self.edits, scale: scale)
        }
    }
}
