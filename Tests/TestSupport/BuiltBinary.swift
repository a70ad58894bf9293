import Foundation

/// Runs the `run-experiments` executable that `swift test` built beside the test bundle.
public enum BuiltBinary {
    /// `.build/<triple>/debug/run-experiments`: the test process's own executable is in the same folder.
    public static var url: URL {
        #if os(Linux)
        let testProcess = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        #else
        let testProcess = Bundle.main.bundleURL
        #endif
        var folder = testProcess.deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.appendingPathComponent("run-experiments").path),
            folder.path != "/"
        {
            folder.deleteLastPathComponent()
        }
        return folder.appendingPathComponent("run-experiments")
    }

    /// How a run of the binary ended, and what it wrote.
    public struct Result: Sendable {
        public var status: Int32
        public var stdout: String
        public var stderr: String
    }

    /// Runs the binary with `arguments`, waiting at most `timeout` seconds (then kills it and fails
    /// the status); in `directory` if given, and with stdout going to `output` instead of a pipe
    /// if given (`/dev/full`).
    public static func run(
        _ arguments: [String], timeout: Double = 120, environment: [String: String]? = nil,
        in directory: URL? = nil, output: FileHandle? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let directory { process.currentDirectoryURL = directory }
        let out = Pipe(), err = Pipe()
        process.standardOutput = output ?? out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        // Waited on, not polled: a poll's interval would be added to every run's time.
        let ended = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in ended.signal() }
        try process.run()
        if output != nil {
            // The stdout pipe went to no child: closed, its reader sees the end at once.
            try out.fileHandleForWriting.close()
        }
        let deadline = DispatchTime.now() + timeout
        // Drain both pipes while waiting so a large output cannot block the child.
        nonisolated(unsafe) var outData = Data(), errData = Data()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outData = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errData = err.fileHandleForReading.readDataToEndOfFile() }
        if ended.wait(timeout: deadline) == .timedOut {
            process.terminate()
            process.waitUntilExit()
            group.wait()
            return Result(status: -1, stdout: String(decoding: outData, as: UTF8.self), stderr: "timed out")
        }
        process.waitUntilExit()
        group.wait()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A fresh folder under the temporary directory, created; the caller removes it.
    public static func temporaryFolder(_ name: String = #function) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "run-experiments-\(name.prefix { $0.isLetter })-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }
}
