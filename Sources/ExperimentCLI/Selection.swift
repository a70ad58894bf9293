import ExperimentKit
import ExperimentRunner
import Foundation

/// Chooses experiments from the registry by name, by `all`, or by filters.
package struct Selection: Sendable {
    /// The registered experiments, in registry order.
    package let registry: [Experiment]

    package init(registry: [Experiment]) {
        self.registry = registry
    }

    /// The experiment with exactly this name.
    package func experiment(named name: String) -> Experiment? {
        registry.first { $0.name == name }
    }

    /// Experiments whose name or title contains any of the filters, ignoring case.
    package func matching(filters: [String]) -> [Experiment] {
        registry.filter { experiment in
            filters.contains { filter in
                experiment.name.localizedLowercase.contains(filter.localizedLowercase)
                    || experiment.title.localizedLowercase.contains(filter.localizedLowercase)
            }
        }
    }

    /// The error for a name no experiment has, with the likely meaning if there is one.
    package func unknown(_ name: String) -> UsageError {
        let hint = suggestion(for: name).map { " Did you mean '\($0)'?" } ?? " See 'run-experiments list'."
        return UsageError("Unknown experiment \(Format.echoed(name)).\(hint)")
    }

    /// The registered name closest to `name`, if it is close enough to be a likely typo.
    package func suggestion(for name: String) -> String? {
        let typed = name.lowercased()
        if let close = closest(to: typed, among: registry.map(\.name), allowed: { max(2, $0.count / 3) }) {
            return close
        }
        // A fragment of a name ("serial") is also a likely meaning.
        return registry.first { $0.name.contains(typed) }?.name
    }
}

/// The candidate closest to `text` in edit distance, among those within `allowed(candidate)`
/// edits of it. The distance is at least the difference in length, so a candidate whose length
/// differs by more is skipped uncompared: a 100 000-character text costs a count, not seconds.
package func closest(to text: String, among candidates: [String], allowed: (String) -> Int) -> String? {
    let length = text.count
    var best: (name: String, distance: Int)?
    for candidate in candidates where abs(length - candidate.count) <= allowed(candidate) {
        let distance = editDistance(text, candidate)
        if distance <= allowed(candidate), distance < best?.distance ?? .max {
            best = (candidate, distance)
        }
    }
    return best?.name
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
