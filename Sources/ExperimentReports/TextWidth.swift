/// Terminal column widths, so tables with emoji and Cyrillic labels stay aligned.
package enum TextWidth {
    /// Columns a string takes in a terminal: emoji and East Asian wide characters take two.
    package static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if scalars.contains("\u{FE0F}") || first.properties.isEmojiPresentation { return 2 }
        switch first.value {
        case 0x1100...0x115F, 0x2E80...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6:
            return 2
        default:
            return 1
        }
    }

    /// `text` cut to at most `width` columns, ending in `…` when cut.
    package static func truncate(_ text: String, to width: Int) -> String {
        guard columns(text) > width else { return text }
        var result = ""
        for character in text {
            if columns(result) + columns(of: character) > width - 1 { break }
            result.append(character)
        }
        return result + "…"
    }

    /// `text` padded with spaces to `width` columns (left-aligned), or right-aligned when `right`.
    package static func pad(_ text: String, to width: Int, right: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - columns(text)))
        return right ? padding + text : text + padding
    }
}

/// Rows and columns, aligned; the one table layout every text renderer uses.
package struct TextTable: Sendable {
    package var header: [String]
    package var rows: [[String]]
    /// Columns aligned to the right (numbers).
    package var rightAligned: Set<Int>

    package init(header: [String], rows: [[String]], rightAligned: Set<Int> = []) {
        self.header = header
        self.rows = rows
        self.rightAligned = rightAligned
    }

    package func render(indent: String = "") -> String {
        let all = [header] + rows
        let widths = header.indices.map { column in all.map { TextWidth.columns($0[column]) }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            let padded = cells.enumerated().map { column, cell in
                TextWidth.pad(cell, to: widths[column], right: rightAligned.contains(column))
            }
            var text = indent + padded.joined(separator: "  ")
            while text.hasSuffix(" ") { text.removeLast() }
            return text
        }
        let rule = indent + widths.map { String(repeating: "─", count: $0) }.joined(separator: "  ")
        return ([line(header), rule] + rows.map(line)).joined(separator: "\n")
    }
}
