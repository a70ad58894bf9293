import Foundation

/// The section headers of a 64-bit little-endian ELF file.
package struct ELFSections {
    private let data: Data
    private var sections: [String: (offset: Int, size: Int, compressed: Bool)] = [:]
    /// The link-time address of the file's first byte (its loadable segment at offset 0): what
    /// the load address of the image is subtracted from to make a runtime address a link-time one.
    package private(set) var firstSegmentAddress: UInt64?

    package init?(_ data: Data) {
        self.data = data
        let header = ByteReader(Self.bytes(data, 0, 64))
        guard header.bytes(at: 0, count: 4) == [0x7f, 0x45, 0x4c, 0x46], header.byte(at: 4) == 2,
            header.byte(at: 5) == 1
        else { return nil }
        let entrySize = Int(header.integer(UInt16.self, at: 0x3a)), count = Int(header.integer(UInt16.self, at: 0x3c))
        let table = ByteReader(
            Self.bytes(data, Int(clamping: header.integer(UInt64.self, at: 0x28)), entrySize * count))
        let namesIndex = Int(header.integer(UInt16.self, at: 0x3e))
        guard entrySize >= 64, namesIndex < count, table.data.count == entrySize * count else { return nil }
        func entry(_ index: Int) -> (name: Int, flags: UInt64, offset: Int, size: Int) {
            let at = index * entrySize
            return (
                Int(table.integer(UInt32.self, at: at)), table.integer(UInt64.self, at: at + 8),
                Int(clamping: table.integer(UInt64.self, at: at + 24)),
                Int(clamping: table.integer(UInt64.self, at: at + 32))
            )
        }
        let names = ByteReader(Self.bytes(data, entry(namesIndex).offset, entry(namesIndex).size))
        for index in 0..<count {
            let section = entry(index)
            guard section.offset <= data.count, section.size <= data.count - section.offset else { continue }
            // Flag 0x800 is SHF_COMPRESSED.
            sections[names.cString(at: section.name)] = (section.offset, section.size, section.flags & 0x800 != 0)
        }
        let segmentSize = Int(header.integer(UInt16.self, at: 0x36)),
            segments = Int(header.integer(UInt16.self, at: 0x38))
        let segmentTable = ByteReader(
            Self.bytes(data, Int(clamping: header.integer(UInt64.self, at: 0x20)), segmentSize * segments))
        firstSegmentAddress = (0..<segments).lazy.map { $0 * segmentSize }.first { at in
            // A PT_LOAD (type 1) segment at offset 0.
            segmentTable.integer(UInt32.self, at: at) == 1 && segmentTable.integer(UInt64.self, at: at + 8) == 0
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
