import ExperimentModel
import Foundation

/// What an experiment's `run` receives: the time scale, the clock and the timeline to record into.
public struct RunContext: Sendable {
    /// Real seconds per article second.
    public let timeScale: Double
    /// Where the experiment records its operations and printed lines.
    public let timeline: Timeline
    /// Where experiments that make pictures write them (the run's report folder's `images/`);
    /// nil when the run writes no files.
    public let imagesDirectory: URL?
    /// The values of the experiment's knobs for this run (the article's unless `--set`).
    public let parameters: Parameters
    /// Whether this is the lab's rehearsal (see ``Lab``): nothing runs, and the experiment's own
    /// thread's waits only move the rehearsal's clock.
    public let isRehearsal: Bool

    public init(
        timeScale: Double, timeline: Timeline, imagesDirectory: URL? = nil, parameters: Parameters = Parameters([]),
        rehearsing: Bool = false
    ) {
        self.timeScale = timeScale
        self.timeline = timeline
        self.imagesDirectory = imagesDirectory
        self.parameters = parameters
        self.isRehearsal = rehearsing
    }

    /// Real seconds for a duration given in article seconds.
    public func realSeconds(_ articleSeconds: Double) -> Double {
        articleSeconds * timeScale
    }

    /// Blocks the calling thread for `articleSeconds` (scaled), as the articles' `sleep(n)` does.
    public func sleep(articleSeconds: Double) {
        guard !isRehearsal else { return }
        timeline.sleep(untilSeconds: timeline.now() + realSeconds(articleSeconds))
    }

    /// Blocks the calling thread until `articleSeconds` (scaled) after the experiment's start:
    /// how the experiments time a `cancel()`.
    public func sleep(untilArticleSeconds articleSeconds: Double) {
        Lab.current?.advance(toArticleSeconds: articleSeconds)
        if isRehearsal { return }
        Lab.current?.waiting()
        timeline.sleep(untilSeconds: realSeconds(articleSeconds))
    }

    /// Prints a line into the experiment's output, with its time.
    public func print(_ text: String) {
        timeline.print(text)
    }

    /// Records one experiment-specific result as soon as it is known, so it survives a hang
    /// or a trap later in the run.
    public func record(_ key: String, _ value: JSONValue) {
        timeline.record(key, value)
    }
}
