import Foundation
import Runtime
import Synchronization

/// Where in an experiment's code a call was made, read from the call stack.
///
/// The instrumented calls keep the signatures of the ones they stand for (so an experiment's
/// file reads like the article's, and `print(42)` still finds them: a `#line` parameter with a
/// default would make the standard library's `print` the better match), so the stack is read
/// instead. A capture costs microseconds and keeps the frames' link-time addresses (``Stack``),
/// which mean the same in every process of the same executable: a child sends them with each
/// print and sleep, and the runner, which is that executable, looks them up in its own debug
/// line table (``DebugLineTable``) when a report or an output asks for a line, so even a child
/// that hung or trapped leaves its lines. A build without debug information gives no line
/// (nil), never a wrong one.
public enum CallSite {
    /// A call stack captured where something was recorded: the link-time addresses of its
    /// frames in this executable, innermost first.
    public struct Stack: Sendable, Equatable, Codable {
        fileprivate let addresses: [UInt64]

        /// The frames kept: the experiment's code lies within the innermost few.
        static let depth = 16

        /// The stack of the calling thread, or nil when it cannot be read. (Foundation's walk
        /// of the stack, not the `Runtime` module's: that one's first capture on each new thread
        /// takes milliseconds, which a pool thread's first print would wait.)
        public static func capture() -> Stack? {
            let image = Executable.shared
            let addresses = Thread.callStackReturnAddresses.lazy.map(\.uint64Value).filter(image.text.contains).prefix(depth).map { $0 - image.slide }
            return addresses.isEmpty ? nil : Stack(addresses: Array(addresses))
        }

        public init(from decoder: any Decoder) throws {
            addresses = try decoder.singleValueContainer().decode([UInt64].self)
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(addresses)
        }

        private init(addresses: [UInt64]) {
            self.addresses = addresses
        }

        /// The line of the experiments' code that made the call: its innermost frame there that
        /// belongs to a line (a thunk the compiler made for `queue.addOperation` passed as a
        /// function belongs to none); nil when there is none.
        public var line: SourceLine? {
            experimentFrames.first { $0.line > 0 }
        }

        /// The frames in the experiments' code, innermost first; line 0 for an instruction that
        /// belongs to no line. A return address is the instruction after the call, so the
        /// call's own is looked up one byte before it.
        var experimentFrames: [SourceLine] {
            guard let lines = Executable.shared.lines else { return [] }
            return addresses.compactMap { address in
                lines.location(of: address - 1).flatMap { SourceLine(experimentFile: $0.file, line: $0.line) }
            }
        }
    }

    /// Finds this executable's image and walks the stack once before anything is timed, so the
    /// first print of a run costs what the others do.
    public static func prepare() {
        _ = Stack.capture()
    }

    /// `Probe.swift:22`: the innermost frame in a file of an `Experiments` folder that is not
    /// the instrumentation's own (`Experiments/Lab/`), every experiment calls those; the file
    /// alone when its instruction belongs to no line; nil when there is no such frame.
    public static func inExperiment() -> String? {
        guard let frame = Stack.capture()?.experimentFrames.first else { return nil }
        return frame.line > 0 ? frame.description : frame.name
    }

    /// The executable this code is linked into (the runner, or a test bundle): where its text
    /// is mapped, what to subtract from a runtime address to make it a link-time one, and the
    /// lines of its experiments' code, read from its file the first time one is asked for.
    private final class Executable: Sendable {
        static let shared = Executable()

        let text: Range<UInt64>
        let slide: UInt64
        private let path: String?
        private let table = Mutex<DebugLineTable?>(nil)

        private init() {
            // This code's own image: the one mapped last below its `__dso_handle`, which lies in its data.
            let here = UInt64(UInt(bitPattern: #dsohandle))
            let images = ImageMap.capture()
            guard let image = images.filter({ UInt64($0.baseAddress).map { $0 <= here } ?? false }).max(by: { $0.baseAddress < $1.baseAddress }),
                  let path = image.path, let base = UInt64(image.baseAddress), let end = UInt64(image.endOfText),
                  let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
                  let linkedAt = ELFSections(data)?.firstSegmentAddress, base >= linkedAt
            else {
                (text, slide, self.path) = (0..<0, 0, nil)
                return
            }
            (text, slide, self.path) = (base..<end, base - linkedAt, path)
        }

        /// The line table, read on first use.
        var lines: DebugLineTable? {
            guard let path else { return nil }
            return table.withLock { table in
                if table == nil { table = DebugLineTable(elfFile: path, keeping: { SourceLine.experimentsPath(of: $0) != nil }) }
                return table
            }
        }
    }
}
