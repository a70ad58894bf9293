// The articles' image filters, written for `RGBAImage` because Linux has no
// Core Image: the blur "radius 6 masked by a top-and-bottom gradient" of
// FilterOperation, and the "photo effect instant" + vignette of
// PostProcessImageOperation.
//
// Every filter is a pure function of its input: same image, same bytes out.
// Every filter copies the alpha channel unchanged; only R, G and B change.
// Where a result is not an integer it is rounded to the nearest one.

extension RGBAImage {
    /// A box blur of the colour channels: each of R, G, B becomes the mean of
    /// the `(2·radius + 1) × (2·radius + 1)` square of pixels around it.
    ///
    /// Done as two separable passes of a sliding-window box filter, first
    /// along each row, then along each column, so the cost does not depend on
    /// the radius. After each pass the mean is rounded to the nearest integer,
    /// halves up: `(sum + radius) / (2·radius + 1)` in integer arithmetic. For
    /// a single pixel of 255 on black and radius 1, the row pass gives 85 in
    /// three pixels and the column pass 28 in the 3×3 square around it.
    ///
    /// Edges are clamped: a window that runs off the image repeats the edge
    /// pixel (the pixel at `x = -1` is the pixel at `x = 0`).
    ///
    /// Alpha is copied unchanged from `self`. A radius of 0 returns `self`.
    ///
    /// - Precondition: `radius >= 0`.
    public func blurred(radius: Int) -> RGBAImage {
        precondition(radius >= 0, "blurred(radius:): negative radius \(radius)")
        guard radius > 0, width > 0, height > 0 else { return self }
        var rowsDone = [UInt8](repeating: 0, count: pixels.count)
        var result = pixels // keeps the alpha bytes; R, G, B are overwritten
        let (w, h) = (width, height)
        pixels.withUnsafeBufferPointer { source in
            rowsDone.withUnsafeMutableBufferPointer { middle in
                // Along each row: `w` pixels 4 bytes apart, rows `4·w` bytes apart.
                boxBlurPass(
                    from: source.baseAddress!, to: middle.baseAddress!,
                    count: w, step: 4, lines: h, lineStep: 4 * w, radius: radius)
            }
        }
        rowsDone.withUnsafeBufferPointer { middle in
            result.withUnsafeMutableBufferPointer { out in
                // Along each column: `h` pixels `4·w` bytes apart, columns 4 bytes apart.
                boxBlurPass(
                    from: middle.baseAddress!, to: out.baseAddress!,
                    count: h, step: 4 * w, lines: w, lineStep: 4, radius: radius)
            }
        }
        return RGBAImage(width: width, height: height, pixels: result)
    }

    /// The weight of the blurred image in row `y` of an image `height` rows high,
    /// used by ``mistedTopAndBottom(radius:)``.
    ///
    /// `mask(y) = max(0, 1 − d / q)` where `d = min(y, height − 1 − y)` is the
    /// number of rows between row `y` and the nearer of the top and bottom rows,
    /// and `q = height / 4` (a real number). So the top and bottom rows are 1,
    /// the weight falls linearly to 0 over the top quarter and the bottom
    /// quarter, and the middle half is 0. For 128 rows: 1 at rows 0 and 127,
    /// 0.5 at rows 16 and 111, 0 from row 32 to row 95. For 3 rows: 1, 0, 1.
    /// For 8 rows: 1, 0.5, 0, 0, 0, 0, 0.5, 1.
    public static func mistMask(y: Int, height: Int) -> Double {
        let d = Double(min(y, height - 1 - y))
        let q = Double(height) / 4
        return max(0, 1 - d / q)
    }

    /// The article's filter: the image blurred with ``blurred(radius:)`` at the
    /// top and bottom, sharp in the middle (a blur masked by a top-and-bottom
    /// gradient).
    ///
    /// Each colour channel of row `y` is
    /// `round((1 − m) · original + m · blurred)` with `m =`
    /// ``mistMask(y:height:)`` (ties rounded away from zero): rows where `m` is
    /// 1 (the top and bottom rows) are exactly the blurred image, rows where
    /// `m` is 0 (the middle half) are exactly the original. The blur itself
    /// sees the whole image, so a middle pixel still spreads into the blurred
    /// rows within `radius` of it. Alpha is copied unchanged.
    ///
    /// - Precondition: `radius >= 0`.
    public func mistedTopAndBottom(radius: Int = 6) -> RGBAImage {
        let blur = blurred(radius: radius)
        var result = pixels
        let rowBytes = 4 * width
        blur.pixels.withUnsafeBufferPointer { blurredBytes in
            result.withUnsafeMutableBufferPointer { out in
                for y in 0..<height {
                    let m = Self.mistMask(y: y, height: height)
                    if m == 0 { continue } // original row, already in place
                    let start = y * rowBytes
                    if m == 1 {
                        for i in start..<start + rowBytes { out[i] = blurredBytes[i] }
                        continue
                    }
                    let keep = 1 - m
                    var i = start
                    while i < start + rowBytes {
                        for c in i..<i + 3 {
                            out[c] = UInt8((keep * Double(out[c]) + m * Double(blurredBytes[c])).rounded())
                        }
                        i += 4 // alpha untouched
                    }
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: result)
    }

    /// A warm, faded "instant camera" look, after Core Image's
    /// `CIPhotoEffectInstant`: less saturated, blacks lifted, warm tint.
    ///
    /// Per pixel, in integer arithmetic (`/` rounds down, all values are ≥ 0):
    /// 1. luma `L = (299·R + 587·G + 114·B + 500) / 1000` (Rec. 601, rounded);
    /// 2. each channel `c` is moved a quarter of the way to the luma,
    ///    `s = (L + 3·c) / 4` as a real number (75 % saturation);
    /// 3. blacks are lifted and whites toned down, `f = round(24 + 0.9·s)`
    ///    with halves up, i.e. `f = (960 + 9·(L + 3·c) + 20) / 40`;
    /// 4. warm tint: red `f + 12`, green `f + 2`, blue `f − 14`, clamped to 0...255.
    ///
    /// So black becomes (36, 26, 10), white (255, 255, 240), mid grey 128
    /// becomes (151, 141, 125). Alpha is copied unchanged.
    public func instantEffect() -> RGBAImage {
        var result = pixels
        result.withUnsafeMutableBufferPointer { p in
            var i = 0
            while i < p.count {
                let r = Int(p[i]), g = Int(p[i + 1]), b = Int(p[i + 2])
                let luma = (299 * r + 587 * g + 114 * b + 500) / 1000
                let base = 980 + 9 * luma // 960 + 20 for rounding, plus 9·L
                p[i] = Self.clampByte((base + 27 * r) / 40 + 12)
                p[i + 1] = Self.clampByte((base + 27 * g) / 40 + 2)
                p[i + 2] = Self.clampByte((base + 27 * b) / 40 - 14)
                i += 4
            }
        }
        return RGBAImage(width: width, height: height, pixels: result)
    }

    /// Darkens the image towards its corners.
    ///
    /// Each colour channel is multiplied by `1 − strength · (d / dMax)²`, then
    /// rounded (ties away from zero), where `d` is the distance from the
    /// pixel's centre `(x + 0.5, y + 0.5)` to the image's centre
    /// `(width / 2, height / 2)` and `dMax` the distance from the image's
    /// centre to a corner, `√((width / 2)² + (height / 2)²)`. `strength` is
    /// clamped to 0...1: 0 changes nothing; 0.5 darkens a corner pixel of a
    /// large image by almost half. The centre pixel of an odd-sized image is
    /// unchanged. In a 3×3 image the factor is 1 at the centre, 1 − 0.5·(1/4.5)
    /// at the middle of an edge and 1 − 0.5·(2/4.5) at a corner.
    /// Alpha is copied unchanged.
    public func vignetted(strength: Double = 0.5) -> RGBAImage {
        let s = min(max(strength, 0), 1)
        guard s > 0, width > 0, height > 0 else { return self }
        let cx = Double(width) / 2, cy = Double(height) / 2
        let scale = s / (cx * cx + cy * cy)
        // (dx² · scale) per column and (dy² · scale) per row; the factor is 1 − their sum.
        let columnTerms = (0..<width).map { x in
            let dx = Double(x) + 0.5 - cx; return dx * dx * scale
        }
        let rowTerms = (0..<height).map { y in
            let dy = Double(y) + 0.5 - cy; return dy * dy * scale
        }
        var result = pixels
        result.withUnsafeMutableBufferPointer { p in
            columnTerms.withUnsafeBufferPointer { columns in
                var i = 0
                for y in 0..<height {
                    let rowTerm = rowTerms[y]
                    for x in 0..<width {
                        let factor = 1 - (columns[x] + rowTerm)
                        p[i] = UInt8((Double(p[i]) * factor).rounded())
                        p[i + 1] = UInt8((Double(p[i + 1]) * factor).rounded())
                        p[i + 2] = UInt8((Double(p[i + 2]) * factor).rounded())
                        i += 4
                    }
                }
            }
        }
        return RGBAImage(width: width, height: height, pixels: result)
    }

    /// The ImageProvider's post-processing: ``instantEffect()`` then
    /// ``vignetted(strength:)`` with the default strength 0.5.
    public func postProcessed() -> RGBAImage {
        instantEffect().vignetted()
    }

    @inline(__always)
    static func clampByte(_ value: Int) -> UInt8 {
        UInt8(min(max(value, 0), 255))
    }
}

/// One pass of a sliding-window box filter over the R, G and B bytes of
/// `lines` lines of `count` pixels each (alpha bytes of `destination` are not
/// written).
///
/// Pixel `i` of line `l` starts at byte `l·lineStep + i·step`. The window is
/// `2·radius + 1` pixels wide, clamped at both ends of the line, and its mean
/// is rounded halves up. The running sum is updated by adding the pixel that
/// enters the window and subtracting the one that leaves, so each output costs
/// the same whatever the radius.
private func boxBlurPass(
    from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>,
    count: Int, step: Int, lines: Int, lineStep: Int, radius: Int
) {
    let window = 2 * radius + 1
    let last = count - 1
    for line in 0..<lines {
        for channel in 0..<3 {
            let input = source + (line * lineStep + channel)
            let output = destination + (line * lineStep + channel)
            // Window centred on pixel 0: the pixels -radius...-1 are copies of pixel 0.
            var sum = radius * Int(input[0])
            for i in 0...radius { sum += Int(input[min(i, last) * step]) }
            for i in 0..<count {
                output[i * step] = UInt8((sum + radius) / window)
                let entering = i + radius + 1, leaving = i - radius
                sum += Int(input[(entering < last ? entering : last) * step])
                sum -= Int(input[(leaving > 0 ? leaving : 0) * step])
            }
        }
    }
}
