import Foundation

/// A Swift file's lines with what is not code left out, line by line: what a search for a construct
/// by a regular expression reads, so that a word in a comment or a string is not taken for code.
///
/// Lighter than ``SwiftSource``'s tokens, and rougher: a quote inside a raw string (`#"…"#`) or
/// a string inside an interpolation ends the string early, so what follows it on the line reads
/// as code.
package enum SwiftCodeLines {
    /// `text`'s lines with comments and string literals blanked, so that a word in them is not taken for code.
    package static func code(of text: String) -> [String] {
        var inBlockComment = false, inMultilineString = false
        return text.components(separatedBy: "\n").map { line in
            var kept = ""
            var characters = Substring(line)
            var inString = false
            while let character = characters.first {
                if inBlockComment {
                    if characters.hasPrefix("*/") {
                        inBlockComment = false; characters = characters.dropFirst(2)
                    } else {
                        characters = characters.dropFirst()
                    }
                } else if inMultilineString {
                    if characters.hasPrefix("\"\"\"") {
                        inMultilineString = false; characters = characters.dropFirst(3)
                    } else {
                        characters = characters.dropFirst()
                    }
                } else if inString {
                    if characters.hasPrefix("\\") {
                        characters = characters.dropFirst(2)
                    } else {
                        if character == "\"" { inString = false }
                        characters = characters.dropFirst()
                    }
                } else if characters.hasPrefix("//") {
                    break
                } else if characters.hasPrefix("/*") {
                    inBlockComment = true
                    characters = characters.dropFirst(2)
                } else if characters.hasPrefix("\"\"\"") {
                    inMultilineString = true
                    characters = characters.dropFirst(3)
                } else {
                    if character == "\"" { inString = true } else { kept.append(character) }
                    characters = characters.dropFirst()
                }
            }
            return kept
        }
    }
}
