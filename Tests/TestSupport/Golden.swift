import Foundation

/// Golden texts: what a learner reads, kept whole in a test target's `Goldens` folder (a
/// resource, so the text is data beside the code, not a copy of it). To change one on purpose,
/// write the new text into its file and read the diff.
public enum Golden {
    /// The text of `Goldens/<name>.<extension>` in the test target whose resource bundle is
    /// `bundle` (a golden SVG or Markdown keeps its own extension, so it opens as what it is).
    public static func text(_ name: String, extension: String = "txt", in bundle: Bundle) throws -> String {
        guard let url = bundle.url(forResource: name, withExtension: `extension`, subdirectory: "Goldens") else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "Goldens/\(name).\(`extension`)"])
        }
        return try String(contentsOf: url, encoding: .utf8)
    }
}
