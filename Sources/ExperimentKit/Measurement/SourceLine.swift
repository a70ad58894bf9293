/// A line of an experiment's code: where a print, a sleep or an add was made. Its file is the
/// path under the package's `Experiments/` folder (`000-OperationAndOperationQueue/SerialQueue.swift`), which
/// names one file even where two modules there hold files of the same name.
public struct SourceLine: Sendable, Hashable, CustomStringConvertible {
    /// The path under `Experiments/`.
    public var path: String
    /// 1-based; 0 for an instruction the compiler gave no line (a thunk, a loop's jump back).
    public var line: Int

    public init(path: String, line: Int) {
        self.path = path
        self.line = line
    }

    /// The line of `path` (absolute, or relative to the package) when the file is experiment
    /// code: under an `Experiments/` folder, not under its `Lab/`, which is the instrumentation
    /// every experiment calls, nor in the command's entry (`Playground/Entry/`).
    package init?(experimentFile path: String, line: Int) {
        guard let relative = Self.experimentsPath(of: path) else { return nil }
        self.init(path: relative, line: line)
    }

    /// `000-OperationAndOperationQueue/SerialQueue.swift:30`, as JSON writes it.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let line = Int(text[text.index(after: colon)...]), line > 0 else {
            return nil
        }
        self.init(path: String(text[..<colon]), line: line)
    }

    /// `000-OperationAndOperationQueue/SerialQueue.swift:30`.
    public var description: String {
        "\(path):\(line)"
    }

    /// The file's name, `PrinterQueue.swift`.
    public var name: String {
        String(path.split(separator: "/").last ?? Substring(path))
    }

    /// `PrinterQueue.swift:30`, as a reader looks for it.
    public var named: String {
        "\(name):\(line)"
    }

    /// The folder, under `Experiments/`, of the command's entry, `main.swift`: it lies in the
    /// learner's module (see Package.swift), and its frame is under every main thread's stack.
    static let entryFolder = "Playground/Entry/"

    /// The part of `path` under its last `Experiments/` folder; nil outside one, or under its
    /// `Lab/` or `entryFolder`.
    static func experimentsPath(of path: String) -> String? {
        guard let folder = experimentsFolder(of: path) else { return nil }
        let relative = String(path.dropFirst(folder.count + 1))
        return relative.hasPrefix("Lab/") || relative.hasPrefix(entryFolder) || relative.isEmpty ? nil : relative
    }

    /// The `Experiments` folder `path` lies in (up to and including its last `Experiments`
    /// component); nil when it lies in none.
    package static func experimentsFolder(of path: String) -> String? {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        guard let experiments = components.lastIndex(of: "Experiments"), experiments < components.count - 1 else {
            return nil
        }
        return components[...experiments].joined(separator: "/")
    }
}

extension SourceLine: Codable {
    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let line = SourceLine(text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not PATH:LINE: \(text)"))
        }
        self = line
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
