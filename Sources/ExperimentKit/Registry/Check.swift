/// One thing the verdict looked at, phrased so a learner can read it; or a note shown with them.
public struct Check: Sendable, Codable, Equatable {
    public var description: String
    public var passed: Bool
    /// A note: something measured and worth showing beside the checks (the race as it fell, a
    /// comparison), which holds whatever happened and so decides nothing.
    public var isNote: Bool

    public init(_ description: String, passed: Bool) {
        self.description = description
        self.passed = passed
        isNote = false
    }

    /// A note, not a check: it cannot fail, and the verdict does not count it.
    public static func note(_ description: String) -> Check {
        var note = Check(description, passed: true)
        note.isNote = true
        return note
    }

    /// How a list of checks marks it: `✓` held, `✗` did not, `·` a note.
    public var mark: String {
        isNote ? "·" : passed ? "✓" : "✗"
    }
}
