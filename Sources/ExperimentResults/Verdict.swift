/// How one experiment ended.
package enum Verdict: String, Sendable, Codable {
    /// Ran, and every check held.
    case pass
    /// Ran, and a check did not hold.
    case fail
    /// Did not produce a measurement: it trapped, hung, or its child process failed.
    case error
    /// Not run: the chosen profile is not this platform's, so only the model speaks.
    case predicted
    /// Ran (or was predicted), but its code does something the plan cannot contain (a wait on a
    /// semaphore, say), so no prediction can judge it; the reason names each such construct.
    /// Not a pass: the run exits 1 as for a failure.
    case unmodelled
}
