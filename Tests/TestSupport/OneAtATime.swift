import Testing

extension Trait where Self == OneAtATime {
    /// The suite takes the test process's turn: no other suite with this trait runs beside it.
    public static var oneAtATime: Self { OneAtATime() }
}

/// A suite that must not run beside another: it times experiments, or it uses the Experiments
/// module's instrumented Foundation, whose lab session is one per process (while a rehearsal is
/// open, every instrumented object in the process reports to it, so an operation another test
/// cancels would be read as the rehearsal's cancel). Each such suite holds the turn from its
/// first test to its last; suites without the trait (the model's, the parser's, the renderers')
/// run beside them, as Swift Testing runs suites by default.
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
