import ExperimentKit
import ExperimentModel

/// What every format shows of the article for one experiment, worded once so that text,
/// Markdown, HTML and JSON cannot disagree.
package enum ArticleText {
    /// The article's words with the figure they state, in article seconds: `“…” (2 s)`; "—"
    /// when the article has no words of its own for the experiment. Off the article's setting
    /// (`showsFigure` false) the figure is left out, as every other format leaves it out.
    package static func quote(_ claim: ArticleClaim, showsFigure: Bool = true) -> String {
        guard let quote = claim.quote else { return "—" }
        let figure = showsFigure ? claim.seconds.map { " (\($0.decimalText) s)" } : nil
        return "“\(quote)”" + (figure ?? "") + (claim.file.map { " (\(Article.shortName(ofFile: $0)))" } ?? "")
    }

    /// The article's figure in real seconds for a run with `parameters` at `timeScale`: nil when
    /// the article states none for this experiment, or the run is off the article's setting.
    package static func seconds(_ claim: ArticleClaim, parameters: Parameters, timeScale: Double) -> Double? {
        guard parameters.isArticleSetting else { return nil }
        return claim.seconds.map { $0 * timeScale }
    }

    /// The values a run used, each marked with where it comes from: the article's, chosen here
    /// (and why), or set on the command line; neighbours of one origin share the mark:
    /// `cancel-at=0.5 (chosen here: …), pairs=5, width=2 (the article's)`. Off the article's
    /// setting the line says its figure is not shown.
    package static func settingsLine(_ parameters: Parameters) -> String {
        var groups: [(origin: Parameters.ValueOrigin, values: [String])] = []
        for (value, origin) in zip(parameters.values, parameters.origins) {
            let text = "\(value.key)=\(value.value.parameterText)"
            if groups.last?.origin == origin {
                groups[groups.count - 1].values.append(text)
            } else {
                groups.append((origin, [text]))
            }
        }
        let line = groups.map { $0.values.joined(separator: ", ") + " (\(originText($0.origin)))" }.joined(
            separator: ", ")
        return parameters.isArticleSetting ? line : line + "; not the article's setting, so its figure is not shown"
    }

    /// `the article's`, `chosen here: why`, `set here`.
    package static func originText(_ origin: Parameters.ValueOrigin) -> String {
        switch origin {
        case .article: return "the article's"
        case .chosen(let why): return "chosen here: \(why)"
        case .set: return "set here"
        }
    }

    /// How `describe` names where a default comes from: `the article's`, or `chosen here: why`.
    package static func originText(_ origin: ParameterSpec.Origin) -> String {
        switch origin {
        case .article: return originText(Parameters.ValueOrigin.article)
        case .chosen(let why, _): return originText(Parameters.ValueOrigin.chosen(why: why))
        }
    }
}
