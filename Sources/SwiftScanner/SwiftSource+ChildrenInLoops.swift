/// The children a task group's body adds inside a loop over the group's results.
extension SwiftSource {
    /// The lines of each `.addTask` or `.addTaskUnlessCancelled` written inside the body of a
    /// `for await … in …` or `for try await … in …` loop: such a child is added as the loop
    /// receives one that ended, an instant no call reports (the loop's iterator is the
    /// standard library's own, which no name of the code's shadows).
    package func childrenAddedInAwaitingLoops() -> [Int] {
        var lines: Set<Int> = []
        for index in tokens.indices where isWord("for", at: index) {
            let awaiting = isWord("try", at: index + 1) ? index + 2 : index + 1
            guard isWord("await", at: awaiting),
                let brace = tokens.indices[awaiting...].first(where: { tokens[$0].kind == .open(.brace) }),
                let close = partners[brace]
            else { continue }
            for inner in brace + 1..<close
            where (isWord("addTask", at: inner) || isWord("addTaskUnlessCancelled", at: inner))
                && tokens[inner - 1].kind == .dot
            {
                lines.insert(tokens[inner].line)
            }
        }
        return lines.sorted()
    }
}
