/// Reads UTF-8 text into tokens in one pass.
struct SwiftLexer {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var tokens: [SwiftToken] = []

    static func tokens(of bytes: [UInt8]) -> [SwiftToken] {
        var lexer = SwiftLexer(bytes: bytes)
        while lexer.index < bytes.count { lexer.readToken() }
        return lexer.tokens
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// 2 for `\r\n`, 1 for `\n` or a lone `\r`, nil when no line break starts at `index`.
    static func lineBreakLength(in bytes: [UInt8], at index: Int) -> Int? {
        switch bytes[index] {
        case ASCII.newline: 1
        case ASCII.carriageReturn: index + 1 < bytes.count && bytes[index + 1] == ASCII.newline ? 2 : 1
        default: nil
        }
    }

    private func byte(at offset: Int) -> UInt8? {
        index + offset < bytes.count ? bytes[index + offset] : nil
    }

    /// Passes the line break at `index` (if one is there), counting it; true when it did.
    private mutating func passLineBreak() -> Bool {
        guard let length = Self.lineBreakLength(in: bytes, at: index) else { return false }
        index += length
        line += 1
        return true
    }

    /// The token from `start` up to `index`, spelled as written.
    private mutating func append(_ kind: SwiftToken.Kind, from start: Int) {
        tokens.append(SwiftToken(kind: kind, text: String(decoding: bytes[start..<index], as: UTF8.self), line: line))
    }

    private mutating func appendSingle(_ kind: SwiftToken.Kind) {
        tokens.append(SwiftToken(kind: kind, text: "", line: line))
        index += 1
    }

    private mutating func readToken() {
        if passLineBreak() { return }
        let current = bytes[index]
        switch current {
        case ASCII.space, ASCII.tab, ASCII.verticalTab, ASCII.formFeed, 0:
            index += 1
        case ASCII.slash where startsComment:
            skipComment()
        case ASCII.quote:
            readLiteral(hashes: 0)
        case ASCII.hash:
            readPound()
        case ASCII.backtick:
            readBacktickWord()
        case _ where ASCII.isDigit(current):
            readNumber()
        case _ where ASCII.isWordByte(current):
            readWhile(ASCII.isWordByte, as: .word)
        case ASCII.dot where byte(at: 1) == ASCII.dot:
            readWhile { $0 == ASCII.dot || ASCII.isOperatorByte($0) }
        case _ where ASCII.isOperatorByte(current):
            readWhile(ASCII.isOperatorByte)
        default:
            appendSingle(ASCII.punctuation(current))
        }
    }

    private mutating func readWhile(_ belongs: (UInt8) -> Bool, as kind: SwiftToken.Kind = .operatorRun) {
        let start = index
        index += 1
        while let next = byte(at: 0), belongs(next), !startsComment {
            index += 1
        }
        append(kind, from: start)
    }

    private mutating func readNumber() {
        let start = index
        while let next = byte(at: 0) {
            let isFractionDot = next == ASCII.dot && byte(at: 1).map(ASCII.isDigit) == true
            guard ASCII.isWordByte(next) || isFractionDot else { break }
            index += 1
        }
        append(.literal, from: start)
    }

    /// `` `default` ``: a word spelled like a keyword. A lone backtick is a token of its own.
    private mutating func readBacktickWord() {
        var end = index + 1
        while end < bytes.count, ASCII.isWordByte(bytes[end]) { end += 1 }
        guard end > index + 1, end < bytes.count, bytes[end] == ASCII.backtick else {
            appendSingle(.other)
            return
        }
        tokens.append(
            SwiftToken(kind: .word, text: String(decoding: bytes[(index + 1)..<end], as: UTF8.self), line: line))
        index = end + 1
    }

    /// After `#`: a raw string (`#"`, `##"""`), an extended regex (`#/`), a pound word (`#if`),
    /// or a lone `#`.
    private mutating func readPound() {
        var hashes = 0
        while byte(at: hashes) == ASCII.hash { hashes += 1 }
        switch byte(at: hashes) {
        case ASCII.quote:
            index += hashes
            readLiteral(hashes: hashes)
        case ASCII.slash:
            readExtendedRegex(hashes: hashes)
        case let next? where hashes == 1 && ASCII.isWordByte(next) && !ASCII.isDigit(next):
            readWhile(ASCII.isWordByte, as: .poundWord)
        default:
            appendSingle(.other)
        }
    }
}

// MARK: - Comments and literals

extension SwiftLexer {
    /// What the lexer is inside while it reads one literal.
    private enum LiteralFrame {
        /// A string's text, closed by its quote(s) followed by `hashes` `#`s.
        case string(hashes: Int, multiline: Bool)
        /// Code inside `\(…)`, closed by the `)` that brings `depth` to zero; `multiline` when
        /// the string it is in is (only then may it hold a line break).
        case interpolation(depth: Int, multiline: Bool)

        var isMultiline: Bool {
            switch self {
            case .string(_, let multiline), .interpolation(_, let multiline): multiline
            }
        }
    }

    /// Whether `//` or `/*` starts at `index`: a comment, even right after an operator
    /// (`x =// note`).
    private var startsComment: Bool {
        byte(at: 0) == ASCII.slash && (byte(at: 1) == ASCII.slash || byte(at: 1) == ASCII.asterisk)
    }

    /// Whether the `count` bytes from `offset` on are all `#`.
    private func hasHashes(_ count: Int, at offset: Int) -> Bool {
        (0..<count).allSatisfy { byte(at: offset + $0) == ASCII.hash }
    }

    /// Passes the comment at `index`: a line comment up to its line break, a block comment (and
    /// the block comments nested in it) past its `*/`, or to the file's end when that is missing.
    private mutating func skipComment() {
        if byte(at: 1) == ASCII.slash {
            while index < bytes.count, Self.lineBreakLength(in: bytes, at: index) == nil { index += 1 }
            return
        }
        var depth = 0
        repeat {
            if passLineBreak() { continue }
            if byte(at: 0) == ASCII.slash, byte(at: 1) == ASCII.asterisk {
                depth += 1
                index += 2
            } else if byte(at: 0) == ASCII.asterisk, byte(at: 1) == ASCII.slash {
                depth -= 1
                index += 2
            } else {
                index += 1
            }
        } while depth > 0 && index < bytes.count
    }

    /// A string literal, from its opening quote(s) at `index` (its `hashes` `#`s already passed)
    /// to past its closing ones, as one token: its interpolations, with the strings, comments
    /// and parentheses inside them, are part of it.
    private mutating func readLiteral(hashes: Int) {
        let startLine = line
        var frames = [openString(hashes: hashes)]
        while index < bytes.count, let frame = frames.last {
            switch frame {
            case .string(let hashes, let multiline):
                readStringText(hashes: hashes, multiline: multiline, frames: &frames)
            case .interpolation(let depth, let multiline):
                readInterpolatedCode(depth: depth, multiline: multiline, frames: &frames)
            }
        }
        tokens.append(SwiftToken(kind: .literal, text: "", line: startLine))
    }

    /// Passes a string's opening `"` or `"""`.
    private mutating func openString(hashes: Int) -> LiteralFrame {
        let multiline = byte(at: 1) == ASCII.quote && byte(at: 2) == ASCII.quote
        index += multiline ? 3 : 1
        return .string(hashes: hashes, multiline: multiline)
    }

    /// One step through a string's text: an escape, the closing quote(s), or one byte.
    private mutating func readStringText(hashes: Int, multiline: Bool, frames: inout [LiteralFrame]) {
        let quotes = multiline ? 3 : 1
        if bytes[index] == ASCII.backslash, hasHashes(hashes, at: 1) {
            readEscape(hashes: hashes, multiline: multiline, frames: &frames)
        } else if bytes[index] == ASCII.quote, (0..<quotes).allSatisfy({ byte(at: $0) == ASCII.quote }),
            hasHashes(hashes, at: quotes)
        {
            index += quotes + hashes
            frames.removeLast()
        } else if Self.lineBreakLength(in: bytes, at: index) != nil {
            readLineBreak(in: &frames)
        } else {
            index += 1
        }
    }

    /// After `\` and the string's `#`s: an interpolation opens, a line continuation leaves its
    /// line break to be read, any other escaped character is passed.
    private mutating func readEscape(hashes: Int, multiline: Bool, frames: inout [LiteralFrame]) {
        let escaped = index + 1 + hashes
        index = escaped
        guard escaped < bytes.count, Self.lineBreakLength(in: bytes, at: escaped) == nil else { return }
        index += 1
        if bytes[escaped] == ASCII.openParen { frames.append(.interpolation(depth: 1, multiline: multiline)) }
    }

    /// One step through the code of an interpolation: a parenthesis, a nested string, a comment,
    /// or one byte.
    private mutating func readInterpolatedCode(depth: Int, multiline: Bool, frames: inout [LiteralFrame]) {
        var hashes = 0
        while byte(at: hashes) == ASCII.hash { hashes += 1 }
        switch bytes[index] {
        case ASCII.openParen:
            frames[frames.count - 1] = .interpolation(depth: depth + 1, multiline: multiline)
            index += 1
        case ASCII.closeParen:
            frames.removeLast()
            if depth > 1 { frames.append(.interpolation(depth: depth - 1, multiline: multiline)) }
            index += 1
        case _ where byte(at: hashes) == ASCII.quote:
            // `"`, or `#"` and more `#`s: a string nested in the interpolated code.
            index += hashes
            frames.append(openString(hashes: hashes))
        case ASCII.slash where startsComment:
            skipComment()
        case _ where Self.lineBreakLength(in: bytes, at: index) != nil:
            readLineBreak(in: &frames)
        default:
            index += 1
        }
    }

    /// A line break inside a literal. A multi-line string (or code interpolated in one) holds
    /// it; a single-line string cannot, so every frame back to the nearest multi-line one ends
    /// there, unterminated, as Swift reports it; with none left, the literal ends before it.
    private mutating func readLineBreak(in frames: inout [LiteralFrame]) {
        while let frame = frames.last, !frame.isMultiline { frames.removeLast() }
        if !frames.isEmpty { _ = passLineBreak() }
    }

    /// `#/…/#` (or with more `#`s), to the `/` followed by as many `#`s, as one token.
    private mutating func readExtendedRegex(hashes: Int) {
        let startLine = line
        index += hashes + 1
        while index < bytes.count {
            if passLineBreak() { continue }
            if bytes[index] == ASCII.slash, hasHashes(hashes, at: 1) {
                index += 1 + hashes
                break
            }
            let escapes = bytes[index] == ASCII.backslash
            index += 1
            if escapes, index < bytes.count, Self.lineBreakLength(in: bytes, at: index) == nil { index += 1 }
        }
        tokens.append(SwiftToken(kind: .literal, text: "", line: startLine))
    }
}
