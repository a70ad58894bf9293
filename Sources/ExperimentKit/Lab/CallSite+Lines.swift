import DWARFLines
import ExperimentModel
import Foundation
import Runtime
import Synchronization

/// Capturing a call stack where something is recorded, and reading the line of an experiment's code it names.
///
/// The instrumented calls keep the signatures of the ones they stand for (so an experiment's
/// file reads like the article's, and `print(42)` still finds them: a `#line` parameter with a
/// default would make the standard library's `print` the better match), so the stack is read
/// instead. A capture costs microseconds and keeps the frames' link-time addresses and the
/// file of the executable they belong to (``Stack``): a child sends them with each print and
/// sleep, and the runner looks them up in that file's debug line table (`DebugLineTable`, read
/// once per file) when a report or an output asks for a line, so even a child that hung or
/// trapped leaves its lines. A build without debug information gives no line (nil), never a
/// wrong one.
extension CallSite.Stack {
    /// The frames kept: the experiment's code lies within the innermost few.
    static let depth = 16

    /// The stack of the calling thread, or nil when it cannot be read: the C library's
    /// `backtrace`, into a buffer. (Foundation's `Thread.callStackReturnAddresses` walks the
    /// stack the same way, then makes an `NSNumber` of each frame, which a print waits for; the
    /// `Runtime` module's first capture on each new thread takes milliseconds, which a pool
    /// thread's first print would wait.)
    public static func capture() -> CallSite.Stack? {
        let executable = CallSite.Executable.shared
        guard let path = executable.path, let backtrace = Self.backtrace else { return nil }
        let frames = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: frameLimit)
        defer { frames.deallocate() }
        let count = Int(backtrace(frames, Int32(frameLimit)))
        var addresses: [UInt64] = []
        addresses.reserveCapacity(depth)
        for frame in UnsafeBufferPointer(start: frames, count: max(0, count)) where addresses.count < depth {
            let address = UInt64(UInt(bitPattern: frame))
            if executable.text.contains(address) { addresses.append(address - executable.slide) }
        }
        return addresses.isEmpty ? nil : CallSite.Stack(image: path, addresses: addresses)
    }

    /// The most frames walked: far more than a thread of the pool or the experiment's own holds.
    static let frameLimit = 128

    /// The C library's `backtrace(3)`, found by name: Swift's Glibc module does not offer it.
    private static let backtrace = dlsym(nil, "backtrace").map {
        unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>?, Int32) -> Int32).self)
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
        experimentFramesInFiles.compactMap { SourceLine(experimentFile: $0.file, line: $0.line) }
    }

    /// The frames in the experiments' code, innermost first, each with the file the compiler
    /// read, as its path was then, and its return address.
    var experimentFramesInFiles: [(file: String, line: Int, address: UInt64)] {
        guard let lines = CallSite.LineTables.shared.table(of: image) else { return [] }
        return addresses.compactMap { address in
            lines.location(of: address - 1).flatMap {
                SourceLine.experimentsPath(of: $0.file) != nil ? ($0.file, $0.line, address) : nil
            }
        }
    }
}

extension CallSite {
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
        return frame.line > 0 ? frame.named : frame.name
    }

    /// The executable this code is linked into (the runner, or a test bundle): its file, where
    /// its text is mapped, and what to subtract from a runtime address to make it a link-time one.
    fileprivate final class Executable: Sendable {
        static let shared = Executable()

        let text: Range<UInt64>
        let slide: UInt64
        let path: String?

        private init() {
            // This code's own image: the one mapped last below its `__dso_handle`, which lies in its data.
            let here = UInt64(UInt(bitPattern: #dsohandle))
            let images = ImageMap.capture()
            guard
                let image = images.filter({ UInt64($0.baseAddress).map { $0 <= here } ?? false }).max(by: {
                    $0.baseAddress < $1.baseAddress
                }),
                let path = image.path, let base = UInt64(image.baseAddress), let end = UInt64(image.endOfText),
                let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
                let linkedAt = ELFSections(data)?.firstSegmentAddress, base >= linkedAt
            else {
                (text, slide, self.path) = (0..<0, 0, nil)
                return
            }
            (text, slide, self.path) = (base..<end, base - linkedAt, path)
        }
    }

    /// The lines of the experiments' code in each executable file a stack came from, read from
    /// the file the first time one is asked for.
    fileprivate final class LineTables: Sendable {
        static let shared = LineTables()

        private let tables = Mutex<[String: DebugLineTable]>([:])

        func table(of path: String) -> DebugLineTable? {
            tables.withLock { tables in
                if let table = tables[path] { return table }
                let table = DebugLineTable(elfFile: path, keeping: { SourceLine.experimentsPath(of: $0) != nil })
                tables[path] = table
                return table
            }
        }
    }
}

extension CallSite.Recorded {
    /// The line of the experiment's code that made it; nil when no line of the experiments'
    /// code did.
    public var line: SourceLine? {
        calledFrom?.line
    }
}
