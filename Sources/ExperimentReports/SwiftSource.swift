import ExperimentModel
import ExperimentKit
import ExperimentResults

/// A Swift file's text, read for what a report shows of it: where a closure argument or a
/// declaration begins and ends.
///
/// The text is scanned once, when the value is made: comments are dropped, each literal (a
/// string with its interpolations, a raw or multi-line string, a number, a `#/…/#` regex) is one
/// token, brackets are paired and declarations found, so braces and parentheses in a string or a
/// comment never count. Every question is then answered from those tables. Any text gives an
/// answer or nil: a bracket left open pairs with nothing, and an unterminated string or comment
/// ends at the line break or the file's end where Swift would report it. A bare `/…/` regex
/// literal is read as operators (only Swift's parser tells one from a division), so a bracket
/// inside one counts; written `#/…/#`, it does not.
package struct SwiftSource: Sendable {
    /// The file's lines, without their line breaks; line 1 is `lines[0]`. A line break at the
    /// very end of the text ends the last line rather than starting an empty one.
    package let lines: [String]
    /// The code, comments dropped, in the order it is written.
    let tokens: [SwiftToken]
    /// For each bracket token, the index of the bracket it pairs with; nil for every other token
    /// and for a bracket that pairs with none.
    let partners: [Int?]
    /// Every type and every declaration with a body, in the order their keywords are written.
    let scopes: [SwiftScope]

    package init(text: String) {
        let bytes = Array(text.utf8)
        lines = Self.lines(of: bytes)
        tokens = SwiftLexer.tokens(of: bytes)
        partners = Self.partners(of: tokens)
        scopes = SwiftDeclarationReader(tokens: tokens, partners: partners, lastLine: lines.count).scopes()
    }

    /// The lines of the closure passed as the argument labelled `label` (e.g. "code" or "run")
    /// in the call whose text begins on line `callLine` (1-based): from the line that holds
    /// `label: {` to the line that holds the closure's closing `}`. Only that call's own
    /// arguments count (not a `label:` inside a nested call or closure), in its parentheses or as
    /// a labelled trailing closure. The call is the first one opened on `callLine`, or, when that
    /// line holds only comments or blank space (a doc comment above the `let`), on the next line
    /// that holds code. nil when there is none, or when the closure is never closed.
    package func closureArgument(_ label: String, ofCallAt callLine: Int) -> ClosedRange<Int>? {
        guard let opening = callOpening(onLine: callLine) else { return nil }
        var next = opening
        if tokens[opening].kind == .open(.paren) {
            guard let close = partners[opening] else { return nil }
            if let brace = labelledBrace(label, amongArgumentsOf: opening, closedAt: close) {
                return closureLines(labelAt: brace - 2, braceAt: brace)
            }
            next = close + 1
        }
        return trailingClosure(label, from: next)
    }

    /// The lines of the call's unlabelled trailing closure (`Experiment("serial-queue", …) { … }`),
    /// from the line the call opens on (its arguments, when they take lines of their own, belong
    /// to the code's first line) to the line of the closure's `}`; the call is found as by
    /// ``closureArgument(_:ofCallAt:)``. nil when the call has none, or it is never closed.
    package func unlabelledTrailingClosure(ofCallAt callLine: Int) -> ClosedRange<Int>? {
        guard let opening = callOpening(onLine: callLine) else { return nil }
        var brace = opening
        if tokens[opening].kind == .open(.paren) {
            guard let close = partners[opening] else { return nil }
            brace = close + 1
        }
        guard brace < tokens.count, tokens[brace].kind == .open(.brace), let close = partners[brace] else { return nil }
        return tokens[opening].line...tokens[close].line
    }

    /// A declaration with a body that holds a line: a `func`, `init`, `deinit`, `subscript`,
    /// a computed property (its accessors included), or a `var`/`let` whose value is a closure.
    package struct Declaration: Sendable, Equatable {
        /// How a reader names it: `GroupAdd.generateOperations(_:)`, `SumOperation.main()`,
        /// `SumOperation.init(lhs:rhs:)`, `ImageProvider.cancel()`, `Foo.bar` (a property);
        /// the enclosing type names joined by dots (class/struct/enum/actor/extension/protocol,
        /// an extension by its extended type name), then the member with its argument labels
        /// (`_` for an unlabelled one). A declaration inside a function's body (a local function,
        /// a closure held by a local `let`) follows that function's name: `Foo.run().step()`.
        package var name: String
        /// From the declaration's first line (its attributes and modifiers included, its doc
        /// comment not) to the line of its closing `}`; to the file's last line when the `}`
        /// is missing.
        package var lines: ClosedRange<Int>

        package init(name: String, lines: ClosedRange<Int>) {
            self.name = name
            self.lines = lines
        }
    }

    /// The innermost such declaration containing `line`; nil when the line is in none (top
    /// level, or directly in a type's body).
    package func enclosingDeclaration(of line: Int) -> Declaration? {
        var innermost: Int?
        for (index, scope) in scopes.enumerated() where !scope.isType && scope.lines.contains(line) {
            if innermost.map({ scope.depth >= scopes[$0].depth }) ?? true { innermost = index }
        }
        return innermost.map { Declaration(name: qualifiedName(ofScopeAt: $0), lines: scopes[$0].lines) }
    }

    /// The declaration a reference names: `AsyncPrinterQueue.run` or
    /// `GroupAdd.generateOperations` (argument labels left out), matched on its whole qualified
    /// name, else on a unique ending of it (a reference written inside its own type); nil when
    /// none or several match.
    package func declaration(named reference: String) -> Declaration? {
        let candidates = scopes.indices.filter { !scopes[$0].isType }.map { ($0, Self.withoutLabels(qualifiedName(ofScopeAt: $0))) }
        let exact = candidates.filter { $0.1 == reference }
        let ending = candidates.filter { $0.1.hasSuffix("." + reference) }
        guard let index = (exact.count == 1 ? exact : ending.count == 1 ? ending : []).first?.0 else { return nil }
        return Declaration(name: qualifiedName(ofScopeAt: index), lines: scopes[index].lines)
    }

    /// `GroupAdd.generateOperations(_:)` as a reference writes it: `GroupAdd.generateOperations`.
    static func withoutLabels(_ name: String) -> String {
        name.split(separator: ".").map { $0.split(separator: "(", maxSplits: 1).first.map(String.init) ?? "" }.joined(separator: ".")
    }

    /// A scope's name after the names of the scopes that hold it, joined by dots. Made when asked
    /// for, so that deeply nested text costs no more to scan than flat text.
    func qualifiedName(ofScopeAt index: Int) -> String {
        var names: [String] = []
        var next: Int? = index
        while let scope = next {
            names.append(scopes[scope].name)
            next = scopes[scope].parent
        }
        return names.reversed().joined(separator: ".")
    }
}

// MARK: - Calls and their closure arguments

extension SwiftSource {
    /// The `(` that opens the call on `line`'s first line of code, or the `{` of its first
    /// trailing closure when it has no parentheses; an attribute's `(` is passed over.
    func callOpening(onLine line: Int) -> Int? {
        guard line >= 1 else { return nil }
        let first = tokens.partitioningIndex { $0.line >= line }
        guard first < tokens.count else { return nil }
        let codeLine = tokens[first].line
        var index = first
        while index < tokens.count, tokens[index].line == codeLine {
            switch tokens[index].kind {
            case .open(.paren) where !isAttributeArgumentList(index):
                return index
            case .open(.brace):
                return index > 0 && tokens[index - 1].canEndCallee ? index : nil
            default:
                index += 1
            }
        }
        return nil
    }

    /// Whether the `(` at `index` holds an attribute's arguments, as in `@available(…)`.
    func isAttributeArgumentList(_ index: Int) -> Bool {
        index >= 2 && tokens[index - 1].kind == .word && tokens[index - 2].kind == .at
    }

    /// The argument labelled `label` in the call whose text begins on `callLine`, when it is a
    /// reference (`run: AsyncPrinterQueue.run`, or the callee of `code: Lesson.code { … }`): its
    /// line, and the dotted name it writes.
    package func referenceArgument(_ label: String, ofCallAt callLine: Int) -> (line: Int, name: String)? {
        guard let open = callOpening(onLine: callLine), tokens[open].kind == .open(.paren),
              let close = partners[open] else { return nil }
        var index = open + 1
        while index + 2 < close {
            let startsArgument = tokens[index - 1].kind == .comma || index == open + 1
            if startsArgument, tokens[index].kind == .word, tokens[index].text == label, tokens[index + 1].kind == .colon {
                return reference(from: index + 2).map { (tokens[index].line, $0) }
            }
            guard tokens[index].kind.isOpening, let partner = partners[index] else {
                index += 1
                continue
            }
            index = partner + 1
        }
        return nil
    }

    /// The dotted name of words starting at `index` (`A.b.c`); nil when none starts there.
    func reference(from index: Int) -> String? {
        var words: [String] = []
        var index = index
        while index < tokens.count, tokens[index].kind == .word {
            words.append(tokens[index].text)
            guard index + 2 < tokens.count, tokens[index + 1].kind == .dot else { break }
            index += 2
        }
        return words.isEmpty ? nil : words.joined(separator: ".")
    }

    /// The `{` of the argument `label: {` written directly in the parentheses `open`…`close`.
    func labelledBrace(_ label: String, amongArgumentsOf open: Int, closedAt close: Int) -> Int? {
        var index = open + 1
        while index + 2 < close {
            let startsArgument = tokens[index - 1].kind == .comma || index == open + 1
            if startsArgument, isLabelledBrace(label, at: index) { return index + 2 }
            guard tokens[index].kind.isOpening else {
                index += 1
                continue
            }
            guard let partner = partners[index] else { return nil }
            index = partner + 1
        }
        return nil
    }

    /// The labelled trailing closure `label: {` after the call's parentheses (or after the call's
    /// first trailing closure, which has no label), starting at `index`.
    func trailingClosure(_ label: String, from index: Int) -> ClosedRange<Int>? {
        var index = index
        if index < tokens.count, tokens[index].kind == .open(.brace) {
            guard let close = partners[index] else { return nil }
            index = close + 1
        }
        while index + 2 < tokens.count, tokens[index].kind == .word, tokens[index + 1].kind == .colon,
              tokens[index + 2].kind == .open(.brace) {
            if isLabelledBrace(label, at: index) { return closureLines(labelAt: index, braceAt: index + 2) }
            guard let close = partners[index + 2] else { return nil }
            index = close + 1
        }
        return nil
    }

    /// Whether `label`, `:` and `{` start at `index`.
    func isLabelledBrace(_ label: String, at index: Int) -> Bool {
        index + 2 < tokens.count && tokens[index].kind == .word && tokens[index].text == label
            && tokens[index + 1].kind == .colon && tokens[index + 2].kind == .open(.brace)
    }

    /// From the label's line to the line of the brace's partner.
    func closureLines(labelAt label: Int, braceAt brace: Int) -> ClosedRange<Int>? {
        guard let close = partners[brace] else { return nil }
        return tokens[label].line...tokens[close].line
    }
}

// MARK: - Lines and brackets

extension SwiftSource {
    /// The text split at its line breaks (`\n`, `\r\n` or `\r`, as Swift counts lines).
    static func lines(of bytes: [UInt8]) -> [String] {
        var lines: [String] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            guard let length = SwiftLexer.lineBreakLength(in: bytes, at: index) else {
                index += 1
                continue
            }
            lines.append(String(decoding: bytes[start..<index], as: UTF8.self))
            index += length
            start = index
        }
        if start < bytes.count { lines.append(String(decoding: bytes[start...], as: UTF8.self)) }
        return lines
    }

    /// Each bracket's partner. A closing bracket pairs with the nearest open one of its kind;
    /// brackets of other kinds still open inside that pair are left unpaired (a `(` whose `)` is
    /// missing does not take the enclosing `}` away from its `{`), and a closing bracket with no
    /// open one of its kind is left unpaired.
    static func partners(of tokens: [SwiftToken]) -> [Int?] {
        var partners = [Int?](repeating: nil, count: tokens.count)
        var open: [(index: Int, bracket: SwiftToken.Bracket)] = []
        var openCounts = [0, 0, 0]
        for (index, token) in tokens.enumerated() {
            switch token.kind {
            case .open(let bracket):
                open.append((index, bracket))
                openCounts[bracket.rawValue] += 1
            case .close(let bracket) where openCounts[bracket.rawValue] > 0:
                while let top = open.popLast() {
                    openCounts[top.bracket.rawValue] -= 1
                    guard top.bracket == bracket else { continue }
                    partners[top.index] = index
                    partners[index] = top.index
                    break
                }
            default:
                continue
            }
        }
        return partners
    }
}

fileprivate extension Array {
    /// The index of the first element for which `isAtOrPast` holds, the elements being ordered
    /// so that it holds for none before it and for all after; `count` when it holds for none.
    func partitioningIndex(where isAtOrPast: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = low + (high - low) / 2
            if isAtOrPast(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

// MARK: - Tokens

/// One piece of code as the scanner sees it, with the line it begins on.
struct SwiftToken: Sendable {
    enum Bracket: Int, Sendable {
        case paren, square, brace
    }

    enum Kind: Sendable, Equatable {
        /// An identifier or a keyword; `text` without backticks.
        case word
        /// `#if`, `#selector`: `text` with its `#`.
        case poundWord
        /// A string (interpolations included), number or `#/…/#` regex literal.
        case literal
        /// A run of operator characters, `text`: `=`, `->`, `==`, `?`, `>>`, `...`.
        case operatorRun
        case open(Bracket), close(Bracket)
        case comma, colon, semicolon, at, dot, other

        var isOpening: Bool {
            if case .open = self { return true }
            return false
        }
    }

    let kind: Kind
    /// The spelling of a word, pound word or operator; empty for other tokens.
    let text: String
    let line: Int

    /// Whether a `{` right after this token is a trailing closure: the token can end the
    /// expression that names what is called.
    var canEndCallee: Bool {
        switch kind {
        case .word, .close(.paren), .close(.square): true
        case .operatorRun: text.hasSuffix(">") || text == "?" || text == "!"
        default: false
        }
    }
}

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
        tokens.append(SwiftToken(kind: .word, text: String(decoding: bytes[(index + 1)..<end], as: UTF8.self), line: line))
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
            case let .string(hashes, multiline):
                readStringText(hashes: hashes, multiline: multiline, frames: &frames)
            case let .interpolation(depth, multiline):
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
        } else if bytes[index] == ASCII.quote, (0..<quotes).allSatisfy({ byte(at: $0) == ASCII.quote }), hasHashes(hashes, at: quotes) {
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

/// The bytes the lexer tells apart.
private enum ASCII {
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let verticalTab: UInt8 = 0x0B
    static let formFeed: UInt8 = 0x0C
    static let slash = UInt8(ascii: "/")
    static let backslash = UInt8(ascii: "\\")
    static let asterisk = UInt8(ascii: "*")
    static let quote = UInt8(ascii: "\"")
    static let hash = UInt8(ascii: "#")
    static let backtick = UInt8(ascii: "`")
    static let dot = UInt8(ascii: ".")
    static let openParen = UInt8(ascii: "(")
    static let closeParen = UInt8(ascii: ")")

    /// The token a byte of punctuation is; `.other` for any other byte.
    static func punctuation(_ byte: UInt8) -> SwiftToken.Kind {
        switch byte {
        case UInt8(ascii: "("): .open(.paren)
        case UInt8(ascii: ")"): .close(.paren)
        case UInt8(ascii: "["): .open(.square)
        case UInt8(ascii: "]"): .close(.square)
        case UInt8(ascii: "{"): .open(.brace)
        case UInt8(ascii: "}"): .close(.brace)
        case UInt8(ascii: ","): .comma
        case UInt8(ascii: ":"): .colon
        case UInt8(ascii: ";"): .semicolon
        case UInt8(ascii: "@"): .at
        case UInt8(ascii: "."): .dot
        default: .other
        }
    }

    static func isDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    /// A byte of an identifier: ASCII letters, digits, `_`, `$`, and every byte of a non-ASCII
    /// character (Swift's identifiers may hold most of them).
    static func isWordByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "$"), 0x80...:
            true
        default:
            false
        }
    }

    static func isOperatorByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "-"), UInt8(ascii: "+"), UInt8(ascii: "!"),
             UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: "&"),
             UInt8(ascii: "|"), UInt8(ascii: "^"), UInt8(ascii: "~"), UInt8(ascii: "?"):
            true
        default:
            false
        }
    }
}

// MARK: - Declarations

/// A type, or a declaration with a body, found in the tokens.
struct SwiftScope: Sendable {
    /// Its own part of the name: `GroupAdd`, `generateOperations(_:)`, `result`.
    let name: String
    /// The index of the innermost scope whose body holds its keyword; nil at the top level.
    let parent: Int?
    /// Whether it is a type or an extension, which only names what it holds.
    let isType: Bool
    let lines: ClosedRange<Int>
    /// The index of its body's `}`; the number of tokens when that is missing.
    let bodyEnd: Int
    /// How many scopes hold it.
    let depth: Int
}

/// Finds the types and the declarations with a body, and names them.
struct SwiftDeclarationReader {
    let tokens: [SwiftToken]
    let partners: [Int?]
    /// The file's last line, where a body whose `}` is missing ends.
    let lastLine: Int

    /// What one keyword declares: its own part of the name, its first token (attributes and
    /// modifiers included) and its body's `{`.
    struct Found {
        let name: String
        let isType: Bool
        let firstToken: Int
        let bodyOpen: Int
    }

    /// Words that begin a declaration: a body's search for its `{` ends at one of them, for a
    /// declaration without a body (a protocol's requirement) is followed by the next one.
    static let declarationKeywords: Set<String> = [
        "func", "init", "deinit", "subscript", "var", "let", "class", "struct", "enum", "actor",
        "extension", "protocol", "typealias", "associatedtype", "case", "import",
    ]

    /// Words written before a declaration's keyword, which belong to its first line.
    static let modifiers: Set<String> = [
        "public", "private", "fileprivate", "internal", "package", "open", "static", "class", "final",
        "override", "mutating", "nonmutating", "lazy", "weak", "unowned", "convenience", "required",
        "dynamic", "optional", "indirect", "nonisolated", "isolated", "distributed", "prefix", "postfix",
        "infix", "consuming", "borrowing",
    ]

    /// Words after which `let` or `var` binds a condition's or a pattern's name, not a property.
    static let bindingContexts: Set<String> = ["if", "guard", "while", "for", "case", "catch"]

    /// Every scope, each with the innermost one whose body holds its keyword.
    func scopes() -> [SwiftScope] {
        var scopes: [SwiftScope] = []
        // The scopes whose bodies the walk is in, innermost last, with their bodies' ends.
        var open: [(scope: Int, bodyEnd: Int)] = []
        // For each token, the scope whose body it opens.
        var opensBodyOf = [Int?](repeating: nil, count: tokens.count)
        for index in tokens.indices {
            while let top = open.last, top.bodyEnd < index { open.removeLast() }
            if let scope = opensBodyOf[index] { open.append((scope, scopes[scope].bodyEnd)) }
            guard let found = declaration(at: index) else { continue }
            let parent = open.last?.scope
            scopes.append(scope(found, parent: parent, depth: parent.map { scopes[$0].depth + 1 } ?? 0))
            opensBodyOf[found.bodyOpen] = scopes.count - 1
        }
        return scopes
    }

    func scope(_ found: Found, parent: Int?, depth: Int) -> SwiftScope {
        let close = partners[found.bodyOpen]
        let firstLine = tokens[found.firstToken].line
        let endLine = close.map { tokens[$0].line } ?? max(lastLine, firstLine)
        return SwiftScope(
            name: found.name, parent: parent, isType: found.isType,
            lines: firstLine...endLine, bodyEnd: close ?? tokens.count, depth: depth
        )
    }

    /// The declaration whose keyword is at `index`, if it has a body.
    func declaration(at index: Int) -> Found? {
        let token = tokens[index]
        let isMember = index > 0 && tokens[index - 1].kind == .dot
        let isLabel = index + 1 < tokens.count && tokens[index + 1].kind == .colon
        guard token.kind == .word, !isMember, !isLabel else { return nil }
        switch token.text {
        case "func", "init", "deinit", "subscript": return function(at: index)
        case "var", "let": return property(at: index)
        case "class", "struct", "enum", "actor", "extension", "protocol": return type(at: index)
        default: return nil
        }
    }

    /// `func name(labels:)`, `init(labels:)`, `subscript(labels:)` or `deinit`.
    func function(at keyword: Int) -> Found? {
        let kind = tokens[keyword].text
        var name = kind
        var next = keyword + 1
        var isOperator = false
        if kind == "func" {
            guard next < tokens.count, [.word, .operatorRun].contains(tokens[next].kind) else { return nil }
            name = tokens[next].text
            isOperator = tokens[next].kind == .operatorRun
            next += 1
        }
        if kind != "deinit" {
            guard let parameters = parameterList(from: next) else { return nil }
            let loneNameIsLabel = kind != "subscript" && !isOperator
            let labels = argumentLabels(from: parameters.open, to: parameters.close, loneNameIsLabel: loneNameIsLabel)
            name += "(\(labels))"
            next = parameters.close + 1
        }
        guard let body = bodyOpen(from: next) else { return nil }
        return Found(name: name, isType: false, firstToken: firstToken(ofDeclarationAt: keyword), bodyOpen: body)
    }

    /// `var name: Type {` (computed, or an override's observers), `let name = {` (a closure),
    /// or `var name = value { didSet`.
    func property(at keyword: Int) -> Found? {
        let before = keyword > 0 ? tokens[keyword - 1] : nil
        let binds = before.map { $0.kind == .comma || $0.kind == .open(.paren) || Self.bindingContexts.contains($0.text) } ?? false
        guard !binds, keyword + 2 < tokens.count, tokens[keyword + 1].kind == .word else { return nil }
        var next = keyword + 2
        var body: Int?
        if tokens[next].kind == .colon {
            next = endOfTypeAnnotation(from: next + 1)
            if next < tokens.count, tokens[next].kind == .open(.brace) { body = next }
        }
        if next < tokens.count, tokens[next].kind == .operatorRun, tokens[next].text == "=" {
            body = closureOrObservers(afterEquals: next)
        }
        guard let body else { return nil }
        let name = tokens[keyword + 1].text
        return Found(name: name, isType: false, firstToken: firstToken(ofDeclarationAt: keyword), bodyOpen: body)
    }

    /// `class`, `struct`, `enum`, `actor` or `protocol` and its name, or `extension` and the
    /// extended type's dotted name. `class func` and `class var` are no types: `class` is then
    /// a modifier.
    func type(at keyword: Int) -> Found? {
        let nameIndex = keyword + 1
        guard nameIndex < tokens.count, tokens[nameIndex].kind == .word, tokens[nameIndex].line == tokens[keyword].line,
              !Self.declarationKeywords.contains(tokens[nameIndex].text), !Self.modifiers.contains(tokens[nameIndex].text)
        else { return nil }
        var name = tokens[nameIndex].text
        var next = nameIndex + 1
        if tokens[keyword].text == "extension" {
            while next + 1 < tokens.count, tokens[next].kind == .dot, tokens[next + 1].kind == .word {
                name += ".\(tokens[next + 1].text)"
                next += 2
            }
        }
        guard let body = bodyOpen(from: next) else { return nil }
        return Found(name: name, isType: true, firstToken: firstToken(ofDeclarationAt: keyword), bodyOpen: body)
    }
}

extension SwiftDeclarationReader {
    /// The `{` of a body, the first one from `start` outside brackets; nil when a bracket closes,
    /// or a `;`, a `#` word (`#if`) or the next declaration's keyword comes first: the
    /// declaration has none.
    func bodyOpen(from start: Int) -> Int? {
        var index = start
        while index < tokens.count {
            let token = tokens[index]
            switch token.kind {
            case .open(.brace):
                return index
            case .open:
                guard let partner = partners[index] else { return nil }
                index = partner
            case .close, .semicolon, .poundWord:
                return nil
            case .word where Self.declarationKeywords.contains(token.text):
                return nil
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// The `(`…`)` of a parameter list from `start`, past a generic clause or `init?`'s `?`.
    func parameterList(from start: Int) -> (open: Int, close: Int)? {
        var index = start
        while index < tokens.count {
            switch tokens[index].kind {
            case .open(.paren):
                return partners[index].map { (index, $0) }
            case .word, .operatorRun, .comma, .colon, .dot:
                index += 1
            default:
                return nil
            }
        }
        return nil
    }

    /// Where in a parameter the argument-label reader is.
    enum ParameterPart {
        case names, type, defaultValue
    }

    /// `with:`, `lhs:rhs:`, `_:`: the argument labels of the parameters between `open` and
    /// `close`. A parameter's first name is its label, `_` for none; a lone name is the label
    /// too, except in a subscript or an operator (`loneNameIsLabel` false), where Swift reads it
    /// as none.
    func argumentLabels(from open: Int, to close: Int, loneNameIsLabel: Bool) -> String {
        var labels = ""
        var names: [String] = []
        var part = ParameterPart.names
        var openAngles = 0
        func endParameter() {
            if part != .names, let first = names.first { labels += (names.count == 1 && !loneNameIsLabel ? "_" : first) + ":" }
            names = []
            part = .names
        }
        var index = open + 1
        while index < close {
            let token = tokens[index]
            switch (token.kind, part) {
            case (.comma, _) where openAngles == 0: endParameter()
            case (.colon, .names): part = .type
            case (.word, .names) where tokens[index - 1].kind != .at: names.append(token.text)
            case (.operatorRun, .type) where token.text == "=": part = .defaultValue
            case (.operatorRun, .type) where token.text != "->": openAngles = max(0, openAngles + Self.angleChange(token.text))
            case (.open, _): index = partners[index] ?? close
            default: break
            }
            index += 1
        }
        endParameter()
        return labels
    }

    /// How many generic clauses an operator run in a type opens (`<`) or closes (`>`, `>>`).
    static func angleChange(_ text: String) -> Int {
        text.utf8.reduce(0) { count, byte in
            count + (byte == UInt8(ascii: "<") ? 1 : byte == UInt8(ascii: ">") ? -1 : 0)
        }
    }

    /// The first token after a property's type annotation, which starts at `start`: the
    /// annotation ends at a line break outside brackets, at a `=`, `{`, `;` or closing bracket.
    func endOfTypeAnnotation(from start: Int) -> Int {
        var index = start
        var previousLine = tokens[start - 1].line
        while index < tokens.count, tokens[index].line == previousLine {
            switch tokens[index].kind {
            case .open(.brace), .close, .semicolon:
                return index
            case .operatorRun where tokens[index].text == "=":
                return index
            case .open:
                guard let partner = partners[index] else { return index }
                index = partner
            default:
                break
            }
            previousLine = tokens[index].line
            index += 1
        }
        return index
    }

    /// The body after a property's `=`: a closure right there, or, past the initial value, a
    /// `{` that holds `willSet` or `didSet`.
    func closureOrObservers(afterEquals equals: Int) -> Int? {
        guard equals + 1 < tokens.count else { return nil }
        if tokens[equals + 1].kind == .open(.brace) { return equals + 1 }
        guard let brace = bodyOpen(from: equals + 1), brace + 1 < tokens.count else { return nil }
        return ["willSet", "didSet"].contains(tokens[brace + 1].text) ? brace : nil
    }

    /// The declaration's first token: back from its keyword over modifiers (`private(set)`
    /// included) and attributes (`@MainActor`, `@available(…)`); its doc comment is no token.
    func firstToken(ofDeclarationAt keyword: Int) -> Int {
        var first = keyword
        while first > 0 {
            var word = first - 1
            if tokens[word].kind == .close(.paren) {
                guard let open = partners[word], open > 0 else { break }
                word = open - 1
            }
            guard tokens[word].kind == .word else { break }
            if word > 0, tokens[word - 1].kind == .at {
                first = word - 1
            } else if Self.modifiers.contains(tokens[word].text) {
                first = word
            } else {
                break
            }
        }
        return first
    }
}
