import ExperimentKit

/// What every Swift-concurrency counterpart shares: where it comes from, why it matches the
/// article here, and how it is shown beside the Operation version it restates.
enum ModernCounterpart {
    /// The original's article and section, marked as its counterpart.
    static func source(of original: Experiment) -> ArticleSource {
        ArticleSource(file: original.source.file, section: original.source.section + " (Swift concurrency counterpart)")
    }

    /// Why the counterparts give the article's figures on Linux.
    static let platformDifference =
        "Nothing blocks a thread: each child awaits Task.sleep, which holds none, so the size of Linux's thread pool does not matter and the article's figures hold."

    /// The last line the run printed that begins with `prefix` (`outputArray [3, 7]`): what a
    /// counterpart's task shows of its result; nil when it printed none.
    static func line(startingWith prefix: String, in measurement: MeasuredRun) -> String? {
        measurement.output.last { $0.text.hasPrefix(prefix) }?.text
    }

    /// The Operation version's figures beside this one's, both as the model predicts them on the
    /// run's platform: a note shown with the checks, the comparison.
    static func beside(_ original: Experiment, _ prediction: Prediction) -> Check {
        let theirs = Scheduler.predict(
            original.workload(), profile: prediction.profile, timeScale: prediction.timeScale)
        func figures(_ prediction: Prediction) -> String {
            "\(Format.seconds(prediction.total)), \(prediction.maximumOverlapRange.upperBound) at once"
        }
        return .note(
            "beside the Operation version, \(original.name): the model gives it \(figures(theirs)) here; this one \(figures(prediction))"
        )
    }
}
