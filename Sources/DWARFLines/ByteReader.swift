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

    /// The next byte; zero past the end. The line programs, in another file, read their bytes
    /// with it rather than with the generic `read(UInt8.self)`: the debug build optimises file
    /// by file, so a generic method called from another file runs unspecialised, through its
    /// protocol witnesses, several times slower for each byte of the executable's line tables.
    mutating func readByte() -> UInt8 {
        guard position < end else {
            overran = true
            position = end
            return 0
        }
        defer { position += 1 }
        return data[position]
    }

    /// The next 2, 4 or 8 bytes as an integer; zero past the end. The line programs read with
    /// these, not with the generic `read(_:)`, for the reason ``readByte()`` gives.
    mutating func readUInt16() -> UInt16 { read(UInt16.self) }
    mutating func readUInt32() -> UInt32 { read(UInt32.self) }
    mutating func readUInt64() -> UInt64 { read(UInt64.self) }

    mutating func readCString() -> String {
        let text = cString(at: position)
        position += text.utf8.count + 1
        if position > end { overran = true }
        return text
    }

    mutating func readULEB() -> UInt64 {
        var value: UInt64 = 0, shift: UInt64 = 0
        while true {
            let byte = readByte()
            if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
            shift += 7
            if byte & 0x80 == 0 || overran { return value }
        }
    }

    mutating func readSLEB() -> Int64 {
        var value: Int64 = 0, shift: Int64 = 0, byte: UInt8 = 0
        repeat {
            byte = readByte()
            if shift < 64 { value |= Int64(byte & 0x7f) << shift }
            shift += 7
        } while byte & 0x80 != 0 && !overran
        if shift < 64, byte & 0x40 != 0 { value |= -(1 << shift) }
        return value
    }
}
