import Foundation

/// Writes an ``RGBAImage`` as a PNG file, so that the experiments' pictures
/// (before and after filtering) can be opened in any viewer.
///
/// The file is the simplest valid PNG, without compression:
/// - the 8-byte signature `89 50 4E 47 0D 0A 1A 0A`;
/// - `IHDR`: width, height (4 bytes each, big-endian), bit depth 8, colour
///   type 6 (RGBA), compression 0, filter 0, interlace 0;
/// - one or more `IDAT` chunks (at most 65,536 data bytes each) carrying one
///   zlib stream: header `78 01`, the scanlines in *stored* (uncompressed)
///   deflate blocks of at most 65,535 bytes, and the Adler-32 of the
///   scanlines, big-endian. Each scanline is filter type 0 (None) followed by
///   the row's `4 · width` bytes;
/// - `IEND`.
///
/// Every chunk is its data length (4 bytes, big-endian), its 4-letter type,
/// its data, and the CRC-32 of type and data.
public enum PNGEncoder {
    /// The PNG file for `image`.
    ///
    /// - Precondition: `image.width >= 1` and `image.height >= 1` (PNG has no empty images).
    public static func encode(_ image: RGBAImage) -> Data {
        Data(encodeBytes(image))
    }

    /// The first eight bytes of every PNG file.
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// ``encode(_:)`` as bytes, with the block and chunk sizes as parameters so
    /// that tests can make small images use several of each.
    static func encodeBytes(_ image: RGBAImage, maxIDATLength: Int = 65_536, maxBlockLength: Int = 65_535) -> [UInt8] {
        precondition(image.width >= 1 && image.height >= 1, "PNGEncoder: PNG needs at least 1×1 pixels")
        precondition(maxIDATLength >= 1 && maxBlockLength >= 1 && maxBlockLength <= 65_535)
        var header: [UInt8] = []
        header.appendBigEndian(UInt32(image.width))
        header.appendBigEndian(UInt32(image.height))
        header += [8, 6, 0, 0, 0] // bit depth, colour type RGBA, compression, filter, interlace

        let stream = zlibStored(scanlines(of: image), maxBlockLength: maxBlockLength)

        var file = signature
        appendChunk("IHDR", header, to: &file)
        var start = 0
        repeat {
            let end = min(start + maxIDATLength, stream.count)
            appendChunk("IDAT", Array(stream[start..<end]), to: &file)
            start = end
        } while start < stream.count
        appendChunk("IEND", [], to: &file)
        return file
    }

    /// The image's rows, each prefixed with filter type 0: `height · (1 + 4 · width)` bytes.
    static func scanlines(of image: RGBAImage) -> [UInt8] {
        let rowBytes = 4 * image.width
        var bytes: [UInt8] = []
        bytes.reserveCapacity(image.height * (rowBytes + 1))
        for y in 0..<image.height {
            bytes.append(0)
            bytes += image.pixels[y * rowBytes..<(y + 1) * rowBytes]
        }
        return bytes
    }

    /// A zlib stream (RFC 1950) holding `data` in stored deflate blocks (RFC 1951, BTYPE 00).
    ///
    /// Header `78 01` (deflate, 32 KiB window, no dictionary; `0x7801` is a
    /// multiple of 31 as the check requires). Each block is one byte `BFINAL`
    /// (1 for the last block, else 0, with BTYPE 00 and padding to the byte
    /// boundary), `LEN` and `NLEN = ~LEN` (2 bytes each, little-endian), then
    /// `LEN` bytes of data. Empty data gives one empty final block. The stream
    /// ends with ``adler32(_:)`` of `data`, big-endian.
    static func zlibStored(_ data: [UInt8], maxBlockLength: Int = 65_535) -> [UInt8] {
        precondition(maxBlockLength >= 1 && maxBlockLength <= 65_535)
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(data.count + 5 * (data.count / maxBlockLength + 1) + 6)
        var start = 0
        repeat {
            let end = min(start + maxBlockLength, data.count)
            let length = UInt16(end - start)
            out.append(end == data.count ? 1 : 0)
            out += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            out += data[start..<end]
            start = end
        } while start < data.count
        out.appendBigEndian(adler32(data))
        return out
    }

    /// Appends a chunk: length, type, data, CRC-32 of type and data.
    static func appendChunk(_ type: String, _ data: [UInt8], to file: inout [UInt8]) {
        let typeBytes = Array(type.utf8)
        precondition(typeBytes.count == 4, "PNG chunk types are four ASCII letters")
        file.appendBigEndian(UInt32(data.count))
        file += typeBytes
        file += data
        file.appendBigEndian(crc32(typeBytes + data))
    }

    /// CRC-32 as PNG (and zlib, gzip, Ethernet) define it: reflected polynomial
    /// `0xEDB88320`, initial value and final XOR `0xFFFFFFFF`. Table-driven,
    /// one byte at a time. `crc32("123456789") == 0xCBF43926`.
    public static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        crcTable.withUnsafeBufferPointer { table in
            bytes.withUnsafeBufferPointer { input in
                for byte in input {
                    crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
                }
            }
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// The CRC of every byte value: entry `n` is `n` run through eight rounds of shift-and-XOR.
    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 {
            c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1
        }
        return c
    }

    /// Adler-32 (RFC 1950): `a` = 1 + sum of the bytes, `b` = sum of the
    /// successive `a`s, both modulo 65521; the result is `b << 16 | a`.
    /// The modulo is taken every 5552 bytes, the most that cannot overflow
    /// 32 bits. `adler32("Wikipedia") == 0x11E60398`.
    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        let modulus: UInt32 = 65_521
        var a: UInt32 = 1, b: UInt32 = 0
        bytes.withUnsafeBufferPointer { input in
            var start = 0
            while start < input.count {
                let end = min(start + 5_552, input.count)
                for i in start..<end {
                    a &+= UInt32(input[i])
                    b &+= a
                }
                a %= modulus
                b %= modulus
                start = end
            }
        }
        return b << 16 | a
    }
}

extension Array where Element == UInt8 {
    /// Appends the four bytes of `value`, most significant first (PNG's and zlib's byte order).
    fileprivate mutating func appendBigEndian(_ value: UInt32) {
        append(UInt8(value >> 24))
        append(UInt8((value >> 16) & 0xFF))
        append(UInt8((value >> 8) & 0xFF))
        append(UInt8(value & 0xFF))
    }
}
