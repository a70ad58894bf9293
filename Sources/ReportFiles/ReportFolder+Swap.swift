import ExperimentKit
import Foundation

/// The swap: the staged files moved into the target, the tool's own files of the last report
/// removed, the user's never touched, and a swap cut short finished by the next report.
extension ReportFolder {
    /// With the lock held: a missing target becomes the built folder in one rename; into an
    /// existing one, the report's files move one by one (``moveFiles(from:into:)``), so the
    /// folder itself (its mode, its owner) and every file the tool did not write stay as they are.
    func moveIn() throws(Failure) {
        switch AtomicFile.kind(of: target.path) {
        case .missing:
            var steps = SwapSteps()
            steps.next()
            guard rename(staging.path, target.path) == 0 else { throw Failure(target.path, AtomicFile.systemReason()) }
            return
        case .directory:
            break
        case .link:
            throw Failure(target.path, Self.isLink)
        default:
            throw Failure(target.path, "it is not a folder")
        }
        let files = try Self.files(in: staging, under: "")
        if let conflict = Self.conflicts(in: target, owned: try Self.ownedFiles(in: target), with: files).first {
            throw Failure(target.appendingPathComponent(conflict).path, Self.notOurs)
        }
        // The folders the files go into, made and checked before anything moves: one the user
        // made read-only stops the report here, with the target unchanged.
        for folder in Self.folders(holding: files) {
            let url = target.appendingPathComponent(folder)
            do {
                try AtomicFile.makeDirectory(url)
            } catch {
                throw Failure(error)
            }
            guard access(url.path, W_OK | X_OK) == 0 else { throw Failure(url.path, AtomicFile.systemReason()) }
        }
        try Self.moveFiles(from: staging, into: target)
    }

    /// Moves the report built in `staging` (its files, as its manifest lists them) into
    /// `target`, and removes the target's own files the new report does not have. The target's
    /// manifest first lists both reports' files and names `staging`, so at every moment it
    /// lists every file the tool wrote there; a run killed at any step leaves that manifest,
    /// and the next report finishes the move from it (``settle(_:)``). Files the manifests do
    /// not list are never moved, written or removed. Running it again after a kill finishes
    /// the same swap: files already moved are skipped.
    private static func moveFiles(from staging: URL, into target: URL) throws(Failure) {
        var steps = SwapSteps()
        let old = try ownedFiles(in: target), new = try ownedFiles(in: staging)
        steps.next()
        do {
            try AtomicFile.write(
                Data(
                    manifestText(
                        old.union(new).subtracting([manifestFile]).sorted(), swapping: staging.lastPathComponent
                    ).utf8), named: manifestFile, in: target)
        } catch {
            throw Failure(error)
        }
        func changed(_ path: URL) -> Failure {
            var failure = Failure(
                path.path,
                AtomicFile.systemReason()
                    + "; the folder holds part of the new report, and the next report to it completes the swap")
            failure.changedTheTarget = true
            return failure
        }
        for path in new.subtracting([manifestFile]).sorted()
        where AtomicFile.kind(of: staging.appendingPathComponent(path).path) != .missing {
            steps.next()
            guard rename(staging.appendingPathComponent(path).path, target.appendingPathComponent(path).path) == 0
            else {
                throw changed(target.appendingPathComponent(path))
            }
        }
        for path in old.subtracting(new).sorted() {
            steps.next()
            removeOwnFile(path, in: target)
        }
        steps.next()
        guard
            rename(staging.appendingPathComponent(manifestFile).path, target.appendingPathComponent(manifestFile).path)
                == 0
        else {
            throw changed(target.appendingPathComponent(manifestFile))
        }
        steps.next()
        removeTree(staging.path)
    }

    /// Removes the old report's file at `path` (one its manifest lists) from `target`, only if
    /// every folder on the way is a real folder (a link there is never followed) and it is not a
    /// folder itself; then its folders, if that left them empty.
    private static func removeOwnFile(_ path: String, in target: URL) {
        var folder = target
        let components = path.split(separator: "/").map(String.init)
        for component in components.dropLast() {
            folder.appendPathComponent(component)
            guard AtomicFile.kind(of: folder.path) == .directory else { return }
        }
        let file = target.appendingPathComponent(path)
        guard AtomicFile.kind(of: file.path) != .directory, unlink(file.path) == 0 else { return }
        for depth in stride(from: components.count - 1, to: 0, by: -1) {
            guard rmdir(target.appendingPathComponent(components[..<depth].joined(separator: "/")).path) == 0 else {
                return
            }
        }
    }

    /// The folders that hold `files` (relative paths), each before the folders inside it.
    private static func folders(holding files: [String]) -> [String] {
        let folders = files.flatMap { file in
            let components = file.split(separator: "/")
            return (1..<max(components.count, 1)).map { components[..<$0].joined(separator: "/") }
        }
        return Set(folders).sorted()
    }

    /// Before a report moves in, with the lock held: finishes the swap a killed run left halfway
    /// (the target's manifest names its folder), removes the folders of runs killed before their
    /// swap and a manifest's temporary file a kill left in the target. Only the tool's own
    /// files are in those folders: a user's file is never moved into one.
    static func settle(_ target: URL) {
        if let pending = pendingSwap(into: target) {
            try? moveFiles(from: pending, into: target)
        }
        removeAbandonedSiblings(of: target)
        for name in entries(of: target.path) where name.hasPrefix(".\(manifestFile).tmp-") {
            unlink(target.appendingPathComponent(name).path)
        }
    }

    /// The folder of a swap into `target` that did not finish: the one its manifest names, if
    /// it is still there.
    private static func pendingSwap(into target: URL) -> URL? {
        let manifest = target.appendingPathComponent(manifestFile)
        guard AtomicFile.kind(of: manifest.path) == .file,
            let text = try? String(contentsOf: manifest, encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix(swappingHeader) })
        else { return nil }
        let name = String(line.dropFirst(swappingHeader.count))
        guard name.hasPrefix(".\(target.lastPathComponent)\(stagingMarker)"), !name.contains("/") else { return nil }
        let staging = target.deletingLastPathComponent().appendingPathComponent(name)
        return AtomicFile.kind(of: staging.path) == .directory ? staging : nil
    }

    /// The steps of a swap, counted so that a test can kill the run at each: with
    /// `RUN_EXPERIMENTS_KILL_AT_SWAP_STEP=N` in its environment, the process sends itself
    /// SIGKILL before step N (from 1), leaving the folders exactly as `kill -9` at that moment
    /// would. Without it, counting is all it does.
    struct SwapSteps {
        static let environmentKey = "RUN_EXPERIMENTS_KILL_AT_SWAP_STEP"
        private let killedAt = ProcessInfo.processInfo.environment[environmentKey].flatMap { Int($0) }
        private var count = 0

        mutating func next() {
            count += 1
            if count == killedAt { kill(getpid(), SIGKILL) }
        }
    }

    /// Paths in `wanted` (a trailing `/` for a folder) that an existing report folder holds and
    /// did not write: the report would have to overwrite them.
    static func conflicts(in target: URL, owned: Set<String>, with wanted: [String]) -> [String] {
        guard AtomicFile.kind(of: target.path) == .directory else { return [] }
        var found: [String] = []
        for entry in wanted {
            let components = entry.split(separator: "/").map(String.init)
            for depth in components.indices {
                let path = components[...depth].joined(separator: "/")
                let isFolder = depth < components.count - 1 || entry.hasSuffix("/")
                let kind = AtomicFile.kind(of: target.appendingPathComponent(path).path)
                if kind == .missing || owned.contains(path) || (isFolder && kind == .directory) { continue }
                found.append(path)
                break
            }
        }
        return found
    }
}
