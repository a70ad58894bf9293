import ExperimentKit
import Foundation

/// The help text, in swift-argument-parser's layout.
package enum Usage {
    package static let version = "0.1.0"

    /// The usage line of a run, from the option declarations.
    package static var line: String {
        let options = ArgumentParser.declarations.filter { $0.answer == nil }
        return (["run-experiments <all | NAME ...>"] + options.map(\.usage)).joined(separator: " ")
    }

    /// The usage line of `list`: the options it takes, and of the formats those with no
    /// verdicts to write (JUnit is a run's).
    static var listLine: String {
        let formats = OutputFormat.allCases.filter { $0 != .junit }.map(\.rawValue).joined(separator: "|")
        let options = ArgumentParser.declarations.filter(\.forList).map {
            $0.name == "--format" ? "[--format \(formats)]" : $0.usage
        }
        return (["run-experiments list"] + options).joined(separator: " ")
    }

    /// The column descriptions start at, and the width they wrap to.
    static let descriptionColumn = 36, width = 110

    /// One row of a help section: the label, then the description wrapped under its own column.
    static func row(_ label: String, _ description: String) -> String {
        var lines: [String] = []
        var line = ""
        for word in description.split(separator: " ") {
            if !line.isEmpty, descriptionColumn + line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        lines.append(line)
        let indent = String(repeating: " ", count: descriptionColumn)
        let first = "  " + label.padding(toLength: descriptionColumn - 2, withPad: " ", startingAt: 0)
        return first + lines.joined(separator: "\n" + indent)
    }

    package static func help(registry: [Experiment]) -> String {
        // As wide as the longest name, so that none is cut.
        let nameColumn = registry.map(\.name.count).reduce(32, max)
        let names = registry.map {
            "  \($0.name.padding(toLength: nameColumn, withPad: " ", startingAt: 0)) \($0.title)"
        }
        let options = ArgumentParser.declarations.map { row($0.helpLabel, $0.fullHelp) }
        return """
            OVERVIEW: Runs the experiments of the articles on Operation and OperationQueue,
            times them, and sets each beside the article's figure and this platform's prediction.

            USAGE: \(line)
                   \(listLine)

            ARGUMENTS:
            \(row("all", "Every registered experiment."))
            \(row("NAME", "One or more experiment names (see below)."))

            OPTIONS:
            \(options.joined(separator: "\n"))

            SUBCOMMANDS:
            \(row("list", "List the experiments with the article's figures and the predictions."))
            \(row("describe NAME", "Show an experiment's parameters, defaults and accepted values."))
            \(row("watch NAME ...", "Run the experiments, then again on every save of a file under Experiments/: rebuilt as 'swift run' builds, each round replacing the last on screen and in the report folder, which an open index.html follows. Takes --filter, --time-scale, --set, --cpus, --lines, --report-dir."))
            \(row("new NAME", "Start your own experiment: writes Experiments/Playground/<Name>.swift (run it from the package's folder)."))
            \(row("help", "Show help information."))

            EXPERIMENTS:
            \(names.joined(separator: "\n"))

            EXIT STATUS: 0 when every verdict passes, 1 when one fails or errors, 64 on a usage error, 74 when
              the results or the report cannot be written, 128 + N after signal N (129 SIGHUP, 130 SIGINT,
              143 SIGTERM), 141 when stdout's reader goes away.
            """
    }

    /// The lines printed after a usage error's message.
    static let errorHint = """
        Usage: \(line)
        See 'run-experiments --help' for more information.
        """
}
