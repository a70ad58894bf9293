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

    /// The declaration a reference names: `Lesson.run` or
    /// `GroupAdd.generateOperations` (argument labels left out), matched on its whole qualified
    /// name, else on a unique ending of it (a reference written inside its own type); nil when
    /// none or several match.
    package func declaration(named reference: String) -> Declaration? {
        let candidates = scopes.indices.filter { !scopes[$0].isType }.map {
            ($0, Self.withoutLabels(qualifiedName(ofScopeAt: $0)))
        }
        let exact = candidates.filter { $0.1 == reference }
        let ending = candidates.filter { $0.1.hasSuffix("." + reference) }
        guard let index = (exact.count == 1 ? exact : ending.count == 1 ? ending : []).first?.0 else { return nil }
        return Declaration(name: qualifiedName(ofScopeAt: index), lines: scopes[index].lines)
    }

    /// `GroupAdd.generateOperations(_:)` as a reference writes it: `GroupAdd.generateOperations`.
    static func withoutLabels(_ name: String) -> String {
        name.split(separator: ".").map { $0.split(separator: "(", maxSplits: 1).first.map(String.init) ?? "" }.joined(
            separator: ".")
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
    /// reference (`run: Lesson.run`, or the callee of `code: Lesson.code { … }`): its
    /// line, and the dotted name it writes.
    package func referenceArgument(_ label: String, ofCallAt callLine: Int) -> (line: Int, name: String)? {
        guard let open = callOpening(onLine: callLine), tokens[open].kind == .open(.paren),
            let close = partners[open]
        else { return nil }
        var index = open + 1
        while index + 2 < close {
            let startsArgument = tokens[index - 1].kind == .comma || index == open + 1
            if startsArgument, tokens[index].kind == .word, tokens[index].text == label,
                tokens[index + 1].kind == .colon
            {
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
            tokens[index + 2].kind == .open(.brace)
        {
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

extension Array {
    /// The index of the first element for which `isAtOrPast` holds, the elements being ordered
    /// so that it holds for none before it and for all after; `count` when it holds for none.
    fileprivate func partitioningIndex(where isAtOrPast: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = low + (high - low) / 2
            if isAtOrPast(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
