import ExperimentKit
import Foundation
import Pictures

/// An operation that hands an image on to the operations that depend on it (article 000,
/// "Dependencies": the filter finds its input among its dependencies through this protocol).
protocol ImagePass {
    var outputImage: RGBAImage? { get }
    /// The source picture the image passed on is made from (known before anything runs): what
    /// the model calibrates the filters' CPU work on.
    var sourceName: String? { get }
}

extension Operation {
    /// The image of the first dependency that passes one on, if any.
    var imageFromDependencies: RGBAImage? {
        dependencies.lazy.compactMap { ($0 as? ImagePass)?.outputImage }.first
    }

    /// The source picture of the first dependency that passes one on, if any.
    var sourceNameFromDependencies: String? {
        dependencies.lazy.compactMap { ($0 as? ImagePass)?.sourceName }.first
    }
}
