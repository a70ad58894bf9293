import TestSupport
import Testing

@testable import SwiftScanner

/// The `async let`s of a file, as the lab places a task's waits beside them: at the top level of
/// a `Task`'s body, each is awaited where the body first uses its name, or at the body's end;
/// any other shape is named at its line with why the text does not place it.
@Suite(.serialized, .oneAtATime) struct SwiftSourceAsyncLetTests {
    @Test func aTasksAsyncLetsAreAwaitedWhereTheBodyFirstUsesThem() {
        let text = """
            let done = DispatchSemaphore(value: 0)
            Task.detached(priority: .high) {
                async let first = part(1)
                async let second: Int = part(2)
                async let _ = part(3)
                for _ in 1...2 { sleep(1) }
                let sum = await first + second
                print(second, sum, first)
                done.signal()
            }
            """
        let (bodies, unplaced) = SwiftSource(text: text).asyncLets()
        #expect(unplaced.isEmpty)
        #expect(
            bodies == [
                SwiftSource.AsyncLetBody(
                    lines: 2...10,
                    declarations: [
                        .init(name: "first", line: 3, awaitedAt: 7), .init(name: "second", line: 4, awaitedAt: 7),
                        .init(name: "_", line: 5, awaitedAt: nil),
                    ])
            ])
    }

    @Test func whatTheTextDoesNotPlaceIsNamedAtItsLine() {
        let text = """
            func both() async {
                async let one = part(1)
                await one
            }
            Task {
                async let (left, right) = (part(1), part(2))
                async let later = part(3)
                if Bool.random() { print(await later) }
                async let labelled = part(4)
                print(labelled: 1, await labelled)
            }
            Task {
                defer { sleep(1) }
                async let deferred = part(5)
                await deferred
            }
            Task {
                async let inner = part(6)
                async let outer = part(await inner)
                await outer
            }
            """
        let (bodies, unplaced) = SwiftSource(text: text).asyncLets()
        #expect(bodies.isEmpty)
        #expect(unplaced.map(\.line) == [2, 6, 7, 9, 14, 18, 19])
        #expect(unplaced[0].why == SwiftSource.outsideATask)
        #expect(unplaced[1].why.hasPrefix("it binds a pattern of several names"))
        #expect(unplaced[2].why.hasPrefix("it is first awaited inside a block or closure"))
        #expect(unplaced[3].why.hasPrefix("its name also labels something"))
        #expect(unplaced[4].why.hasPrefix("the task's body holds a defer or a local function"))
        #expect(unplaced[5].why == SwiftSource.awaitedInAChild)
        #expect(unplaced[6].why == SwiftSource.besideUnplaced)
    }
}
