import Foundation
import TestSupport
import Testing

extension TimedRuns.WatchEndToEnd {
    /// What the page of the learner's experiment shows, read in the page: its address, whether
    /// it has loaded, the printed lines and what the code line `site` (`MyQueue.swift:16`) did, the
    /// reader's place and how far it can scroll, and whether it still holds the test's mark
    /// (a page that reloaded holds none).
    static func pageState(site: String) -> String {
        """
        (function () {
          // Read while the page may still be loading: any part of it may not be there yet.
          var row = document.querySelector('tr.line[data-site$="/\(site)"]'), results = row && row.querySelector("td.results"), root = document.documentElement;
          return {
            url: location.href,
            complete: document.readyState === "complete",
            printed: Array.prototype.map.call(document.querySelectorAll("pre.printed"), function (pre) { return pre.textContent; }).join("\\n"),
            results: results ? results.textContent : "",
            place: window.scrollY,
            room: root ? root.scrollHeight - window.innerHeight : 0,
            marked: window.markedByTheTest === true
          };
        })()
        """
    }

    /// The page open in a browser, as a learner keeps it open beside the editor: `watch` writes
    /// a round, and the page shows the saved line's result by itself, at the reader's place.
    /// The test only reads the page; it never reloads or navigates it.
    @Test(
        .timeLimit(.minutes(30)),
        .enabled(
            if: HeadlessChromium.executable != nil,
            "Chromium is not installed (apt-get install chromium, or CHROMIUM=/path/to/chrome): the open page is not checked in a browser"
        )
    )
    func theOpenPageShowsTheSavedLinesResultByItself() throws {
        let lock = try EndToEnd.lockTheCopy(Self.copy)
        defer { close(lock) }
        let (copy, file, starter) = try Self.learnersExperiment()
        let (edited, added) = try Self.addingAClosure(to: starter)
        let state = Self.pageState(site: "MyQueue.swift:\(added)")

        let watching = try Watching(["watch", "my-queue", "--time-scale", EndToEnd.scale.decimalText], in: copy)
        defer {
            kill(watching.process.processIdentifier, SIGINT)
            let interrupted = Date()
            while watching.process.isRunning, Date().timeIntervalSince(interrupted) < 10 { usleep(20_000) }
        }
        let first = watching.rounds(1)
        try #require(first.contains("──── round 1 ") && first.contains("Verdict"), "\(first)")

        let page = copy.appendingPathComponent("Reports/latest/index.html")
        let browser = try HeadlessChromium(opening: page)
        let loaded: ([String: Any]) -> Bool = {
            $0["url"] as? String == page.absoluteString && $0["complete"] as? Bool == true
        }
        let before = try browser.value(of: state, within: 30, until: loaded)
        try #require(loaded(before), "the first round's page did not load: \(before); \(browser.output)")
        #expect((before["printed"] as? String)?.contains("Охотник 🍊") == true, "\(before)")
        #expect((before["results"] as? String)?.contains("Знать 4") == false, "\(before)")
        // The reader scrolls down the page: a place the page can reach (it is taller than the window).
        let room = try #require(before["room"] as? Double)
        try #require(room >= 100, "the page is no taller than the window: no place to keep")
        let place = min(room, 300).rounded(.down)
        _ = try browser.evaluate("window.scrollTo(0, \(place)); window.markedByTheTest = true")

        try edited.write(to: file, atomically: true, encoding: .utf8)
        let second = watching.rounds(2)
        try #require(
            second.contains("──── round 2: MyQueue.swift saved")
                && second.components(separatedBy: "──── round 2").last?.contains("Verdict") == true, "\(second)")
        let landed = Date()
        let after = try browser.value(of: state, within: 30) {
            ($0["results"] as? String)?.contains("Знать 4") == true && loaded($0)
        }
        let followed = Date().timeIntervalSince(landed)
        try #require(
            (after["results"] as? String)?.contains("Знать 4") == true,
            "the open page never showed the saved line's result: \(after); \(browser.output)")
        // The page loads round.js each second and reloads when it names another round: about
        // a second after the round lands; 5 s leaves a busy machine room to schedule the browser.
        #expect(followed < 5, "the page followed \(followed) s after the round landed")
        // The line's result, with its prediction, and its printed line among the others.
        #expect((after["results"] as? String)?.contains("predicted") == true, "\(after)")
        #expect((after["printed"] as? String)?.contains("Знать 4") == true, "\(after)")
        // The page itself reloaded (the test's mark is gone), and kept the reader's place.
        #expect(after["marked"] as? Bool == false)
        #expect(after["place"] as? Double == place, "\(after)")
    }
}
