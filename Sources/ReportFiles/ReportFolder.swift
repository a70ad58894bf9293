import Foundation
import ExperimentModel
import ExperimentKit
import ExperimentRunner
import ExperimentReports

/// One run's report folder, written whole or not at all.
///
/// The run builds the report in a hidden sibling of the target (`.NAME.run-experiments-PID-…`,
/// on the same file system, so a rename moves it): the experiments' images during the run, the
/// report files at its end, and a manifest listing them. ``commit()`` then swaps it in. The swap
/// holds an exclusive `flock` on the parent folder for the few milliseconds it takes, so runs at
/// once never mix their files: each report is complete, and the later one to finish wins.
///
/// Only files the manifest lists are ever removed: a user's file anywhere in the folder
/// (`timelines/notes.txt`) is moved into the new report; one at a path the new report writes is
/// refused, never overwritten, and the report is not written. The folder itself must not be a
/// link (a link is refused, never followed); folders above it are taken as the user names them.
/// A run killed before the swap leaves the previous report as it was, and a later run removes
/// the killed run's hidden folder.
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
        // The swap replaces the folder itself: never the one the user works in, or one above it.
        let resolved = target.resolvingSymlinksInPath().path
        let current = URL(fileURLWithPath: FileManager.default.currentDirectoryPath).resolvingSymlinksInPath().path
        if name == "/" || resolved == "/" || current == resolved || current.hasPrefix(resolved + "/") {
            throw Failure(target.path, "it is the current folder or holds it, and a report replaces its folder whole; name a folder of its own")
        }
        let createdAncestors = try createAncestors(of: target)
        do throws(Failure) {
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

    /// Writes the manifest and swaps the report in. On a failure nothing changes in the target
    /// and the report is discarded.
    /// - Returns: A warning to show, if files that appeared in the old report during the swap
    ///   had to be left in a folder of their own.
    @discardableResult
    package func commit() throws(Failure) -> String? {
        do {
            let manifest = try Self.files(in: staging, under: "")
            try write(Self.manifestText(manifest), to: Self.manifestFile)
            return try Self.locked(parentOf: target) { () throws(Failure) -> String? in
                Self.removeAbandonedSiblings(of: target)
                return try swapIn()
            }
        } catch {
            discard()
            throw error
        }
    }

    /// Removes the folder being built, and the ancestors this run created if they are empty.
    package func discard() {
        Self.removeTree(staging.path)
        createdAncestors.reversed().forEach { rmdir($0.path) }
    }

    // MARK: - The swap

    /// With the lock held: moves the user's files from the old report into the new one, swaps
    /// the two folders, and removes the old report's own files.
    private func swapIn() throws(Failure) -> String? {
        switch AtomicFile.kind(of: target.path) {
        case .missing:
            guard rename(staging.path, target.path) == 0 else { throw Failure(target.path, AtomicFile.systemReason()) }
            return nil
        case .directory:
            break
        case .link:
            throw Failure(target.path, Self.isLink)
        default:
            throw Failure(target.path, "it is not a folder")
        }
        let owned = try Self.ownedFiles(in: target)
        var moves: [String] = [], conflicts: [String] = []
        Self.plan(from: target, into: staging, owned: owned, under: "", moves: &moves, conflicts: &conflicts)
        if let conflict = conflicts.first {
            throw Failure(target.appendingPathComponent(conflict).path, Self.notOurs)
        }
        try move(moves, from: target, to: staging)
        guard Self.exchange(staging.path, target.path) else {
            let reason = AtomicFile.systemReason()
            Self.moveBack(moves, from: staging, to: target)
            throw Failure(target.path, reason)
        }
        // The old report now sits where the new one was built.
        let old = staging.path
        Self.removeOwnFiles(in: old, owned: owned, under: "")
        guard rmdir(old) != 0 else { return nil }
        let kept = target.deletingLastPathComponent().appendingPathComponent("\(target.lastPathComponent).kept-\(getpid())-\(Int(Date().timeIntervalSince1970))").path
        guard rename(old, kept) == 0 else {
            return "Files that appeared in the report folder during the swap are in '\(old)'."
        }
        return "Files that appeared in the report folder during the swap are in '\(kept)'."
    }

    /// Moves each of `moves` (relative paths) from `source` to the same place in `destination`,
    /// creating folders as needed; on a failure, moves back what was moved.
    private func move(_ moves: [String], from source: URL, to destination: URL) throws(Failure) {
        for (index, path) in moves.enumerated() {
            do throws(AtomicFile.Failure) {
                var folder = destination
                for component in path.split(separator: "/").dropLast() {
                    folder.appendPathComponent(String(component))
                    try AtomicFile.makeDirectory(folder)
                }
                guard rename(source.appendingPathComponent(path).path, destination.appendingPathComponent(path).path) == 0 else {
                    throw AtomicFile.Failure(path: source.appendingPathComponent(path).path, reason: AtomicFile.systemReason())
                }
            } catch {
                Self.moveBack(Array(moves[..<index]), from: destination, to: source)
                throw Failure(error)
            }
        }
    }

    private static func moveBack(_ moves: [String], from destination: URL, to source: URL) {
        for path in moves.reversed() {
            rename(destination.appendingPathComponent(path).path, source.appendingPathComponent(path).path)
        }
    }

    /// Walks the old report: files it owns stay (they go with it); every other entry moves into
    /// the new report, a whole folder at once when it holds nothing the old report owns; an
    /// entry where the new report has a file of its own is a conflict.
    private static func plan(from old: URL, into new: URL, owned: Set<String>, under relative: String, moves: inout [String], conflicts: inout [String]) {
        for name in entries(of: old.appendingPathComponent(relative).path) {
            let path = relative.isEmpty ? name : relative + "/" + name
            if owned.contains(path) { continue }
            let there = AtomicFile.kind(of: new.appendingPathComponent(path).path)
            if AtomicFile.kind(of: old.appendingPathComponent(path).path) == .directory,
               there == .directory || (there == .missing && owned.contains { $0.hasPrefix(path + "/") }) {
                plan(from: old, into: new, owned: owned, under: path, moves: &moves, conflicts: &conflicts)
            } else if there == .missing {
                moves.append(path)
            } else {
                conflicts.append(path)
            }
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

    /// Removes from the old report the files its manifest lists (the manifest included) and the
    /// folders left empty; anything else stays.
    private static func removeOwnFiles(in folder: String, owned: Set<String>, under relative: String) {
        for name in entries(of: relative.isEmpty ? folder : folder + "/" + relative) {
            let path = relative.isEmpty ? name : relative + "/" + name
            let full = folder + "/" + path
            if AtomicFile.kind(of: full) == .directory {
                removeOwnFiles(in: folder, owned: owned, under: path)
                rmdir(full)
            } else if owned.contains(path) {
                unlink(full)
            }
        }
    }

    // MARK: - Manifest

    static let manifestHeader = "# Files run-experiments wrote for this report; a later report removes only these."

    static func manifestText(_ files: [String]) -> String {
        ([manifestHeader] + files).joined(separator: "\n") + "\n"
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
            return Set(text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") && !$0.isEmpty } + [manifestFile])
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
        let descriptor = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(parent, AtomicFile.systemReason()) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Failure(parent, AtomicFile.systemReason()) }
        }
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

    /// Swaps two folders in one step where the system can (Linux's `renameat2` with
    /// RENAME_EXCHANGE), so readers see the old report or the new one, never neither; otherwise
    /// in two renames (the lock still keeps other runs out between them).
    private static func exchange(_ new: String, _ old: String) -> Bool {
        #if os(Linux)
        typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32
        let renameExchange: UInt32 = 2
        if let symbol = dlsym(nil, "renameat2") {
            let renameat2 = unsafeBitCast(symbol, to: RenameAt2.self)
            if renameat2(AT_FDCWD, new, AT_FDCWD, old, renameExchange) == 0 { return true }
            guard errno == EINVAL || errno == ENOSYS else { return false }
        }
        #endif
        let aside = new + ".old"
        guard rename(old, aside) == 0 else { return false }
        guard rename(new, old) == 0 else {
            rename(aside, old)
            return false
        }
        return rename(aside, new) == 0
    }
}
