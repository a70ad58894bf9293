import ExperimentKit

/// Where each file of a report folder lives, relative to the folder: what the renderers link to
/// and the report's writer writes.
package enum ReportLayout {
    package static let markdownFile = "report.md"
    package static let jsonFile = "report.json"
    package static let htmlFile = "index.html"
    /// The round a `watch` last wrote, which its page loads each second to follow it.
    package static let roundFile = "round.js"
    static let timelinesFolder = "timelines"

    /// Where an experiment's timeline picture lives, relative to the report folder.
    package static func timelinePath(_ experiment: Experiment) -> String {
        timelinePath(experiment.name)
    }

    /// Where the timeline picture of the experiment called `name` lives.
    package static func timelinePath(_ name: String) -> String {
        "\(timelinesFolder)/\(name).svg"
    }
}
