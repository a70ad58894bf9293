/// One operation's predicted interval, in real seconds.
public struct PredictedSpan: Sendable, Equatable {
    public var label: String
    public var start: Double
    public var end: Double
    /// 0 is the thread that started the experiment; workers are numbered 1, 2, … as the pool creates them.
    public var lane: Int
    /// Whether its work ran (false: cancelled before it started, so `start()` just finished it).
    public var ranWork: Bool
    /// Steps of its work that completed (sums added, images delivered).
    public var stepsCompleted: Int
    /// Whether it was cancelled before it finished.
    public var cancelled: Bool
}

/// One way the experiment can unfold on the modelled platform.
public struct PredictedTimeline: Sendable, Equatable {
    /// In workload order; nil for an operation that never starts (a deadlock).
    public var spans: [PredictedSpan?]
    /// When the experiment's thread makes its last planned cancel or suspension (0 for none).
    public var lastActionSeconds: Double = 0

    /// When the run ends: the last operation that finishes, or the experiment's last planned
    /// action if that comes later (it waits for its instant).
    public var total: Double {
        max(spans.compactMap { $0?.end }.filter(\.isFinite).max() ?? 0, lastActionSeconds)
    }

    /// Whether some operation can never start.
    public var deadlocked: Bool {
        spans.contains { $0 == nil }
    }

    /// Whether some operation never finishes (its `end` is infinite) or never starts.
    public var hangs: Bool {
        deadlocked || spans.contains { $0?.end.isFinite == false }
    }

    /// The most operations running at one instant.
    public var maximumOverlap: Int {
        Overlap.maximum(of: spans.compactMap { $0.map { ($0.start, $0.end) } })
    }
}

/// What the model expects of an experiment on one platform profile.
///
/// Where an event of the pool monitor and an operation's completion meet within
/// ``Scheduler/tieWindow``, the model follows both orders: ``branches`` holds every timeline,
/// and the ranges cover them all, so no bound depends on who wins a race of microseconds.
public struct Prediction: Sendable, Equatable {
    /// What was simulated.
    public var workload: Workload
    /// The parameter values the workload was made with (for checks that hold only for the article's).
    public var parameters = Parameters([])
    public var profile: PlatformProfile
    public var timeScale: Double
    /// The timeline in which every event happens at its nominal time.
    public var nominal: PredictedTimeline
    /// Every distinct timeline the model found, the nominal one first.
    public var branches: [PredictedTimeline]

    /// The nominal total.
    public var total: Double { nominal.total }

    /// Whether some operation's real CPU work is not counted: it was not measured in this
    /// process (``PlannedOperation/cpuWorkToMeasure``), so the total is the rest of the work, and
    /// the CPU work is added when the child that runs it reports what it cost.
    public var leavesOutCPUWork: Bool {
        workload.operations.contains(where: \.cpuWorkToMeasure)
    }

    /// The shortest and longest totals over all branches.
    public var totalRange: ClosedRange<Double> {
        let totals = branches.map(\.total)
        return totals.min()!...totals.max()!
    }

    /// Earliest and latest start of each operation over all branches; nil unless its work runs in every branch.
    public var startRanges: [ClosedRange<Double>?] {
        nominal.spans.indices.map { index in
            let starts = branches.compactMap { $0.spans[index].flatMap { $0.ranWork ? $0.start : nil } }
            guard starts.count == branches.count, let low = starts.min(), let high = starts.max() else { return nil }
            return low...high
        }
    }

    /// Earliest and latest start of the operation over the branches in which its work runs.
    public func startRange(_ index: Int) -> ClosedRange<Double>? {
        let starts = branches.compactMap { $0.spans[index].flatMap { $0.ranWork ? $0.start : nil } }
        guard let low = starts.min(), let high = starts.max() else { return nil }
        return low...high
    }

    /// Whether the operation's work runs, over all branches: `[true]`, `[false]` or both.
    public func workRuns(_ index: Int) -> Set<Bool> {
        Set(branches.map { $0.spans[index]?.ranWork ?? false })
    }

    /// The steps the operation completes, over all branches.
    public func stepsCompleted(_ index: Int) -> Set<Int> {
        Set(branches.map { $0.spans[index]?.stepsCompleted ?? 0 })
    }

    /// The fewest and most operations running at once over all branches.
    public var maximumOverlapRange: ClosedRange<Int> {
        let overlaps = branches.map(\.maximumOverlap)
        return overlaps.min()!...overlaps.max()!
    }
}

extension Prediction {
    /// The prediction made again, by the same model, with the CPU work at what it cost where it
    /// ran (`MeasuredRun.cpuCosts`). Real CPU work does not follow the time scale and takes
    /// longer on a busy machine; a cost calibrated in another process, at another moment, would
    /// hold the run to a machine that was not there. Unchanged when nothing was reported.
    public func counting(_ costs: [CPUCost]) -> Prediction {
        remade(costs: costs, firstTickSeconds: profile.firstTickSeconds)
    }

    /// The prediction made again with the CPU work at `costs` and the pool monitor's first tick at
    /// `firstTickSeconds`; itself when neither changes it.
    package func remade(costs: [CPUCost], firstTickSeconds: Double) -> Prediction {
        guard !costs.isEmpty || firstTickSeconds != profile.firstTickSeconds else { return self }
        var profile = self.profile
        profile.firstTickSeconds = firstTickSeconds
        var remade = Scheduler.predict(workload.counting(costs), profile: profile, timeScale: timeScale)
        remade.parameters = parameters
        return remade
    }
}

/// Counting how many intervals run at once.
public enum Overlap {
    /// Intervals that merely touch (one ends as the next starts, within this many seconds) do not overlap.
    public static let touchingSeconds = 0.002

    /// The largest number of intervals that contain one instant; intervals shorter than
    /// ``touchingSeconds`` (completion blocks, instant work) are not counted.
    public static func maximum(of intervals: [(start: Double, end: Double)]) -> Int {
        let lasting = intervals.filter { $0.end - $0.start > touchingSeconds }
        var events: [(time: Double, delta: Int)] = []
        for interval in lasting {
            events.append((interval.start, 1))
            events.append((interval.end - touchingSeconds, -1))
        }
        // Ends sort before starts at the same instant.
        events.sort { $0.time != $1.time ? $0.time < $1.time : $0.delta < $1.delta }
        var running = 0, most = 0
        for event in events {
            running += event.delta
            most = max(most, running)
        }
        return most
    }
}
