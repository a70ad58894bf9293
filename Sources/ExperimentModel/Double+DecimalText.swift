import Foundation

extension Double {
    /// The number as every view writes it: a whole number without a point, anything else with
    /// at most six decimals and no trailing zeros (`2`, `0.05`, `1.333333`); under half a
    /// microsecond, whatever its sign, is `0`.
    public var decimalText: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int(self)) }
        var text = String(format: "%.6f", self)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}
