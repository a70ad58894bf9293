extension String {
    /// The text with each scalar found in `table`, or named by `otherwise`, replaced by its
    /// replacement, every other scalar kept: how markup, annotations and quoted characters escape,
    /// each with its table.
    package func replacingScalars(
        _ table: [Unicode.Scalar: String], otherwise: (Unicode.Scalar) -> String? = { _ in nil }
    ) -> String {
        var result = ""
        for scalar in unicodeScalars {
            if let replacement = table[scalar] ?? otherwise(scalar) {
                result += replacement
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
