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
        case open(Bracket)
        case close(Bracket)
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

/// The bytes the lexer tells apart.
enum ASCII {
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
