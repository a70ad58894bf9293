import ExperimentCLI
import ExperimentKit
import ExperimentRunner
import TestSupport
import Testing

/// Choosing experiments by name and filter, and the "Did you mean" of a mistyped name.
@Suite(.serialized, .oneAtATime) struct SelectionTests {
    @Test func suggestionsForMistypedNames() {
        let names = ["serial-queue", "qos-ordering", "concurrent-printer-queue"]
        let registry = names.map { name in
            Experiment(name, source: ArticleSource(file: "f", section: "s")) { _, _ in Outcome() }
        }
        let selection = Selection(registry: registry)
        #expect(selection.suggestion(for: "serial-queu") == "serial-queue")
        #expect(selection.suggestion(for: "qos") == "qos-ordering")
        #expect(selection.suggestion(for: "zzzzzzzzzzzz") == nil)
        #expect(selection.matching(filters: ["QUEUE"]).map(\.name) == ["serial-queue", "concurrent-printer-queue"])
    }

    /// The "Did you mean" search compares only names it could be a typo of: a 100 000-character
    /// name is refused in milliseconds, not after seconds of edit distances.
    @Test func suggestionsForAVeryLongNameAreBounded() {
        let registry = (0..<40).map { index in
            Experiment("experiment-number-\(index)", source: ArticleSource(file: "f", section: "s")) { _, _ in Outcome()
            }
        }
        let selection = Selection(registry: registry)
        let name = String(repeating: "x", count: 100_000)
        let started = ContinuousClock.now
        let error = selection.unknown(name)
        let elapsed = ContinuousClock.now - started
        #expect(elapsed < .milliseconds(100), "took \(elapsed)")
        #expect(
            error.message
                == "Unknown experiment '\(name.prefix(40))…\(name.suffix(30))' (100000 characters). See 'run-experiments list'."
        )
        #expect(
            selection.unknown("experiment-numbr-7").message
                == "Unknown experiment 'experiment-numbr-7'. Did you mean 'experiment-number-7'?")
    }
}
