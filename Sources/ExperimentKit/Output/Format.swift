import Foundation

/// Number formatting shared by every renderer, so a figure reads the same everywhere.
public enum Format {
    /// A text as a message quotes it: whole up to 80 characters, a longer one (a path, a name
    /// typed by mistake) by its start and its end.
    public static func abbreviated(_ text: String) -> String {
        text.count <= 80 ? text : "\(text.prefix(40))…\(text.suffix(30))"
    }

    /// A number as short as it reads exactly: `1`, `0.5`, `1.75`.
    public static func number(_ value: Double) -> String {
        JSONWriter.format(value)
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
