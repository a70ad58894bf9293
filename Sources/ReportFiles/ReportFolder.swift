import Foundation
import ExperimentModel
import ExperimentKit
import ExperimentResults

/// One run's report folder: the tool's files replaced, the user's never touched.
///
/// The run builds the report in a hidden sibling of the target (`.NAME.run-experiments-PID-…`,
/// on the same file system, so a rename moves a file): the experiments' images during the run,
/// the report files at its end, and a manifest listing them. ``commit()`` then moves it in: a
/// missing target is the built folder renamed, whole in one step; into an existing one the
/// report's files move one by one, each replacing the old report's file of its name whole, and
/// the old report's other files are removed. The swap holds an exclusive `flock` on the parent
/// folder for the few milliseconds it takes, so runs at once never mix their files: each
/// report is complete, and the later one to finish wins.
///
/// Only the files a manifest lists are ever moved or removed: a user's file anywhere in the
/// folder (`timelines/notes.txt`) stays where it is, never enters the hidden folder, and one
/// at a path the new report writes is refused, never overwritten, and the report is not
/// written. The folder itself stays (its mode, its owner); it must not be a link (a link is
/// refused, never followed); folders above it are taken as the user names them. A run killed
/// before the swap leaves the previous report as it was; one killed during it leaves a
/// manifest that lists both reports' files and names its hidden folder, and the next report
/// to the folder finishes that swap before its own. A later run removes a killed run's hidden
/// folder, which holds only the tool's files.
package final class ReportFolder: Sendable {
    /// The manifest's name in the report folder.
    package static let manifestFile = "run-experiments-manifest.txt"
    /// The folder the report is for.
    package let target: URL
    /// The hidden sibling the report is built in.
    package let staging: URL
    /// Ancestors of `target` this run created, outermost first: removed again if the report is discarded.
    private let createdAncestors: [URL]

    /// Where image experiments write their pictures during the run.
    package var imagesDirectory: URL {
        staging.appendingPathComponent("images")
    }

    /// The longest path a file system call takes, and the longest name of one path component.
    static let pathLimit = Int(PATH_MAX), nameLimit = Int(NAME_MAX)
    /// Room kept below `pathLimit` for the files inside the report (`images/NAME.png` and its
    /// temporary twin): no experiment or image name comes near it.
    static let roomForContents = 256

    /// Why a report folder cannot be used or written.
    package struct Failure: Error, CustomStringConvertible, Equatable {
        /// The path the problem is at (the folder, or a file in it).
        package var path: String
        package var reason: String
        /// Whether the target changed before the failure: part of the new report moved in,
        /// which the next report completes.
        package var changedTheTarget = false

        package var description: String {
            "Cannot write the report to \(Format.echoed(path, cut: false)): \(reason)"
        }

        init(_ path: String, _ reason: String) {
            self.path = path
            self.reason = reason
        }

        init(_ failure: AtomicFile.Failure) {
            self.init(failure.path, failure.reason)
        }
    }

    private init(target: URL, staging: URL, createdAncestors: [URL]) {
        self.target = target
        self.staging = staging
        self.createdAncestors = createdAncestors
    }

    /// Checks `directory` can take a report that writes `relativePaths` (paths inside it, `/`
    /// separated), creates its missing ancestors and the hidden folder to build in. Nothing is
    /// created when the check fails.
    package static func prepare(at directory: URL, writing relativePaths: [String]) throws(Failure) -> ReportFolder {
        let target = directory.standardizedFileURL
        let name = target.lastPathComponent
        let stagingName = ".\(name)\(stagingMarker)\(getpid())-\(UUID().uuidString.prefix(8).lowercased())"
        let staging = target.deletingLastPathComponent().appendingPathComponent(stagingName)
        try checkLength(of: target, staging: staging)
        switch AtomicFile.kind(of: target.path) {
        case .missing, .directory: break
        case .link: throw Failure(target.path, isLink)
        default: throw Failure(target.path, "it exists and is not a folder")
        }
        // A report's folder is its own: never the one the user works in, or one above it, whose
        // files a report would sit among (and a first report is a folder renamed into place).
        let resolved = target.resolvingSymlinksInPath().path
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).resolvingSymlinksInPath().path
        if name == "/" || resolved == "/" || current == resolved || current.hasPrefix(resolved + "/") {
            throw Failure(target.path, "it is the current folder or holds it, and a report needs a folder of its own; name one")
        }
        let createdAncestors = try createAncestors(of: target)
        do throws(Failure) {
            // A parent that cannot be locked cannot take the hidden folder either: that says why, below.
            try? locked(parentOf: target) { () throws(Failure) in settle(target) }
            let owned = try ownedFiles(in: target)
            if let conflict = conflicts(in: target, owned: owned, with: relativePaths + ["images/", "timelines/"]).first {
                throw Failure(target.appendingPathComponent(conflict).path, notOurs)
            }
            guard mkdir(staging.path, 0o755) == 0 else {
                let parent = target.deletingLastPathComponent().path
                throw Failure(target.path, "its folder \(Format.echoed(parent)) takes no new folder (\(AtomicFile.systemReason()))")
            }
        } catch {
            createdAncestors.reversed().forEach { rmdir($0.path) }
            throw error
        }
        return ReportFolder(target: target, staging: staging, createdAncestors: createdAncestors)
    }

    /// Writes `text` at `relativePath` (`/` separated) in the report being built.
    package func write(_ text: String, to relativePath: String) throws(Failure) {
        var folder = staging
        let components = relativePath.split(separator: "/").map(String.init)
        for component in components.dropLast() {
            folder.appendPathComponent(component)
        }
        do {
            try AtomicFile.write(Data(text.utf8), named: components.last ?? "", in: folder)
        } catch {
            throw Failure(error)
        }
    }

    /// `path` as it will read once the report is in place: a file written into the folder being
    /// built, moved to the target; any other path unchanged.
    func finalPath(of path: String) -> String {
        let prefix = staging.path + "/"
        guard path.hasPrefix(prefix) else { return path }
        return target.path + "/" + path.dropFirst(prefix.count)
    }

    /// `result` with the paths of the images its experiment wrote into the folder being built
    /// (its outcome's `images`) as they will read once the report is in place.
    package func placing(_ result: ExperimentResult) -> ExperimentResult {
        guard var measurement = result.measurement, let images = measurement.outcome[.images] else {
            return result
        }
        measurement.outcome.set(.images, images.map(finalPath))
        var placed = result
        placed.measurement = measurement
        return placed
    }

    /// Writes the manifest and moves the report in. On a failure before the first file moves,
    /// nothing changes in the target and the report is discarded; on one after (a disk that
    /// fills as a folder grows), the failure says so, and the next report to the folder
    /// completes the swap.
    package func commit() throws(Failure) {
        do throws(Failure) {
            try write(Self.manifestText(Self.files(in: staging, under: "")), to: Self.manifestFile)
            try Self.locked(parentOf: target) { () throws(Failure) in
                Self.settle(target)
                try moveIn()
            }
        } catch {
            if !error.changedTheTarget { discard() }
            throw error
        }
    }

    /// Removes the folder being built, and the ancestors this run created if they are empty.
    package func discard() {
        Self.removeTree(staging.path)
        createdAncestors.reversed().forEach { rmdir($0.path) }
    }

    // MARK: - The swap

    /// With the lock held: a missing target becomes the built folder in one rename; into an
    /// existing one, the report's files move one by one (``moveFiles(from:into:)``), so the
    /// folder itself (its mode, its owner) and every file the tool did not write stay as they are.
    private func moveIn() throws(Failure) {
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
            try AtomicFile.write(Data(manifestText(old.union(new).subtracting([manifestFile]).sorted(), swapping: staging.lastPathComponent).utf8), named: manifestFile, in: target)
        } catch {
            throw Failure(error)
        }
        func changed(_ path: URL) -> Failure {
            var failure = Failure(path.path, AtomicFile.systemReason() + "; the folder holds part of the new report, and the next report to it completes the swap")
            failure.changedTheTarget = true
            return failure
        }
        for path in new.subtracting([manifestFile]).sorted() where AtomicFile.kind(of: staging.appendingPathComponent(path).path) != .missing {
            steps.next()
            guard rename(staging.appendingPathComponent(path).path, target.appendingPathComponent(path).path) == 0 else {
                throw changed(target.appendingPathComponent(path))
            }
        }
        for path in old.subtracting(new).sorted() {
            steps.next()
            removeOwnFile(path, in: target)
        }
        steps.next()
        guard rename(staging.appendingPathComponent(manifestFile).path, target.appendingPathComponent(manifestFile).path) == 0 else {
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
            guard rmdir(target.appendingPathComponent(components[..<depth].joined(separator: "/")).path) == 0 else { return }
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
    private static func settle(_ target: URL) {
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
        guard AtomicFile.kind(of: manifest.path) == .file, let text = try? String(contentsOf: manifest, encoding: .utf8),
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
    private static func conflicts(in target: URL, owned: Set<String>, with wanted: [String]) -> [String] {
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

    // MARK: - Manifest

    static let manifestHeader = "# Files run-experiments wrote for this report; a later report removes only these."

    /// The line a manifest holds while a swap is under way, followed by the folder it moves from.
    static let swappingHeader = "# Being swapped in, from: "

    /// A manifest listing `files`; while a swap is under way, naming the folder it moves from.
    static func manifestText(_ files: [String], swapping staging: String? = nil) -> String {
        ([manifestHeader] + (staging.map { [swappingHeader + $0] } ?? []) + files).joined(separator: "\n") + "\n"
    }

    /// The files the report in `target` says it wrote, the manifest included: none if it has no
    /// manifest (a folder the tool did not make, or a report written without one).
    private static func ownedFiles(in target: URL) throws(Failure) -> Set<String> {
        let manifest = target.appendingPathComponent(manifestFile)
        switch AtomicFile.kind(of: manifest.path) {
        case .missing:
            return []
        case .file:
            guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
                throw Failure(manifest.path, "the manifest cannot be read")
            }
            // Only paths inside the folder: a line naming `..` or an absolute path is no file of the report.
            let paths = text.split(separator: "\n").map(String.init).filter { line in
                !line.hasPrefix("#") && !line.hasPrefix("/") && !line.split(separator: "/", omittingEmptySubsequences: false).contains { $0.isEmpty || $0 == "." || $0 == ".." }
            }
            return Set(paths + [manifestFile])
        default:
            throw Failure(manifest.path, notOurs)
        }
    }

    /// Every file under `folder`, as paths relative to it, sorted.
    private static func files(in folder: URL, under relative: String) throws(Failure) -> [String] {
        var found: [String] = []
        for name in entries(of: folder.appendingPathComponent(relative).path) {
            let path = relative.isEmpty ? name : relative + "/" + name
            if AtomicFile.kind(of: folder.appendingPathComponent(path).path) == .directory {
                found += try files(in: folder, under: path)
            } else {
                found.append(path)
            }
        }
        return found.sorted()
    }

    // MARK: - File system helpers

    static let stagingMarker = ".run-experiments-"
    static let isLink = "it is a symbolic link; give the folder it points to, or remove the link"
    static let notOurs = "run-experiments did not write it (its manifest does not list it) and will not replace it; move it away or choose another --report-dir"

    /// The names in a folder (without following a link to one), sorted; none if it cannot be read.
    private static func entries(of folder: String) -> [String] {
        guard AtomicFile.kind(of: folder) == .directory else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A path no longer than the system takes, with room for the report's files, and no
    /// component longer than a name may be: checked before anything is created.
    private static func checkLength(of target: URL, staging: URL) throws(Failure) {
        let added = staging.path.utf8.count - target.path.utf8.count
        if staging.path.utf8.count + roomForContents > pathLimit {
            throw Failure(target.path, "the path is too long (\(target.path.utf8.count) bytes; a report folder's path can have at most \(pathLimit - roomForContents - added))")
        }
        if let long = target.pathComponents.first(where: { $0.utf8.count > nameLimit }) {
            throw Failure(target.path, "the name \(Format.echoed(long)) is too long (\(long.utf8.count) bytes; at most \(nameLimit))")
        }
        if staging.lastPathComponent.utf8.count > nameLimit {
            throw Failure(target.path, "the folder's name is too long (\(target.lastPathComponent.utf8.count) bytes; at most \(nameLimit - added), as the report is built in a hidden folder beside it whose name is \(added) bytes longer)")
        }
    }

    /// Creates the missing folders above `target`, returning those it created.
    private static func createAncestors(of target: URL) throws(Failure) -> [URL] {
        var missing: [URL] = []
        var folder = target.deletingLastPathComponent()
        while folder.path != "/", !FileManager.default.fileExists(atPath: folder.path) {
            missing.insert(folder, at: 0)
            folder.deleteLastPathComponent()
        }
        var created: [URL] = []
        for folder in missing {
            guard mkdir(folder.path, 0o755) == 0 else {
                let reason = AtomicFile.systemReason()
                created.reversed().forEach { rmdir($0.path) }
                throw Failure(folder.path, reason)
            }
            created.append(folder)
        }
        return created
    }

    /// Runs `body` holding an exclusive lock on the folder that holds `target`.
    private static func locked<T>(parentOf target: URL, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let parent = target.deletingLastPathComponent().path
        guard let descriptor = AtomicFile.lockFolder(parent) else { throw Failure(parent, AtomicFile.systemReason()) }
        defer { close(descriptor) }
        return try body()
    }

    /// Removes the hidden folders of runs of this report that ended without swapping theirs in
    /// (killed): those whose process is gone.
    private static func removeAbandonedSiblings(of target: URL) {
        let parent = target.deletingLastPathComponent().path
        let prefix = ".\(target.lastPathComponent)\(stagingMarker)"
        for name in entries(of: parent) where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count).prefix { $0 != "-" }), pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            removeTree(parent + "/" + name)
        }
    }

    /// Removes a folder the tool made and everything in it, never following a link.
    static func removeTree(_ path: String) {
        if AtomicFile.kind(of: path) == .directory {
            for name in entries(of: path) {
                removeTree(path + "/" + name)
            }
            rmdir(path)
        } else {
            unlink(path)
        }
    }
}
