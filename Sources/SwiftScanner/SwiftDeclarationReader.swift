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
        let binds =
            before.map { $0.kind == .comma || $0.kind == .open(.paren) || Self.bindingContexts.contains($0.text) }
            ?? false
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
            if part != .names, let first = names.first {
                labels += (names.count == 1 && !loneNameIsLabel ? "_" : first) + ":"
            }
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
            case (.operatorRun, .type) where token.text != "->":
                openAngles = max(0, openAngles + Self.angleChange(token.text))
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
