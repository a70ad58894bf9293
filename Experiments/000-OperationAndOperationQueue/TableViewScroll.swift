import ExperimentKit
import Foundation
import Synchronization

/// Pattern 3 without UIKit: table cells that appear and disappear along a scripted scroll, each
/// with its ImageProvider (article 000, "Pattern 3", the table-view app). The plan is read from
/// the providers the delegate methods create and cancel, at the script's instants.
let tableViewScroll = Experiment(
    "table-view-scroll", article: "000_d66eefb2b922d5e0.txt",
    section:
        "Pattern 3. We work with TableViewController and CollectionViewController (the table-view app with ImageProvider)"
) { context in
    let table = ScriptedTable(context: context)
    for second in 0...TableScroll.scrolls {
        context.sleep(untilArticleSeconds: Double(second))
        for cell in TableScroll.cells.indices where TableScroll.leaves(cell) == Double(second) {
            table.tableView(didEndDisplaying: cell)
        }
        for cell in TableScroll.cells.indices where TableScroll.appears(cell) == Double(second) {
            table.tableView(willDisplay: cell)
        }
    }
    table.waitForProviders()
    table.recordOutcome()
}
.title("Pattern 3: ImageProviders following a scrolling table")
.summary(
    "Eight cells (Eiffel Tower, Venice, Scottish castle, Arctic-02, Eiffel Tower, Arctic-16, Arctic-15, arctic-12), three on screen at a time; the scripted scroll moves down one cell a second, five times. When a cell will display, the app's simplified ImageProvider is created for it, and its three operations (load → filter → output, on a queue that is not suspended) start as it is created; when the cell ends displaying, its provider is cancelled. There is no UIKit here: the table is the script, and the downloads are simulated timers."
)
.claim(
    "It will be located in the tableView( _ : willDisplay:forRowAt:) delegate method that prepares the cell to become visible. Another tableView( _ : didEndDisplaying:forRowAt:) delegate method will be used to destroy any request to load an image, which it will not have completed by the time the cell leaves the screen.",
    seconds: nil
)
.expectedOutcome(
    "Cells that leave before their picture arrives (the first Eiffel Tower, Venice) are cancelled and get nothing; every other cell gets its picture; no picture reaches a cell that has left."
)
.platformDifference(
    "Downloads that hold no thread and a few milliseconds of filtering behave the same on every platform."
)
.checks { measurement, prediction in
    // The cells the model lets a picture reach: those whose output operation does its work.
    let expected = Set(
        prediction.branches.map { branch in
            TableScroll.cells.indices.filter { cell in
                branch.spans.contains {
                    $0?.label == SimpleImageProvider.labels(TableScroll.title(cell))[2] && $0?.ranWork == true
                }
            }
        })
    let delivered = measurement.outcome["cells given their picture"].flatMap(ArraySumCancellation.intArray) ?? []
    return [
        Check(
            "pictures reached cells \(delivered.map(String.init).joined(separator: ", ")), as predicted",
            passed: expected.contains(delivered.sorted())),
        // cancel() stops what has not started; an output already under way when its cell
        // leaves may still deliver (the article's main-queue hand-off has the same window), so
        // the check is on starts: no output may begin after its cell's didEndDisplaying.
        Check(
            "no cell's output started after the cell had left",
            passed: TableScroll.cells.indices.allSatisfy { cell in
                guard
                    let left = measurement.output.first(where: { $0.text.hasPrefix("didEndDisplaying cell \(cell):") })?
                        .at,
                    let output = measurement.span(SimpleImageProvider.labels(TableScroll.title(cell))[2])
                else { return true }
                return output.start <= left
            }),
    ]
}
.namingOutcomes(
    OutcomeNaming(
        // What a reader sees of a race: which cells got their picture.
        predicted: { branch, _ in
            TableScroll.picturesFor(
                TableScroll.cells.indices.filter { cell in
                    branch.spans.contains {
                        $0?.label == SimpleImageProvider.labels(TableScroll.title(cell))[2] && $0?.ranWork == true
                    }
                })
        },
        measured: {
            $0.outcome["cells given their picture"].flatMap(ArraySumCancellation.intArray).map(TableScroll.picturesFor)
        }
    ))

/// The scripted scroll: three cells on screen, moving down one cell each second.
enum TableScroll {
    static let cells = [
        "Eiffel Tower", "Venice", "Scottish castle", "Arctic-02", "Eiffel Tower", "Arctic-16", "Arctic-15", "arctic-12",
    ]
    static let visibleRows = 3
    static let scrolls = 5

    /// `pictures for cells 2, 3, 5`: an outcome of the scroll.
    static func picturesFor(_ cells: [Int]) -> String {
        cells.isEmpty ? "no picture" : "pictures for cells " + cells.sorted().map(String.init).joined(separator: ", ")
    }

    static func title(_ cell: Int) -> String {
        "cell \(cell) \(cells[cell])"
    }

    static func latency(_ cell: Int) -> Double {
        SimulatedDownloads.latency(cells[cell])
    }

    /// When the cell will display: the first three at once, then one per scroll.
    static func appears(_ cell: Int) -> Double {
        Double(max(0, cell - visibleRows + 1))
    }

    /// When the cell ends displaying; nil for the cells still on screen when the scroll stops.
    static func leaves(_ cell: Int) -> Double? {
        cell < scrolls ? Double(cell + 1) : nil
    }
}

/// The table's side of Pattern 3: a provider per displayed cell, started and cancelled with
/// the cell, and a record of where each picture went.
final class ScriptedTable: Sendable {
    private struct Cell {
        var onScreen = false
        var gotPicture = false
        var provider: SimpleImageProvider?
    }

    private let context: RunContext
    private let cells = Mutex([Cell](repeating: Cell(), count: TableScroll.cells.count))
    private let lateDeliveries = Mutex(0)

    init(context: RunContext) {
        self.context = context
    }

    /// `tableView(_:willDisplay:forRowAt:)`: the cell's ImageProvider, made now, starts loading,
    /// filtering and handing on its picture as it is created, and is kept so it can be cancelled.
    func tableView(willDisplay cell: Int) {
        print("willDisplay cell \(cell) (\(TableScroll.cells[cell]))")
        let imageProvider = SimpleImageProvider(
            imageName: TableScroll.cells[cell], title: TableScroll.title(cell), latency: TableScroll.latency(cell),
            context: context
        ) { [self] _ in
            let onScreen = cells.withLock { cells in
                if cells[cell].onScreen { cells[cell].gotPicture = true }
                return cells[cell].onScreen
            }
            if !onScreen { lateDeliveries.withLock { $0 += 1 } }
            print("cell \(cell) shows \(TableScroll.cells[cell])")
        }
        cells.withLock {
            $0[cell].onScreen = true
            $0[cell].provider = imageProvider
        }
    }

    /// `tableView(_:didEndDisplaying:forRowAt:)`: the cell's provider is cancelled.
    func tableView(didEndDisplaying cell: Int) {
        print("didEndDisplaying cell \(cell): cancel its provider")
        let imageProvider = cells.withLock { cells in
            cells[cell].onScreen = false
            return cells[cell].provider
        }
        imageProvider?.cancel()
    }

    /// The app never waits (its main thread cannot block); the script waits for every provider's
    /// queue, so the experiment ends when the last picture has gone where it goes.
    func waitForProviders() {
        cells.withLock { $0.compactMap(\.provider) }.forEach { $0.queue.waitUntilAllOperationsAreFinished() }
    }

    func recordOutcome() {
        let final = cells.withLock { $0 }
        let given = final.indices.filter { final[$0].gotPicture }
        context.record("cells given their picture", .array(given.map { .number(Double($0)) }))
        context.record(
            "cells cancelled without a picture",
            .array(final.indices.filter { !final[$0].gotPicture }.map { .number(Double($0)) }))
        context.record("pictures that reached a cell that had left", .number(Double(lateDeliveries.withLock { $0 })))
    }
}
