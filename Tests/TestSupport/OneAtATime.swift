import Testing

extension Trait where Self == OneAtATime {
    /// The suite takes the test process's turn: no other suite with this trait runs beside it.
    public static var oneAtATime: Self { OneAtATime() }
}

/// A suite that runs alone: every suite of the package's tests has this trait, and `.serialized`
/// beside it, so `swift test` as typed, parallel by default, runs one test at a time, as
/// `--no-parallel` would. Three reasons: timing, since a suite that computes (a parser's fuzzing,
/// an image filter) beside a timed experiment takes a core from it on a 2-core machine; the
/// Experiments module's instrumented Foundation, which reports to the one lab session of the
/// process (while a rehearsal is open, an operation another suite cancels is read as the
/// rehearsal's cancel); and the two cooperative threads of a 2-core machine, which two tests
/// rehearsing at once can both block, one inside its session waiting for a Task, the other
/// waiting for that session to close: a deadlock, which `.serialized` rules out. Each suite
/// holds the turn from its first test to its last.
public struct OneAtATime: SuiteTrait, TestScoping {
    public var isRecursive: Bool { false }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        await Turn.shared.take()
        do {
            try await function()
        } catch {
            await Turn.shared.give()
            throw error
        }
        await Turn.shared.give()
    }
}

/// The process's one turn, handed to those waiting in the order they asked. Waiting suspends a
/// task; it blocks no thread.
private actor Turn {
    static let shared = Turn()
    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    func give() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}
