/// Chooses experiments from the registry by name, by `all`, or by filters.
public struct Selection: Sendable {
    /// The registered experiments, in registry order.
    public let registry: [Experiment]

    public init(registry: [Experiment]) {
        self.registry = registry
    }

    /// The experiment with exactly this name.
    public func experiment(named name: String) -> Experiment? {
        registry.first { $0.name == name }
    }

    /// Experiments whose name or title contains any of the filters, ignoring case.
    public func matching(filters: [String]) -> [Experiment] {
        registry.filter { experiment in
            filters.contains { filter in
                experiment.name.localizedLowercase.contains(filter.localizedLowercase)
                    || experiment.title.localizedLowercase.contains(filter.localizedLowercase)
            }
        }
    }

    /// The registered name closest to `name`, if it is close enough to be a likely typo.
    public func suggestion(for name: String) -> String? {
        let scored = registry.map { ($0.name, editDistance(name.lowercased(), $0.name)) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        let closeEnough = max(2, best.0.count / 3)
        if best.1 <= closeEnough { return best.0 }
        // A fragment of a name ("serial") is also a likely meaning.
        return registry.first { $0.name.contains(name.lowercased()) }?.name
    }
}

/// Levenshtein distance between two strings, counted in characters.
func editDistance(_ a: String, _ b: String) -> Int {
    let a = Array(a), b = Array(b)
    if a.isEmpty { return b.count }
    var previous = Array(0...b.count)
    for i in 1...a.count {
        var current = [i] + Array(repeating: 0, count: b.count)
        for j in 1...max(b.count, 1) where j <= b.count {
            let substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)
            current[j] = min(previous[j] + 1, current[j - 1] + 1, substitution)
        }
        previous = current
    }
    return previous[b.count]
}
