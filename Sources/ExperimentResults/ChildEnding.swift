/// How a child ended, seen from the parent.
package enum ChildEnding: Sendable, Equatable {
    /// The experiment returned and the child exited normally.
    case returned
    /// The watchdog stopped it after this many seconds.
    case hung(afterSeconds: Double)
    /// It was killed by this signal (a trap).
    case trapped(signal: Int32)
    /// It exited with this non-zero status.
    case exited(status: Int32)
    /// It exited normally but its output did not say the experiment returned.
    case unreadable
    /// The run was interrupted (SIGINT, SIGTERM) and the child stopped.
    case interrupted(signal: Int32)
}

extension ChildEnding {
    /// `returned`, `hung`, `trapped`, `exited`, `unreadable` or `interrupted`, as the JSON
    /// output names how the child ended.
    package var name: String {
        switch self {
        case .returned: return "returned"
        case .hung: return "hung"
        case .trapped: return "trapped"
        case .exited: return "exited"
        case .unreadable: return "unreadable"
        case .interrupted: return "interrupted"
        }
    }
}
