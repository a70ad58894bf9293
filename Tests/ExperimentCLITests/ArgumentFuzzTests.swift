import ExperimentKit
import ExperimentRunner
import TestSupport
import Testing

@testable import ExperimentCLI

/// Thousands of random command lines: the parser never crashes, and every one ends in a command
/// or a usage error (exit 0/1 when it runs, 64 when it does not).
@Suite(.serialized, .oneAtATime) struct ArgumentFuzzTests {
    static let pieces = [
        "all", "list", "help", "serial-queue", "serial-queu", "qos-ordering", "nope", "", " ", "-", "--", "-h",
        "--help",
        "--version", "--filter", "--filter=queue", "--time-scale", "--time-scale=0.1", "--profile", "--profile=apple",
        "--format", "--format=json", "--report", "describe", "--set", "--set=width=3", "width=default", "--cpus",
        "--cpus=1", "--repeat", "2", "--report-dir", "--report-dir=/tmp/x", "--bogus", "__child", "watch",
        "0", "-1", "0.05", "10", "1e308", "nan", "inf", "-inf", "0x10", "1_000", "linux", "apple", "text", "json",
        "markdown", "xml", "Каждый 🍎", "💧☂️", "\u{0}", "\u{202E}rtl", String(repeating: "a", count: 300), "=", "--=",
    ]

    static let registry = ["serial-queue", "qos-ordering", "concurrent-printer-queue"].map { name in
        Experiment(name, source: ArticleSource(file: "f.txt", section: "s")) { _, _ in Outcome() }
    }

    @Test func randomCommandLinesNeverCrash() {
        var generator = SeededGenerator(seed: 20_261_122)
        var outcomes: [String: Int] = [:]
        for _ in 0..<3000 {
            let count = Int.random(in: 0...6, using: &generator)
            let arguments = (0..<count).map { _ in Self.pieces.randomElement(using: &generator)! }
            let outcome: String
            do {
                switch try ArgumentParser.parse(arguments) {
                case .run(let options):
                    _ = try RunExperimentsCommand.select(options, from: Self.registry)
                    outcome = "runs (exit 0 or 1)"
                case .watch(let options):
                    _ = try RunExperimentsCommand.select(options, from: Self.registry)
                    outcome = "watches (until a signal)"
                case .list, .help, .version, .describe:
                    outcome = "informs (exit 0)"
                case .child, .plans:
                    outcome = "child"
                case .new:
                    outcome = "writes a starter"
                }
            } catch {
                #expect(!error.message.isEmpty)
                outcome = "usage error (exit 64)"
            }
            outcomes[outcome, default: 0] += 1
        }
        // Every kind of answer was reached, so the fuzzing explored the parser.
        #expect(outcomes["usage error (exit 64)", default: 0] > 100)
        #expect(outcomes["runs (exit 0 or 1)", default: 0] > 10)
        #expect(outcomes["informs (exit 0)", default: 0] > 10)
    }
}
