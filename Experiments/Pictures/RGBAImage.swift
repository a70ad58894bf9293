/// One pixel: red, green, blue and alpha, 8 bits each.
///
/// Colour values are straight (not premultiplied by alpha). An alpha of 255
/// is opaque, 0 is fully transparent.
public struct RGBA: Sendable, Equatable, Hashable {
    /// Red, 0...255.
    public var r: UInt8
    /// Green, 0...255.
    public var g: UInt8
    /// Blue, 0...255.
    public var b: UInt8
    /// Alpha (opacity), 0 (transparent) ... 255 (opaque).
    public var a: UInt8

    /// A pixel with the given channels; opaque unless `a` says otherwise.
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// Opaque black.
    public static let black = RGBA(r: 0, g: 0, b: 0)
    /// Opaque white.
    public static let white = RGBA(r: 255, g: 255, b: 255)
    /// Transparent black: all four channels 0. Used to pad ``RGBAImage/sideBySide(_:)``.
    public static let clear = RGBA(r: 0, g: 0, b: 0, a: 0)
}

/// A picture in memory: `width × height` pixels, 8-bit RGBA, row-major.
///
/// The pixel at column `x`, row `y` (row 0 is the top) occupies
/// `pixels[4 * (y * width + x) ..< 4 * (y * width + x) + 4]` in the order
/// red, green, blue, alpha. A value type: copies are independent, and two
/// images are equal when their sizes and bytes are equal.
///
/// This stands in for `UIImage` / `CIImage`, which Linux does not have; the
/// filters (``blurred(radius:)``, ``mistedTopAndBottom(radius:)``,
/// ``postProcessed()``…) and ``PNGEncoder`` work on it.
public struct RGBAImage: Sendable, Equatable {
    /// Number of columns (0 or more).
    public let width: Int
    /// Number of rows (0 or more).
    public let height: Int
    /// The bytes, `4 * width * height` of them: R, G, B, A per pixel, row after row from the top.
    ///
    /// Read-only from outside the type so that its count always matches the size;
    /// change pixels with ``setPixel(x:y:to:)`` or the subscript.
    public private(set) var pixels: [UInt8]

    /// An image over existing bytes.
    ///
    /// - Precondition: `width >= 0`, `height >= 0` and `pixels.count == 4 * width * height`.
    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width >= 0 && height >= 0, "RGBAImage: negative size \(width)×\(height)")
        precondition(
            pixels.count == 4 * width * height,
            "RGBAImage: \(pixels.count) bytes for \(width)×\(height) pixels (needs \(4 * width * height))")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// An image of one colour.
    ///
    /// - Precondition: `width >= 0` and `height >= 0`.
    public init(width: Int, height: Int, fill: RGBA) {
        precondition(width >= 0 && height >= 0, "RGBAImage: negative size \(width)×\(height)")
        self.width = width
        self.height = height
        var bytes = [UInt8](repeating: 0, count: 4 * width * height)
        var i = 0
        while i < bytes.count {
            bytes[i] = fill.r
            bytes[i + 1] = fill.g
            bytes[i + 2] = fill.b
            bytes[i + 3] = fill.a
            i += 4
        }
        self.pixels = bytes
    }

    /// Index of the red byte of pixel (`x`, `y`) in ``pixels``.
    @inline(__always)
    func offset(x: Int, y: Int) -> Int {
        precondition(
            x >= 0 && x < width && y >= 0 && y < height,
            "RGBAImage: pixel (\(x), \(y)) outside \(width)×\(height)")
        return 4 * (y * width + x)
    }

    /// The pixel at column `x`, row `y` (row 0 is the top).
    ///
    /// - Precondition: `0 <= x < width` and `0 <= y < height`.
    public func pixel(x: Int, y: Int) -> RGBA {
        let i = offset(x: x, y: y)
        return RGBA(r: pixels[i], g: pixels[i + 1], b: pixels[i + 2], a: pixels[i + 3])
    }

    /// Replaces the pixel at column `x`, row `y` (row 0 is the top).
    ///
    /// - Precondition: `0 <= x < width` and `0 <= y < height`.
    public mutating func setPixel(x: Int, y: Int, to color: RGBA) {
        let i = offset(x: x, y: y)
        pixels[i] = color.r
        pixels[i + 1] = color.g
        pixels[i + 2] = color.b
        pixels[i + 3] = color.a
    }

    /// The pixel at column `x`, row `y`, to read or replace: `image[x: 1, y: 2]`.
    ///
    /// - Precondition: `0 <= x < width` and `0 <= y < height`.
    public subscript(x x: Int, y y: Int) -> RGBA {
        get { pixel(x: x, y: y) }
        set { setPixel(x: x, y: y, to: newValue) }
    }

    /// This image on the left and `other` on the right, touching, in one image:
    /// "before | after".
    ///
    /// The result is `width + other.width` wide and `max(height, other.height)`
    /// high. Both images are aligned to the top; the rows below the shorter one
    /// are padded with transparent black (``RGBA/clear``, all four bytes 0).
    public func sideBySide(_ other: RGBAImage) -> RGBAImage {
        let outWidth = width + other.width
        let outHeight = max(height, other.height)
        var bytes = [UInt8](repeating: 0, count: 4 * outWidth * outHeight)
        let outRow = 4 * outWidth
        let leftRow = 4 * width
        let rightRow = 4 * other.width
        for y in 0..<outHeight {
            if y < height {
                bytes.replaceSubrange(
                    y * outRow..<y * outRow + leftRow,
                    with: pixels[y * leftRow..<(y + 1) * leftRow])
            }
            if y < other.height {
                bytes.replaceSubrange(
                    y * outRow + leftRow..<(y + 1) * outRow,
                    with: other.pixels[y * rightRow..<(y + 1) * rightRow])
            }
        }
        return RGBAImage(width: outWidth, height: outHeight, pixels: bytes)
    }
}
