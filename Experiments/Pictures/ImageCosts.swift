import ExperimentKit
import Foundation
import Synchronization

/// What the image filters cost on this machine, so the model can count the real CPU work
/// (which, unlike the articles' sleeps, does not follow the time scale). Measured once per
/// process and image: the median of three runs, after one to warm up; planned with only in a
/// child, which runs the filters (``CPUCalibration``).
public enum ImageCosts {
    /// The article's blur radius.
    public static let blurRadius = 6

    /// What one picture's two filters cost.
    public struct Costs: Sendable {
        /// `mistedTopAndBottom(radius: 6)`, in seconds.
        public var filter: Double
        /// `postProcessed()`, in seconds.
        public var postProcess: Double
    }

    private static let measured = Mutex<[String: Costs]>([:])

    /// The cost the model plans the operation `label` with, a filter (`part`) of the picture
    /// `name`: nil, left to measure, the operation times it where it runs. In a child (only a
    /// child calibrates, ``CPUCalibration``) the picture is drawn now, before the clock, rather
    /// than when the run first needs it, and the work is calibrated after the run if it did not
    /// run (a cancelled filter). Nothing is drawn or calibrated in any other process (`list`,
    /// `describe`, the runner's prediction).
    public static func planned(_ part: KeyPath<Costs, Double> & Sendable, of name: String, label: String) -> Double? {
        guard CPUCalibration.isEnabled else { return nil }
        drawBeforeTheClock(name)
        CPUCalibration.afterTheRun(label) { costs(of: name)[keyPath: part] }
        return nil
    }

    /// In a child (``CPUCalibration``), draws the picture `name` now, before the clock: its first
    /// use inside the run would cost milliseconds of CPU that no article pays (a download's bytes
    /// exist before they arrive) and the model does not count. Anywhere else, nothing.
    public static func drawBeforeTheClock(_ name: String) {
        guard CPUCalibration.isEnabled else { return }
        _ = SourceImages.named(name)
    }

    /// The costs for the source image `name` (zero for an unknown name), calibrated on first use.
    /// Every request counts as a calibration (``CPUCalibration/count``), a figure already made too.
    static func costs(of name: String) -> Costs {
        CPUCalibration.counting {
            if let known = measured.withLock({ $0[name] }) { return known }
            guard let image = SourceImages.named(name) else { return Costs(filter: 0, postProcess: 0) }
            let costs = Costs(
                filter: median { _ = image.mistedTopAndBottom(radius: blurRadius) },
                postProcess: median { _ = image.postProcessed() })
            measured.withLock { $0[name] = costs }
            return costs
        }
    }

    private static func median(_ work: () -> Void) -> Double {
        work()
        let clock = ContinuousClock()
        let samples = (0..<3).map { _ in clock.measure(work) }.sorted()
        let middle = samples[1].components
        return Double(middle.seconds) + Double(middle.attoseconds) / 1e18
    }
}

/// Writes pictures the experiments make, as PNG files a person can open.
///
/// Experiments write them only after ``Timeline/stopClock()``, outside the timed run, rather
/// than the model counting the encoding: no article encodes or writes its images (a playground
/// shows its UIImage), so the encoding is this tool's work, not the experiment's. It also costs
/// tens of milliseconds in a debug build, whatever the time scale: inside the run it would
/// lengthen the total and delay the next image's output (four-images-async).
public enum ImageFiles {
    /// Writes `image` as `<experiment>-<name>.png` into the run's images folder and returns the
    /// file's path; nil when the run writes no files (or the folder cannot be written). Written
    /// whole and renamed into place, never through a link (``AtomicFile``).
    public static func save(_ image: RGBAImage, experiment: String, name: String, in directory: URL?) -> String? {
        guard let directory else { return nil }
        let slug = name.lowercased().map { $0.isLetter || $0.isNumber ? $0 : "-" }
        return try? AtomicFile.write(
            PNGEncoder.encode(image), named: "\(experiment)-\(String(slug)).png", in: directory
        ).path
    }
}
