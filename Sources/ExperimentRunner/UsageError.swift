/// A command line that cannot be obeyed; printed as `Error: …` with the usage, exit 64.
package struct UsageError: Error, Equatable, Sendable {
    package var message: String

    package init(_ message: String) {
        self.message = message
    }
}
