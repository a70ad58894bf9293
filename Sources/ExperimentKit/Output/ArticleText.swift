/// What every format shows of the article for one experiment, worded once so that text,
/// Markdown, HTML and JSON cannot disagree.
public enum ArticleText {
    /// The article's words with the figure they state, in article seconds: `“…” (2 s)`; "—"
    /// when the article has no words of its own for the experiment. Off the article's setting
    /// (`showsFigure` false) the figure is left out, as every other format leaves it out.
    public static func quote(_ claim: ArticleClaim, showsFigure: Bool = true) -> String {
        guard let quote = claim.quote else { return "—" }
        let figure = showsFigure ? claim.seconds.map { " (\(Format.number($0)) s)" } : nil
        return "“\(quote)”" + (figure ?? "") + (claim.file.map { " (\(Article.shortName(ofFile: $0)))" } ?? "")
    }

    /// The article's figure in real seconds for a run with `parameters` at `timeScale`: nil when
    /// the article states none for this experiment, or the run is off the article's setting.
    public static func seconds(_ claim: ArticleClaim, parameters: Parameters, timeScale: Double) -> Double? {
        guard parameters.isArticleSetting else { return nil }
        return claim.seconds.map { $0 * timeScale }
    }

    /// How the settings line names the values a run used, saying which default stands in for
    /// the article's own value.
    public static func settingsNote(_ parameters: Parameters) -> String {
        guard parameters.isArticleSetting else { return "not the article's, so its figure is not shown" }
        let standIns = parameters.standIns.map { "\($0.key)=\($0.value) standing in for its \($0.article)" }
        return standIns.isEmpty ? "the article's" : "the article's, with " + standIns.joined(separator: ", ")
    }
}
