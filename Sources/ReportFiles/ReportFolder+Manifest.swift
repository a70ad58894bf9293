import ExperimentKit
import Foundation

/// The manifest that says which files of the folder the tool wrote, and the file system
/// helpers the swap and the staging share.
extension ReportFolder {
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
    static func ownedFiles(in target: URL) throws(Failure) -> Set<String> {
        let manifest = target.appendingPathComponent(manifestFile)
        switch AtomicFile.kind(of: manifest.path) {
        case .missing:
            return []
        case .file:
            guard let text = try? String(contentsOf: manifest, encoding: .utf8) else {
                throw Failure(manifest.path, "the manifest cannot be read")
            }
            // Only paths inside the folder: a line naming `..` or an absolute path is no file of the report.
            let paths: [String] = text.split(separator: "\n").map(String.init).filter { (line: String) -> Bool in
                let parts: [Substring] = line.split(separator: "/", omittingEmptySubsequences: false)
                return !line.hasPrefix("#") && !line.hasPrefix("/")
                    && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." }
            }
            return Set(paths + [manifestFile])
        default:
            throw Failure(manifest.path, notOurs)
        }
    }

    /// Every file under `folder`, as paths relative to it, sorted.
    static func files(in folder: URL, under relative: String) throws(Failure) -> [String] {
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
    static let notOurs =
        "run-experiments did not write it (its manifest does not list it) and will not replace it; move it away or choose another --report-dir"

    /// The names in a folder (without following a link to one), sorted; none if it cannot be read.
    static func entries(of folder: String) -> [String] {
        guard AtomicFile.kind(of: folder) == .directory else { return [] }
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    /// A path no longer than the system takes, with room for the report's files, and no
    /// component longer than a name may be: checked before anything is created.
    static func checkLength(of target: URL, staging: URL) throws(Failure) {
        let added = staging.path.utf8.count - target.path.utf8.count
        if staging.path.utf8.count + roomForContents > pathLimit {
            throw Failure(
                target.path,
                "the path is too long (\(target.path.utf8.count) bytes; a report folder's path can have at most \(pathLimit - roomForContents - added))"
            )
        }
        if let long = target.pathComponents.first(where: { $0.utf8.count > nameLimit }) {
            throw Failure(
                target.path,
                "the name \(Format.echoed(long)) is too long (\(long.utf8.count) bytes; at most \(nameLimit))")
        }
        if staging.lastPathComponent.utf8.count > nameLimit {
            throw Failure(
                target.path,
                "the folder's name is too long (\(target.lastPathComponent.utf8.count) bytes; at most \(nameLimit - added), as the report is built in a hidden folder beside it whose name is \(added) bytes longer)"
            )
        }
    }

    /// Creates the missing folders above `target`, returning those it created.
    static func createAncestors(of target: URL) throws(Failure) -> [URL] {
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
    static func locked<T>(parentOf target: URL, _ body: () throws(Failure) -> T) throws(Failure) -> T {
        let parent = target.deletingLastPathComponent().path
        guard let descriptor = AtomicFile.lockFolder(parent) else { throw Failure(parent, AtomicFile.systemReason()) }
        defer { close(descriptor) }
        return try body()
    }

    /// Removes the hidden folders of runs of this report that ended without swapping theirs in
    /// (killed): those whose process is gone.
    static func removeAbandonedSiblings(of target: URL) {
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
