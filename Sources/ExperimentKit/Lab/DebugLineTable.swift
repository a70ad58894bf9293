import Foundation
import ExperimentModel

/// Which line of which file each instruction of an executable belongs to, read once from its
/// DWARF line programs (`.debug_line`, versions 2 to 5, 64-bit little-endian ELF).
///
/// The toolchain's own symbolication re-reads the debug information at every call (tens of
/// milliseconds on this package's executable); this table reads it once (a few milliseconds) and
/// answers each address with a binary search, so a run can afford to ask for every print's line.
/// Only lines of files `keeping` accepts are kept; any other instruction answers nil. A file it
/// cannot read (no debug information, compressed sections, another format) gives an empty
/// table: every answer is then nil, never a wrong line.
struct DebugLineTable: Sendable {
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
    private(set) var firstSegmentAddress: UInt64?

    /// The table of the ELF file at `path`, with the lines of the files whose path `keeping`
    /// accepts.
    init(elfFile path: String, keeping: (String) -> Bool) {
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
                let index = endsSequence ? -1 : fileIndices[safe: file] ?? -1
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
    func location(of address: UInt64) -> (file: String, line: Int)? {
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

/// The section headers of a 64-bit little-endian ELF file.
struct ELFSections {
    private let data: Data
    private var sections: [String: (offset: Int, size: Int, compressed: Bool)] = [:]
    /// The link-time address of the file's first byte (its loadable segment at offset 0): what
    /// the load address of the image is subtracted from to make a runtime address a link-time one.
    private(set) var firstSegmentAddress: UInt64?

    init?(_ data: Data) {
        self.data = data
        let header = ByteReader(Self.bytes(data, 0, 64))
        guard header.bytes(at: 0, count: 4) == [0x7f, 0x45, 0x4c, 0x46], header.byte(at: 4) == 2, header.byte(at: 5) == 1 else { return nil }
        let entrySize = Int(header.integer(UInt16.self, at: 0x3a)), count = Int(header.integer(UInt16.self, at: 0x3c))
        let table = ByteReader(Self.bytes(data, Int(clamping: header.integer(UInt64.self, at: 0x28)), entrySize * count))
        let namesIndex = Int(header.integer(UInt16.self, at: 0x3e))
        guard entrySize >= 64, namesIndex < count, table.data.count == entrySize * count else { return nil }
        func entry(_ index: Int) -> (name: Int, flags: UInt64, offset: Int, size: Int) {
            let at = index * entrySize
            return (Int(table.integer(UInt32.self, at: at)), table.integer(UInt64.self, at: at + 8),
                    Int(clamping: table.integer(UInt64.self, at: at + 24)), Int(clamping: table.integer(UInt64.self, at: at + 32)))
        }
        let names = ByteReader(Self.bytes(data, entry(namesIndex).offset, entry(namesIndex).size))
        for index in 0..<count {
            let section = entry(index)
            guard section.offset <= data.count, section.size <= data.count - section.offset else { continue }
            sections[names.cString(at: section.name)] = (section.offset, section.size, section.flags & 0x800 != 0)  // SHF_COMPRESSED
        }
        let segmentSize = Int(header.integer(UInt16.self, at: 0x36)), segments = Int(header.integer(UInt16.self, at: 0x38))
        let segmentTable = ByteReader(Self.bytes(data, Int(clamping: header.integer(UInt64.self, at: 0x20)), segmentSize * segments))
        firstSegmentAddress = (0..<segments).lazy.map { $0 * segmentSize }.first { at in
            segmentTable.integer(UInt32.self, at: at) == 1 && segmentTable.integer(UInt64.self, at: at + 8) == 0  // PT_LOAD at offset 0
        }.map { segmentTable.integer(UInt64.self, at: $0 + 16) }
    }

    /// The bytes of the named section; nil when it is missing or compressed.
    func section(named name: String) -> [UInt8]? {
        guard let section = sections[name], !section.compressed else { return nil }
        return Self.bytes(data, section.offset, section.size)
    }

    /// `count` bytes from `offset`, fewer where the file ends first.
    private static func bytes(_ data: Data, _ offset: Int, _ count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < data.count else { return [] }
        let start = data.startIndex + offset
        return Array(data[start..<start + min(count, data.count - offset)])
    }
}

/// One unit's line program: its header's file table, and its opcodes.
private struct LineProgram {
    var files: [String]
    private var minimumInstructionLength: UInt64 = 1
    private var lineBase: Int64 = 0
    private var lineRange: UInt64 = 1
    private var opcodeBase: UInt8 = 1
    private var standardOpcodeLengths: [UInt8] = []
    private var program: ByteReader
    /// Whether the file table is numbered from 1 (before version 5) or from 0. The file register
    /// starts at 1 either way.
    private var filesCountFromOne = true

    /// Reads the unit at the reader's position and moves past it; nil for a unit it cannot read.
    init?(reading reader: inout ByteReader, lineStrings: [UInt8]?) {
        var length = UInt64(reader.read(UInt32.self))
        let isDWARF64 = length == 0xffff_ffff
        if isDWARF64 { length = reader.read(UInt64.self) }
        let unitStart = reader.position
        guard length <= UInt64(reader.remaining) else { return nil }
        defer { reader.position = unitStart + Int(length) }
        let version = reader.read(UInt16.self)
        guard (2...5).contains(version) else { return nil }
        if version >= 5 { reader.position += 2 }  // address and segment selector sizes
        let headerLength = isDWARF64 ? Int(clamping: reader.read(UInt64.self)) : Int(reader.read(UInt32.self))
        let programStart = reader.position + headerLength
        minimumInstructionLength = UInt64(reader.read(UInt8.self))
        if version >= 4 { reader.position += 1 }  // maximum operations per instruction
        reader.position += 1  // default_is_stmt
        lineBase = Int64(Int8(bitPattern: reader.read(UInt8.self)))
        lineRange = max(1, UInt64(reader.read(UInt8.self)))
        opcodeBase = reader.read(UInt8.self)
        standardOpcodeLengths = (1..<max(1, Int(opcodeBase))).map { _ in reader.read(UInt8.self) }
        if version >= 5 {
            filesCountFromOne = false
            var entries = EntryReader(reader: reader, lineStrings: lineStrings, isDWARF64: isDWARF64)
            let directories = entries.readTable().map { $0.path }
            files = entries.readTable().map { entry in Self.join(directories[safe: entry.directory] ?? "", entry.path) }
            if entries.reader.overran { return nil }
        } else {
            var directories: [String] = []
            while case let directory = reader.readCString(), !directory.isEmpty { directories.append(directory) }
            files = []
            while case let name = reader.readCString(), !name.isEmpty {
                let directory = Int(reader.readULEB())
                _ = reader.readULEB()  // modification time
                _ = reader.readULEB()  // length
                files.append(Self.join(directory == 0 ? "" : directories[safe: directory - 1] ?? "", name))
            }
        }
        guard programStart <= unitStart + Int(length), !reader.overran else { return nil }
        program = ByteReader(reader.data, from: programStart, to: unitStart + Int(length))
    }

    private static func join(_ directory: String, _ name: String) -> String {
        name.hasPrefix("/") || directory.isEmpty ? name : directory + "/" + name
    }

    /// Runs the program, calling `row` with each row's address, file index (into ``files``),
    /// line, and whether it ends a sequence.
    func run(_ row: (UInt64, Int, Int64, Bool) -> Void) {
        var reader = program
        var address: UInt64 = 0, file: Int64 = 1, line: Int64 = 1
        func reset() { address = 0; file = 1; line = 1 }
        func emit(ends: Bool = false) { row(address, Int(file) - (filesCountFromOne ? 1 : 0), line, ends) }
        while !reader.isAtEnd, !reader.overran {
            let opcode = reader.read(UInt8.self)
            if opcode >= opcodeBase {
                let adjusted = UInt64(opcode - opcodeBase)
                address &+= adjusted / lineRange * minimumInstructionLength
                line += lineBase + Int64(adjusted % lineRange)
                emit()
                continue
            }
            switch opcode {
            case 0:
                let length = Int(reader.readULEB()), next = reader.position + length
                switch length > 0 ? reader.read(UInt8.self) : 0 {
                case 1: emit(ends: true); reset()
                case 2: address = length == 9 ? reader.read(UInt64.self) : UInt64(reader.read(UInt32.self))
                default: break
                }
                reader.position = next
            case 1: emit()
            case 2: address &+= reader.readULEB() &* minimumInstructionLength
            case 3: line += reader.readSLEB()
            case 4: file = Int64(clamping: reader.readULEB())
            case 8: address &+= (255 - UInt64(opcodeBase)) / lineRange * minimumInstructionLength
            case 9: address &+= UInt64(reader.read(UInt16.self))
            default:
                for _ in 0..<Int(standardOpcodeLengths[safe: Int(opcode) - 1] ?? 0) { _ = reader.readULEB() }
            }
        }
    }
}

/// The directory and file tables of a version 5 line program header, whose entries say what
/// they hold and in which form.
private struct EntryReader {
    var reader: ByteReader
    let lineStrings: [UInt8]?
    let isDWARF64: Bool

    struct Entry {
        var path = ""
        var directory = 0
    }

    mutating func readTable() -> [Entry] {
        let formats = (0..<Int(reader.read(UInt8.self))).map { _ in (content: reader.readULEB(), form: reader.readULEB()) }
        let count = Int(clamping: reader.readULEB())
        return (0..<min(count, 1 << 20)).map { _ in
            var entry = Entry()
            for format in formats {
                let value = readForm(format.form)
                if format.content == 1, let text = value.text { entry.path = text }  // DW_LNCT_path
                if format.content == 2, let number = value.number { entry.directory = Int(clamping: number) }  // DW_LNCT_directory_index
            }
            return entry
        }
    }

    private mutating func readForm(_ form: UInt64) -> (text: String?, number: UInt64?) {
        switch form {
        case 0x08: return (reader.readCString(), nil)  // DW_FORM_string
        case 0x1f, 0x0e:  // DW_FORM_line_strp, DW_FORM_strp (only .debug_line_str is read)
            let offset = isDWARF64 ? Int(clamping: reader.read(UInt64.self)) : Int(reader.read(UInt32.self))
            return (form == 0x1f ? lineStrings.map { ByteReader($0).cString(at: offset) } : nil, nil)
        case 0x0b: return (nil, UInt64(reader.read(UInt8.self)))
        case 0x05: return (nil, UInt64(reader.read(UInt16.self)))
        case 0x06: return (nil, UInt64(reader.read(UInt32.self)))
        case 0x07: return (nil, reader.read(UInt64.self))
        case 0x0f: return (nil, reader.readULEB())
        case 0x1e: reader.position += 16; return (nil, nil)  // DW_FORM_data16 (an MD5)
        case 0x09: reader.position += Int(clamping: reader.readULEB()); return (nil, nil)  // DW_FORM_block
        default: reader.overran = true; return (nil, nil)
        }
    }
}

/// Little-endian reads from bytes that never trap: a read past the end gives zeros and sets
/// ``overran``.
struct ByteReader {
    let data: [UInt8]
    var position: Int
    private let end: Int
    var overran = false

    init(_ data: [UInt8], from start: Int? = nil, to end: Int? = nil) {
        self.data = data
        position = start ?? 0
        self.end = min(end ?? data.count, data.count)
    }

    var isAtEnd: Bool { position >= end }
    var remaining: Int { max(0, end - position) }

    func byte(at offset: Int) -> UInt8 {
        offset >= 0 && offset < data.count ? data[offset] : 0
    }

    func bytes(at offset: Int, count: Int) -> [UInt8] {
        (offset..<offset + count).map(byte(at:))
    }

    func integer<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type, at offset: Int) -> T {
        (0..<MemoryLayout<T>.size).reduce(T(0)) { value, index in value | T(byte(at: offset + index)) << (8 * index) }
    }

    func cString(at offset: Int) -> String {
        var bytes: [UInt8] = []
        var index = offset
        while index < data.count, index >= 0, data[index] != 0 {
            bytes.append(data[index])
            index += 1
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    mutating func read<T: FixedWidthInteger & UnsignedInteger>(_ type: T.Type) -> T {
        let size = MemoryLayout<T>.size
        guard position + size <= end else {
            overran = true
            position = end
            return 0
        }
        defer { position += size }
        return integer(type, at: position)
    }

    mutating func readCString() -> String {
        let text = cString(at: position)
        position += text.utf8.count + 1
        if position > end { overran = true }
        return text
    }

    mutating func readULEB() -> UInt64 {
        var value: UInt64 = 0, shift: UInt64 = 0
        while true {
            let byte = read(UInt8.self)
            if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
            shift += 7
            if byte & 0x80 == 0 || overran { return value }
        }
    }

    mutating func readSLEB() -> Int64 {
        var value: Int64 = 0, shift: Int64 = 0, byte: UInt8 = 0
        repeat {
            byte = read(UInt8.self)
            if shift < 64 { value |= Int64(byte & 0x7f) << shift }
            shift += 7
        } while byte & 0x80 != 0 && !overran
        if shift < 64, byte & 0x40 != 0 { value |= -(1 << shift) }
        return value
    }
}
