import ExperimentModel

/// A command line that cannot be obeyed; printed as `Error: …` with the usage, exit 64.
public struct UsageError: Error, Equatable, Sendable {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }
}
