import Foundation

/// Which line of which file each instruction of an executable belongs to, read once from its
/// DWARF line programs (`.debug_line`, versions 2 to 5, 64-bit little-endian ELF).
///
/// The toolchain's own symbolication re-reads the debug information at every call (tens of
/// milliseconds on this package's executable); this table reads it once (about 15 ms) and
/// answers each address with a binary search, so a run can afford to ask for every print's line.
/// Only lines of files `keeping` accepts are kept; any other instruction answers nil. A file it
/// cannot read (no debug information, compressed sections, another format) gives an empty
/// table: every answer is then nil, never a wrong line.
package struct DebugLineTable: Sendable {
    /// One row: the instructions from `address` up to the next row's belong to `line` of
    /// `files[file]`; `file` is -1 for instructions of no kept file (or past a sequence's end).
    private struct Row {
        var address: UInt64
        var file: Int32
        var line: Int32
    }

    private var rows: [Row] = []
    private var files: [String] = []
    /// The link-time address of the file's first byte (``ELFSections/firstSegmentAddress``).
    package private(set) var firstSegmentAddress: UInt64?

    /// The table of the ELF file at `path`, with the lines of the files whose path `keeping`
    /// accepts.
    package init(elfFile path: String, keeping: (String) -> Bool) {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path), options: .alwaysMapped),
            let sections = ELFSections(data), let lines = sections.section(named: ".debug_line")
        else { return }
        firstSegmentAddress = sections.firstSegmentAddress
        let lineStrings = sections.section(named: ".debug_line_str")
        var indices: [String: Int32] = [:]
        var kept: [String] = []
        var collected: [Row] = []
        var reader = ByteReader(lines)
        while !reader.isAtEnd {
            let start = reader.position
            let read = LineProgram(reading: &reader, lineStrings: lineStrings)
            // A unit whose length cannot be read ends the section; one that cannot be read
            // otherwise is passed over, its length known.
            guard read != nil || reader.position > start + 4 else { break }
            guard let unit = read else { continue }
            let fileIndices = unit.files.map { path -> Int32 in
                if let known = indices[path] { return known }
                let index: Int32 = keeping(path) ? Int32(kept.count) : -1
                if index >= 0 { kept.append(path) }
                indices[path] = index
                return index
            }
            // A unit of none of the kept files (the runner's own code) adds nothing: the end of
            // each sequence already closes what a kept unit's rows cover.
            guard fileIndices.contains(where: { $0 >= 0 }) else { continue }
            unit.run { address, file, line, endsSequence in
                let index = endsSequence ? -1 : fileIndices.indices.contains(file) ? fileIndices[file] : -1
                collected.append(Row(address: address, file: index, line: Int32(clamping: line)))
            }
        }
        // Where a sequence ends at the address the next begins, the end comes first, so the
        // address belongs to the beginning.
        rows = collected.sorted { ($0.address, $0.file < 0 ? 0 : 1) < ($1.address, $1.file < 0 ? 0 : 1) }
        files = kept
    }

    /// The file and line of the instruction at `address` (a link-time address), when it lies in
    /// a kept file; line 0 is an instruction the compiler gave no line (a thunk, a jump back).
    package func location(of address: UInt64) -> (file: String, line: Int)? {
        var low = 0, high = rows.count
        while low < high {
            let middle = (low + high) / 2
            if rows[middle].address <= address { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let row = rows[low - 1]
        guard row.file >= 0 else { return nil }
        return (files[Int(row.file)], Int(row.line))
    }
}
