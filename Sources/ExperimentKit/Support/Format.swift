import Foundation

/// Number formatting shared by every renderer, so a figure reads the same everywhere.
public enum Format {
    /// What a message says of a text the user gave (a name, a value, a path), in single quotes:
    /// every character that would act on the terminal instead of showing (an escape that
    /// recolours it, a newline that starts a line of its own, a right-to-left override) written
    /// as Swift writes it (`\n`, `\u{1B}`), and the backslash as `\\`, so what is shown is
    /// what was typed. Whole up to ``echoLimit`` characters so written; a longer one (a path, a
    /// value pasted by mistake) by its start and its end, with its length:
    /// `'xxxxxxxx…xxxx' (100000 characters)`; whole however long with `cut` false (a path on
    /// disk that a message names, to be found). Every message that quotes input quotes it here.
    public static func echoed(_ text: String, cut: Bool = true) -> String {
        var whole = "", length = 0
        for character in text {
            let shown = visible(character)
            length += shown.count
            if cut, length > echoLimit { break }
            whole += shown
        }
        if !cut || length <= echoLimit { return "'\(whole)'" }
        var start = "", end = ""
        for character in text {
            let shown = visible(character)
            if start.count + shown.count > echoLimit / 2 { break }
            start += shown
        }
        for character in text.reversed() {
            let shown = visible(character)
            if end.count + shown.count > echoLimit * 3 / 8 { break }
            end = shown + end
        }
        return "'\(start)…\(end)' (\(count(text.count, "character")))"
    }

    /// The most characters a message quotes of an input whole.
    public static let echoLimit = 80

    /// Text the tool writes but did not make (a printed line, a label, an outcome, a child's
    /// words) as the terminal and a report show it: each character that would act on a
    /// terminal written out as ``echoed(_:cut:)`` writes it (`\u{1B}`, `\r`, `\0`), so
    /// nothing the text holds clears the screen, retitles the window, rings or overwrites a
    /// line; a backslash stays as it is (the text is shown, not quoted back). Past `limit`
    /// characters so written, cut with the count of the rest: `… (99920 more characters)`.
    /// Every renderer of text and Markdown shows such text through here.
    public static func shown(_ text: String, limit: Int = shownLimit) -> String {
        // Most text holds no such character and fits: it is shown as it is, unread character by character.
        if text.utf8.count <= limit, !text.unicodeScalars.contains(where: actsOnATerminal) { return text }
        var result = "", length = 0, seen = 0
        for character in text {
            let shown = visible(character, keepingBackslash: true)
            if length + shown.count > limit {
                return result + "… (\(count(text.count - seen, "more character")))"
            }
            result += shown
            length += shown.count
            seen += 1
        }
        return result
    }

    /// The most characters ``shown(_:limit:)`` writes of one text whole: above the longest
    /// sentence the experiments write (an erratum of 924), below a screenful.
    public static let shownLimit = 2000

    /// A character as ``echoed(_:cut:)`` shows it; with `keepingBackslash`, as ``shown(_:limit:)`` does.
    static func visible(_ character: Character, keepingBackslash: Bool = false) -> String {
        String(character).replacingScalars([
            "\\": keepingBackslash ? "\\" : "\\\\", "\0": "\\0", "\t": "\\t", "\n": "\\n", "\r": "\\r",
        ]) { scalar in
            actsOnATerminal(scalar) ? "\\u{\(String(scalar.value, radix: 16, uppercase: true))}" : nil
        }
    }

    /// Whether a terminal would act on the scalar rather than show it: a control, a line or
    /// paragraph separator, a format character.
    private static func actsOnATerminal(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.isASCII { return scalar.value < 0x20 || scalar.value == 0x7F }
        switch scalar.properties.generalCategory {
        // A zero-width joiner holds an emoji sequence together (👩‍💻); alone it hides nothing.
        case .format where scalar != "\u{200D}", .control, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// A count and its noun, singular for one: `1 CPU`, `2 CPUs`, `5 children`.
    public static func count(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
    }

    /// A thread as every view names it: `main` for the experiment's own (0), `t3` for another,
    /// `out` for a line written to stdout around the instrumented `print`, whose thread is not
    /// known (``PrintedLine/standardOutputThread``).
    public static func thread(_ number: Int) -> String {
        number == 0 ? "main" : number < 0 ? "out" : "t\(number)"
    }

    /// `4.97 s`.
    public static func seconds(_ value: Double, digits: Int = 2) -> String {
        String(format: "%.\(digits)f s", value)
    }

    /// `4.85–5.27 s`, or one figure when both ends agree.
    public static func range(_ range: ClosedRange<Double>, digits: Int = 2) -> String {
        let low = String(format: "%.\(digits)f", range.lowerBound)
        let high = String(format: "%.\(digits)f", range.upperBound)
        return low == high ? "\(low) s" : "\(low)–\(high) s"
    }

    /// `+0.03 s` / `-0.10 s`.
    public static func signedSeconds(_ value: Double) -> String {
        String(format: "%+.2f s", value)
    }

    /// Short durations in the unit that reads best: `0.41 ms`, `12 µs`.
    public static func shortDuration(_ seconds: Double) -> String {
        if seconds >= 0.1 { return Format.seconds(seconds) }
        if seconds >= 0.001 { return String(format: "%.2f ms", seconds * 1e3) }
        return String(format: "%.0f µs", seconds * 1e6)
    }
}
