import Foundation
import Runtime

/// Where in an experiment's code a call was made, read from the call stack.
///
/// The instrumented calls keep the signatures of the ones they stand for (so an experiment's
/// file reads like the article's, and `print(42)` still finds them: a `#line` parameter with a
/// default would make the standard library's `print` the better match), so the stack is read
/// instead. Capturing one costs microseconds; its addresses are looked up in the executable's
/// own line table (``DebugLineTable``), read once, when a line is first asked for: in a run, once
/// its clock has stopped. It needs the debug information `swift build` writes; without it the
/// site is unknown (nil), never a wrong line.
public enum CallSite {
    /// A call stack captured where something was recorded, read for its line later.
    public struct Stack: Sendable {
        /// The return addresses, innermost first.
        fileprivate let addresses: [UInt64]

        /// The stack of the calling thread, or nil when it cannot be read. (Foundation's walk
        /// of the stack, not the `Runtime` module's: that one's first capture on each new thread
        /// takes milliseconds, which a pool thread's first print would wait.)
        public static func capture() -> Stack? {
            let addresses = Thread.callStackReturnAddresses.map(\.uint64Value)
            return addresses.isEmpty ? nil : Stack(addresses: addresses)
        }

        /// The line of the experiments' code that made the call: its innermost frame there that
        /// belongs to a line (a thunk the compiler made for `queue.addOperation` passed as a
        /// function belongs to none); nil when there is none.
        public var line: SourceLine? {
            Executable.shared.experimentFrames(of: addresses).first { $0.line > 0 }
        }
    }

    /// Reads the line table before anything is timed, so that reading a run's lines after its
    /// clock does not wait for it.
    public static func prepare() {
        _ = Executable.shared
    }

    /// `Probe.swift:22`: the innermost frame in a file of an `Experiments` folder that is not
    /// the instrumentation's own (`Experiments/Lab/`), every experiment calls those; the file
    /// alone when its instruction belongs to no line; nil when there is no such frame.
    public static func inExperiment() -> String? {
        guard let stack = Stack.capture(), let frame = Executable.shared.experimentFrames(of: stack.addresses).first else { return nil }
        return frame.line > 0 ? frame.description : frame.file
    }

    /// A file of the experiments' code: under an `Experiments/` folder, not under its `Lab/`.
    static func isExperimentCode(_ path: String) -> Bool {
        let components = path.split(separator: "/")
        guard let experiments = components.lastIndex(of: "Experiments") else { return false }
        return components[components.index(after: experiments)...].first != "Lab"
    }

    /// The executable this code is linked into (the runner, or a test bundle), and the lines of
    /// its experiments' code.
    private struct Executable: Sendable {
        static let shared = Executable()

        /// Where the executable's text is mapped, and what to subtract from a runtime address
        /// to look it up.
        private var text: Range<UInt64> = 0..<0
        private var slide: UInt64 = 0
        private var lines: DebugLineTable?

        private init() {
            let images = ImageMap.capture()
            // This code's own image (the executable, or the test bundle it is linked into): the
            // one mapped last below its `__dso_handle`, which lies in its data.
            let here = UInt64(UInt(bitPattern: #dsohandle))
            guard let image = images.filter({ UInt64($0.baseAddress).map { $0 <= here } ?? false }).max(by: { $0.baseAddress < $1.baseAddress }),
                  let path = image.path, let base = UInt64(image.baseAddress), let end = UInt64(image.endOfText)
            else { return }
            let table = DebugLineTable(elfFile: path, keeping: CallSite.isExperimentCode)
            guard let linkedAt = table.firstSegmentAddress, base >= linkedAt else { return }
            text = base..<end
            slide = base - linkedAt
            lines = table
        }

        /// The frames of a stack in the experiments' code, innermost first; line 0 for an
        /// instruction that belongs to no line. A return address is the instruction after the
        /// call, so the call's own is looked up one byte before it.
        func experimentFrames(of addresses: [UInt64]) -> [SourceLine] {
            guard let lines else { return [] }
            return addresses.compactMap { address in
                guard text.contains(address), let location = lines.location(of: address - 1 - slide) else { return nil }
                return SourceLine(file: URL(fileURLWithPath: location.file).lastPathComponent, line: location.line)
            }
        }
    }
}
