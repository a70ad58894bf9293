import ExperimentKit
import ExperimentResults
import Foundation

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
            throw Failure(
                target.path, "it is the current folder or holds it, and a report needs a folder of its own; name one")
        }
        let createdAncestors = try createAncestors(of: target)
        do throws(Failure) {
            // A parent that cannot be locked cannot take the hidden folder either: that says why, below.
            try? locked(parentOf: target) { () throws(Failure) in settle(target) }
            let owned = try ownedFiles(in: target)
            if let conflict = conflicts(in: target, owned: owned, with: relativePaths + ["images/", "timelines/"]).first
            {
                throw Failure(target.appendingPathComponent(conflict).path, notOurs)
            }
            guard mkdir(staging.path, 0o755) == 0 else {
                let parent = target.deletingLastPathComponent().path
                throw Failure(
                    target.path,
                    "its folder \(Format.echoed(parent)) takes no new folder (\(AtomicFile.systemReason()))")
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
}
