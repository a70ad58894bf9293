import ExperimentRunner
import Foundation

/// A page open in headless Chromium, read the way a developer's console reads it: over the
/// DevTools protocol on a pipe (`--remote-debugging-pipe`: JSON messages, each ended by a zero
/// byte, read by the browser from its descriptor 3 and written to its descriptor 4), with
/// nothing but the C library and Foundation. The browser and everything it starts (its
/// renderers, its zygote) are one lineage of a ``SpawnedProcess``, ended with it.
final class HeadlessChromium {
    /// The browser to drive: `CHROMIUM` when set, else the first one installed; nil when none is.
    static let executable: String? = {
        let named = ProcessInfo.processInfo.environment["CHROMIUM"].map { [$0] } ?? []
        return (named + ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"])
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Why a page could not be read.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let process: SpawnedProcess
    /// Where this process writes the browser's commands, and reads its answers and events.
    private let commands: Int32, answers: Int32
    private var unread: [UInt8] = []
    private var lastCommand = 0
    /// The page's session, which every command about the page names.
    private var session = ""
    /// The browser's profile and its stdout and stderr, both removed at the end.
    private let profile: URL, log: URL

    /// Starts the browser, opens `page` in a window of `width` × `height` pixels, and attaches to it.
    init(opening page: URL, width: Int = 1000, height: Int = 500, within timeout: Double = 60) throws {
        guard let executable = Self.executable else { throw Failure(description: "Chromium is not installed") }
        let name = "run-experiments-chromium-\(UUID().uuidString)"
        profile = FileManager.default.temporaryDirectory.appendingPathComponent(name)
        log = FileManager.default.temporaryDirectory.appendingPathComponent(name + ".log")
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw Failure(description: "could not make a pipe: \(String(cString: strerror(errno)))")
        }
        // Closed on exec: the browser gets its ends as 3 and 4, and no other child gets any.
        for end in toBrowser + fromBrowser { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(log.path, O_CREAT | O_TRUNC | O_WRONLY | O_CLOEXEC, 0o600)
        let arguments = [
            "--headless", "--remote-debugging-pipe", "--user-data-dir=\(profile.path)",
            "--no-first-run", "--no-default-browser-check", "--disable-gpu", "--disable-extensions",
            // A container's root has no user namespace to sandbox the renderers in.
            "--no-sandbox",
            // Nothing comes from the network: a page that fetched something would fail.
            "--host-resolver-rules=MAP * ~NOTFOUND",
            // The page's timers run at their pace, as in a window in front.
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding",
            "--window-size=\(width),\(height)",
        ]
        let started = Result { () throws(SpawnedProcess.Failure) in
            try SpawnedProcess.start(
                executable, arguments: arguments, environment: ProcessInfo.processInfo.environment,
                descriptors: [0: input, 1: output, 2: output, 3: toBrowser[0], 4: fromBrowser[1]]
            )
        }
        // The browser's ends are its own now: the answers' pipe ends when the browser does.
        for descriptor in [toBrowser[0], fromBrowser[1], input, output] where descriptor >= 0 { close(descriptor) }
        switch started {
        case .success(let started):
            process = started
        case .failure(let failure):
            close(toBrowser[1])
            close(fromBrowser[0])
            throw Failure(description: failure.description)
        }
        commands = toBrowser[1]
        answers = fromBrowser[0]
        // A browser that ended closes its end of the commands' pipe: a failed write says so.
        signal(SIGPIPE, SIG_IGN)
        let deadline = Date().addingTimeInterval(timeout)
        // A page of its own, not the blank one the browser starts with.
        let opened = try send("Target.createTarget", ["url": page.absoluteString], until: deadline)
        let target = try (opened["targetId"] as? String).unwrapped(or: "the browser opened no page: \(opened)")
        let attached = try send("Target.attachToTarget", ["targetId": target, "flatten": true], until: deadline)
        session = try (attached["sessionId"] as? String).unwrapped(or: "no session for the page: \(attached)")
    }

    deinit {
        _ = try? send("Browser.close", until: Date().addingTimeInterval(5))
        if process.ended.wait(timeout: .now() + 5) == .timedOut {
            process.endLineage()
            process.ended.wait()
        }
        close(commands)
        close(answers)
        try? FileManager.default.removeItem(at: profile)
        try? FileManager.default.removeItem(at: log)
    }

    /// The value of `expression` in the page, as JSON makes it (a string, number, Bool, array,
    /// dictionary, or NSNull); an exception it throws is a failure.
    func evaluate(_ expression: String, within timeout: Double = 30) throws -> Any {
        let answer = try send(
            "Runtime.evaluate", ["expression": expression, "returnByValue": true], session: session,
            until: Date().addingTimeInterval(timeout))
        if let exception = answer["exceptionDetails"] { throw Failure(description: "\(expression) threw \(exception)") }
        return (answer["result"] as? [String: Any])?["value"] ?? NSNull()
    }

    /// The value of `expression`, an object, read every 100 ms until `holds` holds of it or
    /// `timeout` seconds have passed: the first that holds, or the last read.
    func value(of expression: String, within timeout: Double, until holds: ([String: Any]) -> Bool) throws -> [String:
        Any]
    {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let value = try evaluate(expression) as? [String: Any] ?? [:]
            if holds(value) || Date() >= deadline { return value }
            usleep(100_000)
        }
    }

    /// The end of what the browser wrote to its stdout and stderr, for a failure's message,
    /// without its complaints that a container has no D-Bus.
    var output: String {
        let lines = ((try? String(contentsOf: log, encoding: .utf8)) ?? "").split(separator: "\n").filter {
            !$0.contains(":ERROR:dbus/")
        }
        return lines.suffix(20).joined(separator: "\n")
    }

    /// Sends a command and returns its result, passing over the events that come before it.
    private func send(_ method: String, _ parameters: [String: Any] = [:], session: String? = nil, until deadline: Date)
        throws -> [String: Any]
    {
        lastCommand += 1
        var message: [String: Any] = ["id": lastCommand, "method": method, "params": parameters]
        message["sessionId"] = session
        let bytes = [UInt8](try JSONSerialization.data(withJSONObject: message)) + [0]
        let written = bytes.withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
        guard written == bytes.count else {
            throw Failure(
                description: "the browser took no command (\(method)): \(String(cString: strerror(errno))); \(output)")
        }
        while true {
            let answer = try nextMessage(until: deadline, waitingFor: method)
            guard answer["id"] as? Int == lastCommand else { continue }
            if let error = answer["error"] { throw Failure(description: "\(method) failed: \(error)") }
            return answer["result"] as? [String: Any] ?? [:]
        }
    }

    /// The next message the browser writes: an answer or an event.
    private func nextMessage(until deadline: Date, waitingFor method: String) throws -> [String: Any] {
        while true {
            if let end = unread.firstIndex(of: 0) {
                let message = Data(unread[..<end])
                unread.removeSubrange(...end)
                return try (JSONSerialization.jsonObject(with: message) as? [String: Any]).unwrapped(
                    or: "the browser wrote something else than a message")
            }
            let left = Int32(max(0, deadline.timeIntervalSinceNow) * 1000)
            var request = pollfd(fd: answers, events: Int16(POLLIN), revents: 0)
            guard poll(&request, 1, left) > 0 else {
                throw Failure(description: "no answer to \(method) in time; \(output)")
            }
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            let count = buffer.withUnsafeMutableBytes { read(answers, $0.baseAddress, $0.count) }
            guard count > 0 else {
                throw Failure(description: "the browser ended before answering \(method); \(output)")
            }
            unread += buffer[..<count]
        }
    }
}

extension Optional {
    /// The value, or a ``HeadlessChromium/Failure`` saying `why` there is none.
    fileprivate func unwrapped(or why: @autoclosure () -> String) throws -> Wrapped {
        guard let self else { throw HeadlessChromium.Failure(description: why()) }
        return self
    }
}
