/// One unit's line program: its header's file table, and its opcodes.
struct LineProgram {
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
        var length = UInt64(reader.readUInt32())
        let isDWARF64 = length == 0xffff_ffff
        if isDWARF64 { length = reader.readUInt64() }
        let unitStart = reader.position
        guard length <= UInt64(reader.remaining) else { return nil }
        defer { reader.position = unitStart + Int(length) }
        let version = reader.readUInt16()
        guard (2...5).contains(version) else { return nil }
        if version >= 5 { reader.position += 2 } // address and segment selector sizes
        let headerLength = isDWARF64 ? Int(clamping: reader.readUInt64()) : Int(reader.readUInt32())
        let programStart = reader.position + headerLength
        minimumInstructionLength = UInt64(reader.readByte())
        if version >= 4 { reader.position += 1 } // maximum operations per instruction
        reader.position += 1 // default_is_stmt
        lineBase = Int64(Int8(bitPattern: reader.readByte()))
        lineRange = max(1, UInt64(reader.readByte()))
        opcodeBase = reader.readByte()
        standardOpcodeLengths = (1..<max(1, Int(opcodeBase))).map { _ in reader.readByte() }
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
                _ = reader.readULEB() // modification time
                _ = reader.readULEB() // length
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
            let opcode = reader.readByte()
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
                switch length > 0 ? reader.readByte() : 0 {
                case 1: emit(ends: true); reset()
                case 2: address = length == 9 ? reader.readUInt64() : UInt64(reader.readUInt32())
                default: break
                }
                reader.position = next
            case 1: emit()
            case 2: address &+= reader.readULEB() &* minimumInstructionLength
            case 3: line += reader.readSLEB()
            case 4: file = Int64(clamping: reader.readULEB())
            case 8: address &+= (255 - UInt64(opcodeBase)) / lineRange * minimumInstructionLength
            case 9: address &+= UInt64(reader.readUInt16())
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
        let formats = (0..<Int(reader.readByte())).map { _ in (content: reader.readULEB(), form: reader.readULEB()) }
        let count = Int(clamping: reader.readULEB())
        return (0..<min(count, 1 << 20)).map { _ in
            var entry = Entry()
            for format in formats {
                let value = readForm(format.form)
                // Content 1 is DW_LNCT_path, 2 DW_LNCT_directory_index.
                if format.content == 1, let text = value.text { entry.path = text }
                if format.content == 2, let number = value.number { entry.directory = Int(clamping: number) }
            }
            return entry
        }
    }

    private mutating func readForm(_ form: UInt64) -> (text: String?, number: UInt64?) {
        switch form {
        case 0x08: return (reader.readCString(), nil) // DW_FORM_string
        case 0x1f, 0x0e: // DW_FORM_line_strp, DW_FORM_strp (only .debug_line_str is read)
            let offset = isDWARF64 ? Int(clamping: reader.readUInt64()) : Int(reader.readUInt32())
            return (form == 0x1f ? lineStrings.map { ByteReader($0).cString(at: offset) } : nil, nil)
        case 0x0b: return (nil, UInt64(reader.readByte()))
        case 0x05: return (nil, UInt64(reader.readUInt16()))
        case 0x06: return (nil, UInt64(reader.readUInt32()))
        case 0x07: return (nil, reader.readUInt64())
        case 0x0f: return (nil, reader.readULEB())
        case 0x1e: reader.position += 16; return (nil, nil) // DW_FORM_data16 (an MD5)
        case 0x09: reader.position += Int(clamping: reader.readULEB()); return (nil, nil) // DW_FORM_block
        default: reader.overran = true; return (nil, nil)
        }
    }
}

extension Array {
    /// The element at `index`, or nil past either end: a table index read from a file may be
    /// anything.
    fileprivate subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
