import ExperimentModel
import ExperimentKit
import ExperimentRunner

/// Where each file of a report folder lives, relative to the folder: what the renderers link to
/// and the report's writer writes.
public enum ReportLayout {
    public static let markdownFile = "report.md"
    public static let jsonFile = "report.json"
    public static let htmlFile = "index.html"
    public static let timelinesFolder = "timelines"

    /// Where an experiment's timeline picture lives, relative to the report folder.
    public static func timelinePath(_ experiment: Experiment) -> String {
        timelinePath(experiment.name)
    }

    /// Where the timeline picture of the experiment called `name` lives.
    public static func timelinePath(_ name: String) -> String {
        "\(timelinesFolder)/\(name).svg"
    }
}
