import ExperimentKit
import ExperimentResults

/// The line of code a CI annotation points at: the package-relative file of the experiment, and
/// the line of the first construct an `unmodelled` verdict names there, else the line its
/// `Experiment(` call begins on.
package struct AnnotationLocation: Equatable, Sendable {
    /// Relative to the package's folder: `Experiments/000-OperationAndOperationQueue/SerialQueue.swift`.
    package var file: String
    package var line: Int

    package init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// Where `result`'s experiment is declared; nil for one whose file the compiler did not give
    /// under an `Experiments/` folder.
    package init?(_ result: ExperimentResult) {
        guard let declaration = result.experiment.declaration,
            let own = SourceLine(experimentFile: declaration.path, line: declaration.line)
        else { return nil }
        file = "Experiments/" + own.path
        line = declaration.line
        if result.verdict == .unmodelled {
            // A construct's site names its file as a reader looks for it (`Probe.swift:22`).
            let sites = result.prediction.workload.unmodelled.compactMap { $0.site.flatMap(SourceLine.init) }
            if let site = sites.first(where: { $0.name == own.name }) {
                line = site.line
            }
        }
    }
}

/// GitHub Actions' workflow commands for the results a pull request should show beside the
/// code: `::error` for a `fail` or an `error`, `::warning` for an `unmodelled`, each at the
/// experiment's file and line. Written to stderr, which the Actions runner reads for commands
/// as it reads stdout, so that no format written to stdout (JSON, JUnit) is broken by them.
package enum GitHubAnnotations {
    /// Whether the run is a GitHub Actions job: the variable Actions sets in every step.
    package static func isActionsJob(_ environment: [String: String]) -> Bool {
        environment["GITHUB_ACTIONS"] == "true"
    }

    /// One command per result that should be seen, in the results' order.
    package static func commands(for results: [ExperimentResult]) -> [String] {
        results.compactMap { result in
            let level: String
            switch result.verdict {
            case .fail, .error: level = "error"
            case .unmodelled: level = "warning"
            case .pass, .predicted: return nil
            }
            var properties: [String] = []
            if let location = AnnotationLocation(result) {
                properties += ["file=\(property(location.file))", "line=\(location.line)"]
            }
            properties.append("title=\(property("\(result.experiment.name): \(result.verdict.rawValue)"))")
            return "::\(level) \(properties.joined(separator: ","))::\(data(result.reason ?? result.verdict.rawValue))"
        }
    }

    /// A command's message, as the Actions toolkit escapes it: `%`, CR and LF.
    static func data(_ text: String) -> String {
        text.replacingScalars(["%": "%25", "\r": "%0D", "\n": "%0A"])
    }

    /// A property's value: the message's escapes, and the `:` and `,` that end a property.
    static func property(_ text: String) -> String {
        data(text).replacingScalars([":": "%3A", ",": "%2C"])
    }
}
