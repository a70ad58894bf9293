import ExperimentKit
import Foundation

/// An experiment's timeline as a standalone SVG picture: a row per operation with its label and
/// thread, bars from start to end on an axis in seconds, and vertical lines at the expected end
/// and at the article's figure.
///
/// The measured timeline when the experiment ran; the model's nominal timeline, titled
/// "predicted", when nothing was measured. Below it, on the same axis, a timed experiment gets
/// the Apple model's timeline: the article's picture beside this platform's. Plain SVG with no
/// scripts and only generic font families, so it reads the same opened directly, in an `<img>`,
/// or on a code-hosting site.
package struct SVGTimeline: Reporter, Sendable {
    /// The `id` of the picture when it is drawn inside a page beside others: its style rules
    /// and pattern ids are scoped to it. nil for a picture of its own file.
    package var pageID: String?

    package init(pageID: String? = nil) {
        self.pageID = pageID
    }

    /// The picture of a section's timelines, with the article's figure and the expected end.
    package func section(_ section: ExperimentSection) -> String {
        let frame = Frame(section)
        let svg =
            header(section, frame)
            + rows(frame)
            + axis(frame)
            + markers(frame)
            + legend(frame)
            + [note(section, frame), "</svg>"]
        return svg.joined(separator: "\n") + "\n"
    }

    /// Where everything goes: the columns, the rows under their headings, the axis, the
    /// markers and the legend, measured from the section once.
    struct Frame {
        let groups: [Group]
        let lines: [Line]
        let markers: [Marker]
        let axis: Axis
        let labelColumns: Int
        let threadX: Double
        let plotLeft: Double
        let width: Double
        let rowsTop: Double
        let rowsBottom: Double
        let legendLines: [[LegendItem]]
        let noteY: Double
        /// With two groups, each starts with a line naming it.
        var headed: Bool { groups.count > 1 }
        /// Whether a bar, or a stretch of one, holds no thread: a timer, a suspended task.
        var drawsWaiting: Bool { GanttChart.drawsWaiting(groups.flatMap(\.rows)) }
        var height: Double { noteY + Layout.margin }

        init(_ section: ExperimentSection) {
            groups = SVGTimeline.groups(section)
            markers = SVGTimeline.markers(section)
            axis = Axis(span: max(section.chartSpan, section.article.seconds ?? 0))
            labelColumns = min(
                GanttChart.labelColumns, groups.flatMap(\.rows).map { TextWidth.columns($0.label) }.max() ?? 0)
            threadX = Layout.margin + Double(labelColumns) * Layout.characterWidth + 12
            plotLeft = threadX + 5 * Layout.characterWidth + 8
            width = plotLeft + Layout.plotWidth + 40
            rowsTop = 52 + Double(markers.count) * Layout.markerLineHeight + 6
            let headed = groups.count > 1
            lines = groups.flatMap { group in
                (headed ? [Line.heading(group.heading)] : [])
                    + group.rows.map { Line.row($0, predicted: group.predicted) }
            }
            rowsBottom = rowsTop + Double(lines.count) * Layout.rowHeight
            legendLines = SVGTimeline.layOut(
                SVGTimeline.legendItems(groups: groups, markers: markers), from: Layout.margin,
                to: width - Layout.margin)
            noteY = rowsBottom + 40 + Double(legendLines.count) * 20
        }

        /// The x of an instant, clamped to the axis.
        func x(_ seconds: Double) -> Double {
            plotLeft + min(max(seconds, 0), axis.end) / axis.end * Layout.plotWidth
        }

        /// The vertical middle of the `index`-th line.
        func middle(_ index: Int) -> Double {
            rowsTop + (Double(index) + 0.5) * Layout.rowHeight
        }
    }

    /// The opening tag, the style (scoped to ``pageID`` inside a page), the patterns, and the
    /// title lines.
    func header(_ section: ExperimentSection, _ frame: Frame) -> [String] {
        let title =
            section.measured != nil
            ? "\(section.name) — measured timeline"
            : "\(section.name) — predicted timeline (\(section.profile.rawValue) model; nothing was measured)"
        let scope = pageID.map { "#\($0) " } ?? "", prefix = pageID.map { "\($0)-" } ?? ""
        let hatch = prefix + "hatch", fade = prefix + "fade"
        let rules = [
            ".title { font-family: sans-serif; font-size: 15px; font-weight: bold; fill: #1f2328; }",
            ".subtitle, .thread, .tick, .note { fill: #59636e; }",
            ".label { fill: #1f2328; }",
            ".group { font-family: sans-serif; font-weight: bold; fill: #1f2328; }",
            ".ran { fill: #4c78a8; }",
            ".cancelled { fill: url(#\(hatch)); stroke: #c9691c; }",
            ".unfinished { fill: url(#\(fade)); stroke: #4c78a8; stroke-dasharray: 4 2; }",
            ".expected { stroke: #1a7f37; fill: #1a7f37; stroke-width: 1.5; stroke-dasharray: 6 3; }",
            ".article { stroke: #8250df; fill: #8250df; stroke-width: 1.5; stroke-dasharray: 2 3; }",
            "text.expected, text.article { stroke: none; }",
            ".grid { stroke: #e1e4e8; }",
            ".axis { stroke: #59636e; }",
            // A bar whose line of code the reader points at.
            ".lit { stroke: #bf8700; stroke-width: 3; }",
        ]
        // A stretch that holds no thread: an outline with nothing in it.
        let waiting = frame.drawsWaiting ? [".waiting { fill: #eef2f7; stroke: #4c78a8; stroke-dasharray: 2 2; }"] : []
        let style = (rules + waiting).map {
            scope
                + $0.replacingOccurrences(of: ", .", with: ", \(scope).").replacingOccurrences(
                    of: ", text.", with: ", \(scope)text.")
        }
        return [
            #"<svg xmlns="http://www.w3.org/2000/svg"\#(pageID.map { #" id="\#($0.markupEscaped)""# } ?? "") width="\#(number(frame.width))" height="\#(number(frame.height))" viewBox="0 0 \#(number(frame.width)) \#(number(frame.height))" font-family="monospace" font-size="12">"#,
            "<title>\(title.markupEscaped)</title>",
            "<style>",
        ] + style + [
            "</style>",
            "<defs>",
            // Hatching tells cancelled work apart without relying on colour alone.
            ##"<pattern id="\##(hatch.markupEscaped)" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="6" height="6" fill="#fbe3cf"/><line x1="0" y1="0" x2="0" y2="6" stroke="#c9691c" stroke-width="2.5"/></pattern>"##,
            // A bar that fades out reads as work that had not ended.
            ##"<linearGradient id="\##(fade.markupEscaped)"><stop offset="0" stop-color="#4c78a8"/><stop offset="1" stop-color="#4c78a8" stop-opacity="0.1"/></linearGradient>"##,
            "</defs>",
            ##"<rect width="100%" height="100%" fill="#ffffff"/>"##,
            #"<text class="title" x="\#(number(Layout.margin))" y="24">\#(title.markupEscaped)</text>"#,
            #"<text class="subtitle" x="\#(number(Layout.margin))" y="42">\#(section.title.markupEscaped)</text>"#,
        ]
    }

    /// The shading, the grid, then each line: a group's heading, or an operation's label,
    /// thread and bar.
    func rows(_ frame: Frame) -> [String] {
        // Every other line shaded, so the eye follows a label to its bar.
        var svg = frame.lines.indices.filter { $0 % 2 == 1 }.map { index in
            ##"<rect x="\##(number(Layout.margin / 2))" y="\##(number(frame.rowsTop + Double(index) * Layout.rowHeight))" width="\##(number(frame.width - Layout.margin))" height="\##(number(Layout.rowHeight))" fill="#f6f8fa"/>"##
        }
        svg += frame.axis.ticks.map { tick in
            #"<line class="grid" x1="\#(number(frame.x(tick)))" y1="\#(number(frame.rowsTop))" x2="\#(number(frame.x(tick)))" y2="\#(number(frame.rowsBottom))"/>"#
        }
        for (index, line) in frame.lines.enumerated() {
            let middle = frame.middle(index)
            switch line {
            case .heading(let heading):
                // A band of its own, over the grid, so the heading reads as a divider.
                svg.append(
                    ##"<rect x="\##(number(Layout.margin / 2))" y="\##(number(middle - Layout.rowHeight / 2))" width="\##(number(frame.width - Layout.margin))" height="\##(number(Layout.rowHeight))" fill="#eaeef2"/>"##
                )
                svg.append(
                    #"<text class="group" x="\#(number(Layout.margin))" y="\#(number(middle + 4))">\#(heading.markupEscaped)</text>"#
                )
            case .row(let row, let predicted):
                svg += bar(row, predicted: predicted, middle: middle, frame)
            }
        }
        return svg
    }

    /// One operation's label, thread and bar, whose tooltip says when it ran and the line of
    /// code that added or started it, or whose operation's it is (which a page lights it from);
    /// a timer's bar and the stretches an operation was suspended are drawn as held by no thread.
    func bar(_ row: GanttChart.Row, predicted: Bool, middle: Double, _ frame: Frame) -> [String] {
        let kind = !row.holdsThread ? "waiting" : !row.finished ? "unfinished" : row.cancelled ? "cancelled" : "ran"
        let thread = GanttChart.lane(row)
        let interval =
            row.end.isFinite
            ? "\(Format.seconds(row.start, digits: 3)) to \(Format.seconds(row.end, digits: 3))"
            : "from \(Format.seconds(row.start, digits: 3))"
        let status =
            !row.finished
            ? (predicted ? ", never finishes" : ", still running when stopped") : row.cancelled ? ", cancelled" : ""
        let waited = row.holdsThread ? "" : ", holding no thread"
        let site = row.line.map { #" data-site="\#($0.description.markupEscaped)""# } ?? ""
        let added = row.line.map { ", code at \($0.named)" } ?? ""
        let left = frame.x(row.start), right = frame.x(row.end)
        let top = number(middle - Layout.barHeight / 2), height = number(Layout.barHeight)
        let suspensions = (row.suspensions ?? []).map { stretch in
            let from = frame.x(stretch.lowerBound), to = frame.x(stretch.upperBound)
            return
                #"<rect class="waiting" x="\#(number(from))" y="\#(top)" width="\#(number(max(1, to - from)))" height="\#(height)"><title>\#("\(row.label): suspended, holding no thread, \(Format.seconds(stretch.lowerBound, digits: 3)) to \(Format.seconds(stretch.upperBound, digits: 3))".markupEscaped)</title></rect>"#
        }
        return [
            #"<text class="label" x="\#(number(Layout.margin))" y="\#(number(middle + 4))">\#(TextWidth.truncate(row.label, to: frame.labelColumns).markupEscaped)</text>"#,
            #"<text class="thread" x="\#(number(frame.threadX))" y="\#(number(middle + 4))">\#(thread)</text>"#,
            // Instant work (a completion block) still gets a sliver, so every row shows a bar.
            #"<rect class="\#(kind)"\#(site) x="\#(number(left))" y="\#(top)" width="\#(number(max(2, right - left)))" height="\#(height)" rx="2"><title>\#("\(row.label), \(thread): \(interval)\(status)\(waited)\(added)".markupEscaped)</title></rect>"#,
        ] + suspensions
    }

    /// The time axis under the rows, with its ticks and their seconds.
    func axis(_ frame: Frame) -> [String] {
        [
            #"<line class="axis" x1="\#(number(frame.plotLeft))" y1="\#(number(frame.rowsBottom))" x2="\#(number(frame.plotLeft + Layout.plotWidth))" y2="\#(number(frame.rowsBottom))"/>"#
        ]
            + frame.axis.ticks.flatMap { tick in
                [
                    #"<line class="axis" x1="\#(number(frame.x(tick)))" y1="\#(number(frame.rowsBottom))" x2="\#(number(frame.x(tick)))" y2="\#(number(frame.rowsBottom + 4))"/>"#,
                    #"<text class="tick" x="\#(number(frame.x(tick)))" y="\#(number(frame.rowsBottom + 17))" text-anchor="middle">\#(tick.decimalText) s</text>"#,
                ]
            }
    }

    /// Each marker's line, its label on a line of its own above the rows, so close lines never
    /// print their labels over each other; a label sits right of its line unless that would
    /// leave the picture.
    func markers(_ frame: Frame) -> [String] {
        frame.markers.enumerated().flatMap { index, marker in
            let labelY = 52 + Double(index + 1) * Layout.markerLineHeight - 3
            let lineX = frame.x(marker.seconds)
            let fits = lineX + 4 + Double(TextWidth.columns(marker.label)) * Layout.characterWidth <= frame.width - 4
            let anchor = fits ? #"x="\#(number(lineX + 4))""# : #"x="\#(number(lineX - 4))" text-anchor="end""#
            return [
                #"<line class="\#(marker.kind)" x1="\#(number(lineX))" y1="\#(number(labelY - 10))" x2="\#(number(lineX))" y2="\#(number(frame.rowsBottom))"/>"#,
                #"<text class="\#(marker.kind)" \#(anchor) y="\#(number(labelY))">\#(marker.label.markupEscaped)</text>"#,
            ]
        }
    }

    /// A swatch and its words for each kind of bar and marker drawn.
    func legend(_ frame: Frame) -> [String] {
        frame.legendLines.enumerated().flatMap { line, items in
            let middle = frame.rowsBottom + 36 + Double(line) * 20
            return items.flatMap { item in
                let swatch =
                    item.kind == "expected" || item.kind == "article"
                    ? #"<line class="\#(item.kind)" x1="\#(number(item.x + 9))" y1="\#(number(middle - 7))" x2="\#(number(item.x + 9))" y2="\#(number(middle + 7))"/>"#
                    : #"<rect class="\#(item.kind)" x="\#(number(item.x))" y="\#(number(middle - 5))" width="18" height="10" rx="2"/>"#
                return [
                    swatch,
                    #"<text class="note" x="\#(number(item.x + 24))" y="\#(number(middle + 4))">\#(item.text.markupEscaped)</text>"#,
                ]
            }
        }
    }

    /// What the thread names mean.
    func note(_ section: ExperimentSection, _ frame: Frame) -> String {
        let threads =
            section.measured == nil
            ? "t1, t2, … = the model's pool workers"
            : frame.headed
                ? "t1, t2, … = other threads, or the model's pool workers where predicted" : "t1, t2, … = other threads"
        let timers =
            GanttChart.drawsTimers(frame.groups.flatMap(\.rows)) ? "; timer = \(GanttChart.timerLaneMeaning)" : ""
        return
            #"<text class="note" x="\#(number(Layout.margin))" y="\#(number(frame.noteY))">\#("main = the experiment's own thread; \(threads)\(timers)".markupEscaped)</text>"#
    }

    /// Sizes in pixels. Text widths are estimated from terminal columns: a monospace character
    /// is about 0.6 em wide, and emoji take two columns.
    private enum Layout {
        static let margin = 16.0
        static let characterWidth = 7.4
        static let plotWidth = 600.0
        static let rowHeight = 22.0
        static let barHeight = 14.0
        static let markerLineHeight = 16.0
    }

    /// The time axis: a round step giving at most eight intervals, ending on a tick.
    struct Axis {
        var step: Double
        var end: Double

        init(span: Double) {
            let steps = [0.01, 0.02, 0.05, 0.1, 0.2, 0.25, 0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300]
            let span = max(span, steps[0])
            step = steps.first { span / $0 <= 8 } ?? (span / 8).rounded(.up)
            end = (span / step - 1e-9).rounded(.up) * step
        }

        /// Tick positions, multiplied out rather than summed so `0.1 × 3` reads `0.3`.
        var ticks: [Double] {
            (0...Int((end / step).rounded())).map { Double($0) * step }
        }
    }

    /// A vertical line across the rows.
    struct Marker {
        var label: String
        var seconds: Double
        /// The CSS class, which is also the legend's swatch.
        var kind: String
    }

    /// One line of the plot: a group's heading or an operation's bar.
    enum Line {
        case heading(String)
        case row(GanttChart.Row, predicted: Bool)
    }

    /// Rows under a heading.
    struct Group {
        var heading: String
        var rows: [GanttChart.Row]
        var predicted: Bool
    }

    /// The section's timelines, each under its heading: the measured spans (or the model's
    /// nominal ones when nothing ran), the model's beside a run off the article's values, and
    /// the Apple model's for a timed experiment.
    static func groups(_ section: ExperimentSection) -> [Group] {
        section.timelines.map { timeline in
            Group(
                heading: timeline.predicted ? timeline.title : "measured on this machine", rows: timeline.rows,
                predicted: timeline.predicted)
        }
    }

    /// The article's figure (when it states one) above the expected end, as the comparison table orders them.
    static func markers(_ section: ExperimentSection) -> [Marker] {
        let article = section.article.seconds.map {
            Marker(label: "article \(Format.seconds($0))", seconds: $0, kind: "article")
        }
        let expected = Marker(
            label: "expected end \(Format.seconds(section.expectedSeconds))", seconds: section.expectedSeconds,
            kind: "expected")
        return (article.map { [$0] } ?? []) + [expected]
    }

    /// One swatch and its words in the legend.
    struct LegendItem {
        var kind: String
        var text: String
        var x = 0.0
    }

    /// A swatch for each kind of bar drawn; an unfinished bar reads "still running when stopped"
    /// where measured and "never finishes" where predicted.
    static func legendItems(groups: [Group], markers: [Marker]) -> [LegendItem] {
        var items = [LegendItem(kind: "ran", text: "ran"), LegendItem(kind: "cancelled", text: "ran cancelled")]
        if GanttChart.drawsWaiting(groups.flatMap(\.rows)) {
            items.append(LegendItem(kind: "waiting", text: GanttChart.noThreadMeaning))
        }
        var unfinished: [String] = []
        for group in groups where group.rows.contains(where: { !$0.finished }) {
            let text = group.predicted ? "never finishes" : "still running when stopped"
            if !unfinished.contains(text) { unfinished.append(text) }
        }
        if !unfinished.isEmpty {
            items.append(LegendItem(kind: "unfinished", text: unfinished.joined(separator: ", or ")))
        }
        for marker in markers {
            items.append(
                LegendItem(kind: marker.kind, text: marker.kind == "article" ? "the article's figure" : "expected end"))
        }
        return items
    }

    /// Places the items left to right, starting a new line where the next would not fit.
    static func layOut(_ items: [LegendItem], from left: Double, to right: Double) -> [[LegendItem]] {
        var lines: [[LegendItem]] = [[]]
        var x = left
        for var item in items {
            let width = 24 + Double(TextWidth.columns(item.text)) * Layout.characterWidth + 18
            if x + width > right, !lines[lines.count - 1].isEmpty {
                lines.append([])
                x = left
            }
            item.x = x
            lines[lines.count - 1].append(item)
            x += width
        }
        return lines
    }

    /// A coordinate to a tenth of a pixel, as short as it reads: `16`, `283.5`.
    func number(_ value: Double) -> String {
        ((value * 10).rounded() / 10).decimalText
    }
}

extension String {
    /// The text safe inside an XML or HTML element or a quoted attribute. Characters XML 1.0
    /// forbids (control characters other than tab and newlines) become U+FFFD, so a label can
    /// never make a document unreadable.
    var markupEscaped: String {
        replacingScalars(Self.markupEntities) { scalar in
            let forbidden =
                (scalar.value < 0x20 && !["\t", "\n", "\r"].contains(scalar)) || scalar.value == 0xFFFE
                || scalar.value == 0xFFFF
            return forbidden ? "\u{FFFD}" : nil
        }
    }

    /// The characters markup gives a meaning to, as entities.
    private static let markupEntities: [Unicode.Scalar: String] = [
        "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;",
    ]
}
