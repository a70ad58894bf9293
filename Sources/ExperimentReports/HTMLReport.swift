import ExperimentKit
import ExperimentResults
import Foundation

/// The report as one page to open in a browser: host line, summary table, the platform
/// explanations, then a section per experiment with its SVG timeline and the images it wrote.
///
/// Self-contained: the CSS, the timelines (SVG) and a few lines of script are inline, nothing
/// needs the network, the page reads the same with scripts off, and the only files it references
/// are the pictures in the report folder (`images/`). It is also well-formed XML (no `&` or `<`
/// in the style or the script), so a parser can check it.
package struct HTMLReport: Reporter, Sendable {
    /// The folder the page will be written to, against which the experiments' image paths are
    /// made relative.
    package var reportDirectory: URL
    /// Where those files are while the page is made (the folder being built, when it is not
    /// `reportDirectory` yet).
    package var filesIn: URL
    /// The `watch` round the page shows; nil for a report written once, whose page never changes.
    package var round: String?

    package init(reportDirectory: URL, filesIn: URL? = nil, round: String? = nil) {
        self.reportDirectory = reportDirectory
        self.filesIn = filesIn ?? reportDirectory
        self.round = round
    }

    /// The page: host line, summary table, the platform explanations, then the sections.
    package func document(_ run: RunReport) -> String {
        var html = [
            "<!DOCTYPE html>",
            #"<html lang="en">"#,
            "<head>",
            #"<meta charset="utf-8"/>"#,
            #"<meta name="viewport" content="width=device-width, initial-scale=1"/>"#,
            "<title>run-experiments report</title>",
            "<style>",
            Self.style,
            "</style>",
            "</head>",
            "<body>",
            "<h1>run-experiments report</h1>",
            #"<p class="host">\#(run.hostLine.markupEscaped)</p>"#,
        ]
        let summaryRows = run.results.map { result in
            ResultSummary.row(result).enumerated().map { column, cell in
                switch column {
                case 0: return ##"<a href="#\##(result.experiment.name.markupEscaped)">\##(cell.markupEscaped)</a>"##
                case ResultSummary.header.count - 1: return Self.verdictBadge(result.verdict, text: cell)
                default: return cell.markupEscaped
                }
            }
        }
        html.append(Self.table(header: ResultSummary.header, rows: summaryRows, rightAligned: [1, 3, 4]))
        let explanations = ResultSummary.explanations(run.results)
        if !explanations.isEmpty {
            html.append("<h2>Where this platform differs from the article's</h2>")
            html.append("<ul>" + explanations.map { "<li>\($0.markupEscaped)</li>" }.joined() + "</ul>")
        }
        html.append(contentsOf: run.sections.map(section))
        html.append("<script>")
        html.append(Self.script)
        html.append("</script>")
        if let round {
            html.append("<script>")
            html.append(Self.following(round))
            html.append("</script>")
        }
        html.append("</body>")
        html.append("</html>")
        return html.joined(separator: "\n") + "\n"
    }

    /// No selector uses `>` or `&`, so the style sheet stays well-formed XML without escaping.
    static let style = """
        body { font-family: system-ui, sans-serif; color: #1f2328; line-height: 1.45; max-width: 70rem; margin: 2rem auto; padding: 0 1rem; }
        h1 { margin-bottom: 0.25rem; }
        .host { color: #59636e; margin-top: 0; }
        table { border-collapse: collapse; margin: 0.75rem 0; }
        th, td { border-bottom: 1px solid #d0d7de; padding: 0.3rem 0.7rem; text-align: left; vertical-align: top; }
        th { background: #f6f8fa; }
        td.number { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
        section { border-top: 2px solid #d0d7de; margin-top: 2.5rem; }
        blockquote { margin: 0.75rem 0; padding: 0.25rem 1rem; border-left: 4px solid #d0d7de; color: #424a53; }
        blockquote p { margin: 0.25rem 0; }
        .source { font-size: 0.9em; color: #59636e; }
        .why { background: #fff8c5; padding: 0.5rem 0.75rem; border-radius: 6px; }
        .errata { background: #ddf4ff; padding: 0.5rem 0.75rem; border-radius: 6px; }
        ul.checks { list-style: none; padding-left: 0; }
        .passed { color: #1a7f37; }
        .note { color: #57606a; }
        .failed { color: #cf222e; }
        .verdict { font-weight: bold; padding: 0.1rem 0.55rem; border-radius: 1rem; color: #ffffff; white-space: nowrap; }
        .verdict.pass { background: #1a7f37; }
        .verdict.fail, .verdict.error { background: #cf222e; }
        .verdict.predicted { background: #0969da; }
        .verdict.unmodelled { background: #9a6700; }
        figure { margin: 1rem 0; }
        figcaption { font-size: 0.9em; color: #59636e; }
        img { max-width: 100%; height: auto; border: 1px solid #d0d7de; }
        code { font-size: 0.95em; }
        details.listing { margin: 0.5rem 0; }
        details.listing summary { cursor: pointer; color: #424a53; }
        table.listing { border-collapse: collapse; margin: 0.25rem 0; font-size: 0.85rem; width: 100%; }
        table.listing td { border: none; padding: 0 0.6rem; vertical-align: top; }
        table.listing td.number { color: #8c959f; text-align: right; user-select: none; width: 2.5rem; font-family: ui-monospace, monospace; }
        table.listing td.source { white-space: pre; }
        table.listing td.source code { font-family: ui-monospace, monospace; font-size: 1em; }
        table.listing td.results { color: #1a7f37; border-left: 2px solid #d0d7de; max-width: 26rem; overflow-wrap: anywhere; }
        table.listing td.results span { display: block; }
        tr.line.lit td, tr.line:focus td { background: #fff8c5; }
        tr.line[tabindex]:hover td { background: #fff8c5; cursor: default; }
        pre.printed a.site { color: #59636e; text-decoration: none; }
        pre.printed a.site.lit { background: #fff8c5; color: #1f2328; }
        figure.timeline svg { max-width: 100%; height: auto; }
        """

    /// Lights the bars and the printed lines' links of a code line while it is pointed at or
    /// focused. The page reads the same without it.
    /// The page of a `watch` round follows the rounds with no server: each second it loads the
    /// folder's `round.js` again (a file page may load a sibling script, never read a file), which
    /// calls `reportRound` with the round last written; another round than its own reloads the
    /// page, at the place the reader had scrolled to.
    static func following(_ round: String) -> String {
        """
        (function () {
          var shown = "\(round.markupEscaped)", place = "run-experiments-scroll";
          try {
            var y = sessionStorage.getItem(place);
            if (y !== null) { sessionStorage.removeItem(place); window.scrollTo(0, Number(y)); }
          } catch (e) {}
          window.reportRound = function (round) {
            if (round === shown) return;
            shown = round;
            try { sessionStorage.setItem(place, String(window.scrollY)); } catch (e) {}
            location.reload();
          };
          setInterval(function () {
            var load = document.createElement("script");
            load.src = "\(ReportLayout.roundFile)?" + Date.now();
            load.onload = load.onerror = function () { load.remove(); };
            document.head.appendChild(load);
          }, 1000);
        })();
        """
    }

    static let script = """
        document.addEventListener("DOMContentLoaded", function () {
          function light(event, on) {
            var line = event.target.closest("tr.line[data-site]");
            if (!line) return;
            var section = line.closest("section");
            section.querySelectorAll("[data-site]").forEach(function (element) {
              if (element.getAttribute("data-site") === line.getAttribute("data-site")) element.classList.toggle("lit", on);
            });
          }
          document.addEventListener("mouseover", function (event) { light(event, true); });
          document.addEventListener("mouseout", function (event) { light(event, false); });
          document.addEventListener("focusin", function (event) { light(event, true); });
          document.addEventListener("focusout", function (event) { light(event, false); });
        });
        """

    /// Everything the other formats show for one experiment, with its pictures: the SVG
    /// timeline instead of the text one, and the images it wrote instead of their paths.
    package func section(_ section: ExperimentSection) -> String {
        var html = [
            #"<section id="\#(section.name.markupEscaped)">"#,
            "<h2>\(section.name.markupEscaped) — \(section.title.markupEscaped)</h2>",
            "<blockquote>",
            "<p>\(section.article.quote.markupEscaped)</p>",
            #"<p class="source">— \#(section.source.citation.markupEscaped)</p>"#,
            "</blockquote>",
        ]
        html.append(
            contentsOf: section.corrections.map {
                #"<p class="errata"><strong>Errata:</strong> \#($0.sentence.markupEscaped)</p>"#
            })
        html += [
            section.summary.isEmpty ? "" : "<p>\(section.summary.markupEscaped)</p>",
            section.expectedOutcome.isEmpty
                ? "" : "<p><strong>Expected outcome:</strong> \(section.expectedOutcome.markupEscaped)</p>",
        ].filter { !$0.isEmpty }
        if let settings = section.settings {
            html.append("<p><strong>Settings:</strong> \(settings.line.markupEscaped)</p>")
        }
        html.append(code(section))
        if !section.printed.isEmpty {
            html.append("<h3>Printed</h3>")
            html.append(
                #"<pre class="printed">"# + section.printed.map { printed($0, in: section) }.joined(separator: "\n")
                    + "</pre>")
        }
        html.append(
            Self.table(
                header: section.comparison.header, rows: section.comparison.rows.map { $0.map(\.markupEscaped) },
                rightAligned: []))
        html.append(
            contentsOf: section.notes.map {
                #"<p class="why"><strong>\#($0.heading.markupEscaped):</strong> \#($0.text.markupEscaped)</p>"#
            })
        html.append(
            #"<figure class="timeline">"# + SVGTimeline(pageID: "timeline-\(section.name)").section(section)
                + "</figure>")

        // The images are shown below as pictures rather than listed as paths.
        let fields = section.outcome.filter { $0.key != OutcomeKey.images.name }
        if !fields.isEmpty {
            html.append("<h3>Outcome</h3>")
            html.append(
                "<ul>"
                    + fields.map {
                        "<li><strong>\($0.key.markupEscaped):</strong> \(OutcomeText.describe($0.value).markupEscaped)</li>"
                    }.joined() + "</ul>")
        }
        if !section.images.isEmpty {
            html.append("<h3>Images</h3>")
            html.append(contentsOf: section.images.map { image(at: $0) })
        }
        if !section.checks.isEmpty {
            html.append("<h3>Checks</h3>")
            html.append(
                #"<ul class="checks">"#
                    + section.checks.map {
                        #"<li class="\#($0.isNote ? "note" : $0.passed ? "passed" : "failed")">\#(ExperimentSection.mark($0)) \#($0.description.markupEscaped)</li>"#
                    }.joined() + "</ul>")
        }
        let reason = section.reason.map { " — " + $0.markupEscaped } ?? ""
        html.append(
            "<p><strong>Verdict:</strong> \(Self.verdictBadge(section.verdict, text: section.verdict.rawValue.uppercased()))\(reason)</p>"
        )
        html.append("</section>")
        return html.joined(separator: "\n")
    }

    /// The section's code, each line with what it did beside it; or why it cannot be shown.
    func code(_ section: ExperimentSection) -> String {
        if let missing = section.code.missing {
            return #"<p class="code-missing">\#(missing.markupEscaped)</p>"#
        }
        let blocks = section.code.blocks.enumerated().map { index, block in
            let rows = block.lines.map { line in
                let id = Self.lineID(line.site, in: section.name).markupEscaped,
                    site = line.site.description.markupEscaped
                let focus = line.results.isEmpty ? "" : #" tabindex="0""#
                let results = line.results.map { "<span>\($0.markupEscaped)</span>" }.joined()
                return
                    #"<tr class="line" id="\#(id)" data-site="\#(site)"\#(focus)><td class="number">\#(line.number)</td><td class="source"><code>\#(line.text.markupEscaped)</code></td><td class="results">\#(results)</td></tr>"#
            }
            let open = index == 0 || !block.isFolded ? " open=\"open\"" : ""
            return
                ([
                    "<details class=\"listing\"\(open)>",
                    "<summary><strong>\(block.title.markupEscaped)</strong> — \(block.place.markupEscaped)</summary>",
                    #"<table class="listing">"#,
                ] + rows + ["</table>", "</details>"]).joined(separator: "\n")
        }
        return (["<h3>Code</h3>", #"<div class="code">"#] + blocks + ["</div>"]).joined(separator: "\n")
    }

    /// A printed line, linked to the line of code that printed it when that line is shown.
    func printed(_ line: PrintedLine, in section: ExperimentSection) -> String {
        let text = TextRenderer.printed(line).markupEscaped
        guard let site = line.line, section.code.blocks.contains(where: { $0.covers(site) }) else { return text }
        let id = Self.lineID(site, in: section.name).markupEscaped
        return text
            + ##"  <a class="site" href="#\##(id)" data-site="\##(site.description.markupEscaped)">\##(site.named.markupEscaped)</a>"##
    }

    /// The id of a code line's row: the section's name and the line, `serial-queue:000-OperationAndOperationQueue/SerialQueue.swift:8`.
    static func lineID(_ site: SourceLine, in section: String) -> String {
        "\(section):\(site)"
    }

    /// An image the experiment wrote, shown when it lies in the report folder; otherwise its
    /// path as text, so the page never points outside its folder or at a missing file.
    func image(at path: String) -> String {
        guard let relative = Self.relativePath(of: path, in: reportDirectory),
            AtomicFile.kind(of: filesIn.appendingPathComponent(relative).path) == .file
        else {
            return "<p><code>\(path.markupEscaped)</code> (not in the report folder)</p>"
        }
        return
            #"<figure><img src="\#(relative.urlPathEncoded.markupEscaped)" alt="\#(relative.markupEscaped)"/><figcaption>\#(relative.markupEscaped)</figcaption></figure>"#
    }

    /// `path` relative to `directory` when it lies inside it. Relative paths are taken from the
    /// current directory, as the experiments wrote them. The paths are compared as written
    /// (the report folder may not exist yet), then with links resolved on both sides so `/tmp`
    /// and `/private/tmp` agree.
    static func relativePath(of path: String, in directory: URL) -> String? {
        let written = URL(fileURLWithPath: path).standardizedFileURL.path
        let folder = directory.standardizedFileURL.path + "/"
        if written.hasPrefix(folder) { return String(written.dropFirst(folder.count)) }
        let base = directory.standardizedFileURL.resolvingSymlinksInPath().path
        let file = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath().path
        guard file.hasPrefix(base + "/") else { return nil }
        return String(file.dropFirst(base.count + 1))
    }

    static func verdictBadge(_ verdict: Verdict, text: String) -> String {
        #"<span class="verdict \#(verdict.rawValue)">\#(text.markupEscaped)</span>"#
    }

    /// A table of cells already in HTML; numbers in `rightAligned` columns line up on the right.
    static func table(header: [String], rows: [[String]], rightAligned: Set<Int>) -> String {
        let head = "<tr>" + header.map { "<th>\($0.markupEscaped)</th>" }.joined() + "</tr>"
        let body = rows.map { cells in
            "<tr>"
                + cells.enumerated().map { column, cell in
                    rightAligned.contains(column) ? #"<td class="number">\#(cell)</td>"# : "<td>\(cell)</td>"
                }.joined() + "</tr>"
        }
        return (["<table>", "<thead>" + head + "</thead>", "<tbody>"] + body + ["</tbody>", "</table>"]).joined(
            separator: "\n")
    }
}

extension String {
    /// The path with the characters a URL path may not hold percent-encoded (spaces, `#`, `?`).
    var urlPathEncoded: String {
        addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? self
    }
}
