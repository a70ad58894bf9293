import ExperimentKit
import ExperimentModel
import ExperimentResults

/// The rows and columns `list` shows in every format but JSON: each experiment with its
/// article figure and the prediction at the chosen scale, then what the times mean.
package struct ExperimentList {
    package var header: [String]
    package var rows: [[String]]
    /// The sentences under the table: the time scale, and what `+ CPU work` means when a row has it.
    package var notes: [String]

    package init(_ predictions: [(Experiment, Prediction)], timeScale: Double) {
        rows = predictions.map { experiment, prediction in
            [
                experiment.name,
                experiment.title,
                ArticleText.seconds(experiment.claim, parameters: prediction.parameters, timeScale: timeScale).map {
                    Format.seconds($0)
                } ?? "—",
                "\(Format.seconds(prediction.total)) (\(Format.range(prediction.totalRange)))\(prediction.leavesOutCPUWork ? " + CPU work" : "")",
            ]
        }
        let profile = predictions.first?.1.profile
        header = [
            "name", "title", "article",
            "predicted (\(profile.map { "\($0.kind.rawValue), \(Format.count($0.cpus, "CPU"))" } ?? ""))",
        ]
        notes = ["Times in real seconds at time scale \(timeScale.decimalText)."]
        if predictions.contains(where: { $0.1.leavesOutCPUWork }) {
            notes.append(
                "+ CPU work: real computing (image filters, a benchmark), measured when the experiment runs and added to its prediction then; not included in the figure shown."
            )
        }
    }
}

/// What `describe NAME` shows in text and Markdown: the experiment's parameters, their defaults
/// and accepted values (no table when it has none), then how to change one.
package struct ParameterTable {
    package static let header = ["key", "default", "accepted", "what it sets", "default from"]
    package var heading: String
    package var rows: [[String]]
    package var note: String

    package init(_ experiment: Experiment) {
        heading = "\(experiment.name) · \(experiment.title)"
        rows = experiment.parameters.map {
            [$0.key, $0.defaultValue.parameterText, $0.accepted, $0.summary, ArticleText.originText($0.origin)]
        }
        if let first = experiment.parameters.first {
            note =
                "Change one with --set KEY=VALUE, e.g. run-experiments \(experiment.name) --set \(first.key)=\(first.defaultValue.parameterText)"
        } else {
            note = "No parameters: this experiment runs as the article has it."
        }
    }
}
