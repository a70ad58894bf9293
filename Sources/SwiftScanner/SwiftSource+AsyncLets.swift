/// The `async let`s of a file, read for where a task's body waits for each child: a child runs
/// beside the body from its declaration until the body first uses its name (which Swift makes
/// the body `await`), or, never used, until the body's end, which waits for it.
extension SwiftSource {
    /// The body of a `Task { … }` or `Task.detached { … }` that declares `async let`s, each where
    /// its line alone says when the body waits for it.
    package struct AsyncLetBody: Sendable, Equatable {
        /// From the line of the closure's `{` to the line of its `}`.
        package var lines: ClosedRange<Int>
        /// In the order they are written, which is the order they start.
        package var declarations: [AsyncLet]
    }

    /// One `async let name = …` at the top level of a task's body.
    package struct AsyncLet: Sendable, Equatable {
        package var name: String
        package var line: Int
        /// The line of the body's first use of the name, where it waits for the child; nil when
        /// the body never uses it, and its end waits for the child instead.
        package var awaitedAt: Int?
    }

    /// An `async let` whose shape the text alone does not place, and why.
    package struct UnplacedAsyncLet: Sendable, Equatable {
        package var line: Int
        package var why: String
    }

    /// The task bodies with `async let`s whose waits the text places, and the `async let`s it
    /// does not place.
    package func asyncLets() -> (bodies: [AsyncLetBody], unplaced: [UnplacedAsyncLet]) {
        let enclosing = enclosingBraces()
        var bodies: [Int: AsyncLetBody] = [:]
        var unplaced: [UnplacedAsyncLet] = []
        for index in tokens.indices where isWord("async", at: index) && isWord("let", at: index + 1) {
            let line = tokens[index].line
            guard let brace = enclosing[index], let close = partners[brace] else {
                unplaced.append(UnplacedAsyncLet(line: line, why: Self.outsideATask))
                continue
            }
            if let why = whyUnplaced(asyncLetAt: index, in: brace, closedAt: close, enclosing: enclosing) {
                unplaced.append(UnplacedAsyncLet(line: line, why: why))
                continue
            }
            let name = tokens[index + 2].text
            let use = (index + 3..<close).first { isUse(of: name, at: $0) }
            let declaration = AsyncLet(name: name, line: line, awaitedAt: use.map { tokens[$0].line })
            bodies[brace, default: AsyncLetBody(lines: tokens[brace].line...tokens[close].line, declarations: [])]
                .declarations.append(declaration)
        }
        // A use on the line of another declaration is awaited in that child, not in the body.
        for (brace, body) in bodies {
            let lines = Set(body.declarations.map(\.line))
            let misplaced = body.declarations.filter { $0.awaitedAt.map(lines.contains) ?? false }
            guard !misplaced.isEmpty else { continue }
            bodies[brace] = nil
            unplaced += body.declarations.map {
                UnplacedAsyncLet(
                    line: $0.line, why: misplaced.contains($0) ? Self.awaitedInAChild : Self.besideUnplaced)
            }
        }
        return (bodies.sorted { $0.key < $1.key }.map(\.value), unplaced.sorted { $0.line < $1.line })
    }

    /// Why the `async let` at `index`, in the block `brace`…`close`, cannot be placed; nil when it can.
    private func whyUnplaced(asyncLetAt index: Int, in brace: Int, closedAt close: Int, enclosing: [Int?]) -> String? {
        guard isTaskClosure(brace) else { return Self.outsideATask }
        if let why = whyBodyUnplaced(brace, closedAt: close) { return why }
        guard index + 3 < tokens.count, tokens[index + 2].kind == .word,
            tokens[index + 3].kind == .colon || tokens[index + 3].text == "="
        else { return "it binds a pattern of several names, whose children the model does not tell apart yet" }
        let name = tokens[index + 2].text
        let uses = (index + 3..<close).filter { isUse(of: name, at: $0) || isLabel(name, at: $0) }
        if let first = uses.first {
            if isLabel(name, at: first) {
                return "its name also labels something in the body, which the model cannot tell from a use"
            }
            if enclosing[first] != brace {
                return
                    "it is first awaited inside a block or closure of the body, which may run later, more than once or never: the model cannot tell when the body waits for it"
            }
        }
        return nil
    }

    /// Why no `async let` of the task body `brace`…`close` can be placed: a closure, a local
    /// function or a `defer` in it runs its waits elsewhere than where they are written.
    private func whyBodyUnplaced(_ brace: Int, closedAt close: Int) -> String? {
        for index in brace + 1..<close {
            if isWord("defer", at: index) || isWord("func", at: index) {
                return
                    "the task's body holds a defer or a local function, whose waits do not run where they are written: the model cannot place them beside its children"
            }
            if tokens[index].kind == .open(.brace), !opensAStatementsBlock(index) {
                return
                    "the task's body holds a closure, whose waits run where it is called, not where they are written: the model cannot place them beside its children"
            }
        }
        return nil
    }

    /// Whether the `{` at `index` is a statement's block (`for`, `while`, `if`, `guard`,
    /// `else`, `repeat`, `do`, `catch`, `switch`): the first code of its line names one (after
    /// the `}` a line such as `} else {` begins with).
    private func opensAStatementsBlock(_ index: Int) -> Bool {
        var first = index
        while first > 0, tokens[first - 1].line == tokens[index].line { first -= 1 }
        if tokens[first].kind == .close(.brace), first < index { first += 1 }
        return tokens[first].kind == .word && Self.statementKeywords.contains(tokens[first].text)
    }

    private static let statementKeywords: Set = [
        "for", "while", "if", "guard", "else", "repeat", "do", "catch", "switch",
    ]

    /// Whether the `{` at `brace` is the trailing closure of `Task`, `Task.detached`, or either
    /// with arguments (`Task(priority: .high) { … }`).
    private func isTaskClosure(_ brace: Int) -> Bool {
        guard brace > 0 else { return false }
        var callee = brace - 1
        if tokens[callee].kind == .close(.paren) {
            guard let open = partners[callee], open > 0 else { return false }
            callee = open - 1
        }
        if isWord("Task", at: callee) { return true }
        return isWord("detached", at: callee) && callee >= 2 && tokens[callee - 1].kind == .dot
            && isWord("Task", at: callee - 2)
    }

    /// Whether the token at `index` is the name `name` used as a value: not a member
    /// (`x.name`) or a label (`name:`); `async let _` names nothing to use.
    private func isUse(of name: String, at index: Int) -> Bool {
        name != "_" && isWord(name, at: index) && !isLabel(name, at: index)
            && (index == 0 || tokens[index - 1].kind != .dot)
    }

    private func isLabel(_ name: String, at index: Int) -> Bool {
        name != "_" && isWord(name, at: index) && index + 1 < tokens.count && tokens[index + 1].kind == .colon
    }

    func isWord(_ text: String, at index: Int) -> Bool {
        index < tokens.count && tokens[index].kind == .word && tokens[index].text == text
    }

    /// For each token, the `{` of the innermost block that holds it; nil outside every block.
    private func enclosingBraces() -> [Int?] {
        var enclosing = [Int?](repeating: nil, count: tokens.count)
        var open: [Int] = []
        for index in tokens.indices {
            if tokens[index].kind == .close(.brace), let partner = partners[index] {
                while let top = open.popLast(), top != partner {}
            }
            enclosing[index] = open.last
            if tokens[index].kind == .open(.brace), partners[index] != nil { open.append(index) }
        }
        return enclosing
    }

    static let outsideATask =
        "an async let outside the body of a Task { … } or Task.detached { … } runs its child where the model does not follow it yet"
    static let awaitedInAChild =
        "it is awaited inside another async let's child, which the model does not plan yet"
    static let besideUnplaced = "another async let of the same body cannot be placed"
}
