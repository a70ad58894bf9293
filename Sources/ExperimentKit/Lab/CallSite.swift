import Foundation
import Runtime

/// Where in an experiment's code a call was made, read from the call stack.
///
/// The instrumented calls keep the signatures of the ones they stand for (so an experiment's
/// file reads like the article's), and so cannot take a `#line` argument: where the model needs
/// the line (to name what it cannot plan), the stack is read instead. Only in a rehearsal, and
/// only then: symbolicating takes milliseconds. It needs the debug information `swift build`
/// writes; without it the site is unknown (nil), never a wrong line.
public enum CallSite {
    /// `Probe.swift:22`: the innermost frame in a file of an `Experiments` folder that is not
    /// the instrumentation's own (`Experiments/Lab/`), every experiment calls those; the file
    /// alone when its instruction belongs to no line (a loop's jump back may not); nil when
    /// there is no such frame.
    public static func inExperiment() -> String? {
        guard let frames = try? Backtrace.capture(limit: 64).symbolicated()?.frames else { return nil }
        for frame in frames {
            guard let location = frame.symbol?.sourceLocation, isExperimentCode(location.path) else { continue }
            let file = URL(fileURLWithPath: location.path).lastPathComponent
            return location.line > 0 ? "\(file):\(location.line)" : file
        }
        return nil
    }

    /// A file of the experiments' code: under an `Experiments/` folder, not under its `Lab/`.
    static func isExperimentCode(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        guard let experiments = components.lastIndex(of: "Experiments") else { return false }
        return components[components.index(after: experiments)...].first != "Lab"
    }
}
