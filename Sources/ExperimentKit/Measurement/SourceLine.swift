/// A line of an experiment's code, `PrinterQueue.swift:31`: where a print, a sleep or an add was
/// made. The file is named without its folder: the compiler wants every file of a module to
/// have a name of its own, so the name finds it again under `Experiments/`.
public struct SourceLine: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var file: String
    /// 1-based.
    public var line: Int

    public init(file: String, line: Int) {
        self.file = file
        self.line = line
    }

    /// `File.swift:31`, as JSON writes it and a reader types it.
    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let line = Int(text[text.index(after: colon)...]), line > 0 else { return nil }
        self.init(file: String(text[..<colon]), line: line)
    }

    public var description: String {
        "\(file):\(line)"
    }

    public static func < (lhs: SourceLine, rhs: SourceLine) -> Bool {
        (lhs.file, lhs.line) < (rhs.file, rhs.line)
    }
}

extension SourceLine: Codable {
    public init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let line = SourceLine(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not FILE:LINE: \(text)"))
        }
        self = line
    }

    public func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
