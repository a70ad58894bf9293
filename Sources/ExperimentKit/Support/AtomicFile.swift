import Foundation

/// How every file of this tool is written: into a new temporary file beside its target, then
/// renamed over it. A reader never sees half a file, a run killed while writing leaves at most a
/// hidden temporary file, and whatever sits at the target's name (a planted link included) is
/// replaced, never followed. Folders are created one level at a time and an existing one is
/// used only if it is a real folder, not a link to one.
public enum AtomicFile {
    /// Why a file or folder could not be written: its path and the reason.
    public struct Failure: Error, CustomStringConvertible, Equatable {
        public var path: String
        public var reason: String

        public var description: String {
            "Cannot write \(Format.echoed(path, cut: false)): \(reason)"
        }

        package init(path: String, reason: String) {
            self.path = path
            self.reason = reason
        }
    }

    /// Writes `data` as `name` in `directory`, creating `directory` (not its parents) if missing.
    /// `name` must be one plain file name, so nothing lands outside `directory`.
    /// - Returns: The file written.
    @discardableResult
    public static func write(_ data: Data, named name: String, in directory: URL) throws(Failure) -> URL {
        let target = directory.appendingPathComponent(name)
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            throw Failure(path: target.path, reason: "\(Format.echoed(name)) is not a plain file name")
        }
        try makeDirectory(directory)
        // mkstemp creates the file with O_EXCL: never an existing file, never through a link.
        var template = Array(directory.appendingPathComponent(".\(name).tmp-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else { throw Failure(path: target.path, reason: systemReason()) }
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        // mkstemp makes the file private (0600); a report is for reading like any other file.
        fchmod(descriptor, 0o644)
        let bytes = [UInt8](data)
        let wrote = StandardStreams.writeAll(bytes, to: descriptor)
        let writeError = errno
        let closed = close(descriptor) == 0
        let closeError = errno
        guard wrote, closed else {
            unlink(temporary)
            throw Failure(path: target.path, reason: systemReason(wrote ? closeError : writeError))
        }
        guard rename(temporary, target.path) == 0 else {
            let code = errno
            unlink(temporary)
            throw Failure(path: target.path, reason: systemReason(code))
        }
        return target
    }

    /// Creates `directory` if it is missing (its parent must exist); an existing entry is
    /// accepted only if it is a real folder, not a file or a link.
    public static func makeDirectory(_ directory: URL) throws(Failure) {
        if mkdir(directory.path, 0o755) == 0 { return }
        let code = errno
        if code == EEXIST {
            guard kind(of: directory.path) == .directory else {
                throw Failure(path: directory.path, reason: "it exists and is not a folder (a file or a link)")
            }
            return
        }
        throw Failure(path: directory.path, reason: systemReason(code))
    }

    /// Takes an exclusive `flock` on the folder at `path`, waiting for whoever holds it (again
    /// after a signal interrupts the wait); it is held until the returned descriptor is closed.
    /// nil, with `errno` saying why, when the folder cannot be opened or locked.
    package static func lockFolder(_ path: String) -> Int32? {
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let code = errno
                close(descriptor)
                errno = code
                return nil
            }
        }
        return descriptor
    }

    /// What is at a path, without following a link there.
    package enum Kind: Equatable {
        case missing, directory, file, link, other
    }

    package static func kind(of path: String) -> Kind {
        var info = stat()
        guard lstat(path, &info) == 0 else { return .missing }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file
        case S_IFLNK: return .link
        default: return .other
        }
    }

    /// The system's words for `code` (by default the last error).
    package static func systemReason(_ code: Int32 = errno) -> String {
        String(cString: strerror(code))
    }
}
