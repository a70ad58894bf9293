import Foundation
import TestSupport
import Testing

@testable import Experiments
@testable import Pictures

// Expected values below are worked out by hand from the formulas documented on
// each filter; the comments show the arithmetic.

/// An opaque grey pixel.
private func grey(_ v: UInt8, alpha: UInt8 = 255) -> RGBA {
    RGBA(r: v, g: v, b: v, a: alpha)
}

/// An image from rows of pixels, top row first.
private func image(_ rows: [[RGBA]]) -> RGBAImage {
    var bytes: [UInt8] = []
    for row in rows {
        for p in row { bytes += [p.r, p.g, p.b, p.a] }
    }
    return RGBAImage(width: rows.first?.count ?? 0, height: rows.count, pixels: bytes)
}

/// The image's red channel as rows (tests whose images are grey only need one channel).
private func redRows(_ image: RGBAImage) -> [[UInt8]] {
    (0..<image.height).map { y in (0..<image.width).map { x in image.pixel(x: x, y: y).r } }
}

private func alphaBytes(_ image: RGBAImage) -> [UInt8] {
    stride(from: 3, to: image.pixels.count, by: 4).map { image.pixels[$0] }
}

@Suite(.serialized, .oneAtATime) struct RGBAImageTests {
    @Test func layoutIsRowMajorRGBA() {
        var img = RGBAImage(width: 3, height: 2, fill: RGBA(r: 1, g: 2, b: 3, a: 4))
        #expect(img.pixels.count == 24)
        #expect(Array(img.pixels[0..<8]) == [1, 2, 3, 4, 1, 2, 3, 4])
        img.setPixel(x: 2, y: 1, to: RGBA(r: 9, g: 8, b: 7, a: 6))
        // (x 2, y 1) is pixel 1·3 + 2 = 5, bytes 20..<24.
        #expect(Array(img.pixels[20..<24]) == [9, 8, 7, 6])
        #expect(img.pixel(x: 2, y: 1) == RGBA(r: 9, g: 8, b: 7, a: 6))
        img[x: 0, y: 1] = .white
        #expect(Array(img.pixels[12..<16]) == [255, 255, 255, 255])
        #expect(img[x: 0, y: 1] == .white)
        #expect(img[x: 1, y: 1] == RGBA(r: 1, g: 2, b: 3, a: 4))
    }

    @Test func initFromBytesAndEquality() {
        let a = RGBAImage(width: 1, height: 2, pixels: [10, 20, 30, 40, 50, 60, 70, 80])
        #expect(a.pixel(x: 0, y: 1) == RGBA(r: 50, g: 60, b: 70, a: 80))
        #expect(a == image([[RGBA(r: 10, g: 20, b: 30, a: 40)], [RGBA(r: 50, g: 60, b: 70, a: 80)]]))
        #expect(a != RGBAImage(width: 2, height: 1, pixels: a.pixels))
        #expect(RGBA(r: 1, g: 2, b: 3).a == 255)
    }

    @Test func sideBySidePadsTheShorterWithClear() {
        let red = RGBA(r: 255, g: 0, b: 0), green = RGBA(r: 0, g: 255, b: 0), blue = RGBA(r: 0, g: 0, b: 255)
        let before = image([[red, green], [blue, .white]])
        let after = image([[grey(1), grey(2), grey(3)]])
        let both = before.sideBySide(after)
        #expect(both.width == 5 && both.height == 2)
        #expect((0..<5).map { both.pixel(x: $0, y: 0) } == [red, green, grey(1), grey(2), grey(3)])
        #expect((0..<5).map { both.pixel(x: $0, y: 1) } == [blue, .white, .clear, .clear, .clear])

        let swapped = after.sideBySide(before)
        #expect(swapped.width == 5 && swapped.height == 2)
        #expect((0..<5).map { swapped.pixel(x: $0, y: 0) } == [grey(1), grey(2), grey(3), red, green])
        #expect((0..<5).map { swapped.pixel(x: $0, y: 1) } == [.clear, .clear, .clear, blue, .white])
    }
}

@Suite(.serialized, .oneAtATime) struct ImageFilterTests {
    @Test func blurSpreadsOneBrightPixelOverItsNeighbours() {
        // 5×5, white at the centre. Row pass (radius 1): 255/3 = 85 at x 1...3 of row 2.
        // Column pass: 85/3 = 28.3 → 28 at x 1...3, y 1...3; 0 elsewhere.
        var rows = Array(repeating: Array(repeating: grey(0), count: 5), count: 5)
        rows[2][2] = grey(255)
        let blurred = image(rows).blurred(radius: 1)
        let ring: [UInt8] = [0, 28, 28, 28, 0]
        #expect(redRows(blurred) == [[0, 0, 0, 0, 0], ring, ring, ring, [0, 0, 0, 0, 0]])
        #expect(blurred.pixel(x: 2, y: 2) == grey(28))
    }

    @Test func blurClampsAtTheEdgesPerChannel() {
        // 3×3, pixel (0, 0) = (255, 90, 30), alpha 128; the rest black, alpha 200.
        // The window at x = 0 is (x0, x0, x1): the corner pixel counts twice.
        // Red:   rows → 510/3 = 170, 255/3 = 85, 0;  columns → (0,0) 340/3 = 113.3 → 113,
        //        (1,0) 170/3 = 56.7 → 57, (0,1) 170/3 → 57, (1,1) 85/3 = 28.3 → 28.
        // Green: rows → 180/3 = 60, 90/3 = 30;  columns → 120/3 = 40, 60/3 = 20, 20, 30/3 = 10.
        // Blue:  rows → 60/3 = 20, 30/3 = 10;   columns → 40/3 = 13.3 → 13, 20/3 = 6.7 → 7, 7, 10/3 = 3.3 → 3.
        var rows = Array(repeating: Array(repeating: RGBA(r: 0, g: 0, b: 0, a: 200), count: 3), count: 3)
        rows[0][0] = RGBA(r: 255, g: 90, b: 30, a: 128)
        let blurred = image(rows).blurred(radius: 1)
        #expect(blurred.pixel(x: 0, y: 0) == RGBA(r: 113, g: 40, b: 13, a: 128))
        #expect(blurred.pixel(x: 1, y: 0) == RGBA(r: 57, g: 20, b: 7, a: 200))
        #expect(blurred.pixel(x: 0, y: 1) == RGBA(r: 57, g: 20, b: 7, a: 200))
        #expect(blurred.pixel(x: 1, y: 1) == RGBA(r: 28, g: 10, b: 3, a: 200))
        for (x, y) in [(2, 0), (2, 1), (2, 2), (0, 2), (1, 2)] {
            #expect(blurred.pixel(x: x, y: y) == RGBA(r: 0, g: 0, b: 0, a: 200))
        }
    }

    @Test func blurRadiusLargerThanTheImage() {
        // 3×1 row 0, 90, 255 with radius 2 (window 5, clamped):
        // x0: 0+0+0+90+255 = 345 → 69;  x1: 0+0+90+255+255 = 600 → 120;  x2: 0+90+255·3 = 855 → 171.
        // The single row is its own column neighbourhood: the column pass keeps the values.
        let row = image([[grey(0), grey(90), grey(255)]])
        #expect(redRows(row.blurred(radius: 2)) == [[69, 120, 171]])
        // A flat image stays flat, whatever the radius.
        let flat = RGBAImage(width: 4, height: 2, fill: RGBA(r: 10, g: 120, b: 250, a: 33))
        #expect(flat.blurred(radius: 6) == flat)
        #expect(row.blurred(radius: 0) == row)
    }

    @Test func mistMaskIsOneAtTheEdgesAndZeroInTheMiddleHalf() {
        #expect([0, 1, 2].map { RGBAImage.mistMask(y: $0, height: 3) } == [1, 0, 1])
        #expect((0..<8).map { RGBAImage.mistMask(y: $0, height: 8) } == [1, 0.5, 0, 0, 0, 0, 0.5, 1])
        #expect(
            [0, 16, 32, 64, 95, 111, 127].map { RGBAImage.mistMask(y: $0, height: 128) } == [1, 0.5, 0, 0, 0, 0.5, 1])
    }

    @Test func mistBlursTopAndBottomRowsOnly() {
        // A white middle column on black: blurred with radius 1 every pixel is 255/3 = 85
        // (rows: 85, 85, 85; columns: identical rows keep 85).
        let column = [grey(0), grey(255), grey(0)]
        let small = image([column, column, column]).mistedTopAndBottom(radius: 1)
        #expect(redRows(small) == [[85, 85, 85], [0, 255, 0], [85, 85, 85]])

        // 8 rows: mask 1, 0.5, 0, 0, 0, 0, 0.5, 1. Half-blended rows: 0.5·0 + 0.5·85 = 42.5 → 43,
        // 0.5·255 + 0.5·85 = 170.
        let tall = image(Array(repeating: column, count: 8)).mistedTopAndBottom(radius: 1)
        #expect(
            redRows(tall) == [[85, 85, 85], [43, 170, 43]]
                + Array(repeating: [0, 255, 0], count: 4) + [[43, 170, 43], [85, 85, 85]])

        // 5 rows: q = 1.25, mask 1, 0.2, 0, 0.2, 1. Row 1: 0.8·0 + 0.2·85 = 17, 0.8·255 + 0.2·85 = 221.
        let five = image(Array(repeating: column, count: 5)).mistedTopAndBottom(radius: 1)
        #expect(redRows(five) == [[85, 85, 85], [17, 221, 17], [0, 255, 0], [17, 221, 17], [85, 85, 85]])
    }

    @Test func mistOnASourceImageMatchesTheBlurAtTheEdgesAndTheOriginalInTheMiddle() throws {
        let city = try #require(SourceImages.named("city"))
        let misted = city.mistedTopAndBottom()
        let blurred = city.blurred(radius: 6)
        let rowBytes = 4 * city.width
        func row(_ img: RGBAImage, _ y: Int) -> [UInt8] { Array(img.pixels[y * rowBytes..<(y + 1) * rowBytes]) }
        #expect(row(misted, 0) == row(blurred, 0))
        #expect(row(misted, 127) == row(blurred, 127))
        for y in 32...95 { #expect(row(misted, y) == row(city, y)) }
        #expect(row(misted, 10) != row(city, 10))
    }

    @Test func instantEffectOnKnownColours() {
        // L = (299R + 587G + 114B + 500) / 1000;  f = (980 + 9L + 27c) / 40;  then +12, +2, −14, clamped.
        // Black: f = 980/40 = 24 → (36, 26, 10).
        // White: L 255, f = (980 + 2295 + 6885)/40 = 254 → (266→255, 256→255, 240).
        // Grey 128: L 128, f = (980 + 1152 + 3456)/40 = 139 → (151, 141, 125).
        // Red (255, 0, 0): L = 76745/1000 = 76; f_r = (980 + 684 + 6885)/40 = 213, f_g = f_b = 1664/40 = 41
        //   → (225, 43, 27).
        let input = image([[grey(0), grey(255, alpha: 9)], [grey(128, alpha: 0), RGBA(r: 255, g: 0, b: 0, a: 77)]])
        let out = input.instantEffect()
        #expect(out.pixel(x: 0, y: 0) == RGBA(r: 36, g: 26, b: 10, a: 255))
        #expect(out.pixel(x: 1, y: 0) == RGBA(r: 255, g: 255, b: 240, a: 9))
        #expect(out.pixel(x: 0, y: 1) == RGBA(r: 151, g: 141, b: 125, a: 0))
        #expect(out.pixel(x: 1, y: 1) == RGBA(r: 225, g: 43, b: 27, a: 77))
        // Green (10, 200, 30): L = 124310/1000 = 124 (123.81 rounded, not truncated); base 980 + 1116 = 2096;
        //   f_r = 2366/40 = 59, f_g = 7496/40 = 187, f_b = 2906/40 = 72 → (71, 189, 58).
        let green = RGBAImage(width: 1, height: 1, fill: RGBA(r: 10, g: 200, b: 30)).instantEffect()
        #expect(green.pixel(x: 0, y: 0) == RGBA(r: 71, g: 189, b: 58))
    }

    @Test func vignetteDarkensByDistanceFromTheCentre() {
        // 3×3: centre (1.5, 1.5), dMax² = 1.5² + 1.5² = 4.5, strength 0.5.
        // Centre pixel d² = 0 → ×1.  Edge middles d² = 1 → ×(1 − 0.5/4.5) = 8/9.  Corners d² = 2 → ×7/9.
        // 200·8/9 = 177.8 → 178, 100·8/9 = 88.9 → 89, 50·8/9 = 44.4 → 44;
        // 200·7/9 = 155.6 → 156, 100·7/9 = 77.8 → 78, 50·7/9 = 38.9 → 39.
        let src = RGBAImage(width: 3, height: 3, fill: RGBA(r: 200, g: 100, b: 50, a: 77))
        let out = src.vignetted()
        let centre = RGBA(r: 200, g: 100, b: 50, a: 77)
        let edge = RGBA(r: 178, g: 89, b: 44, a: 77)
        let corner = RGBA(r: 156, g: 78, b: 39, a: 77)
        #expect((0..<3).map { out.pixel(x: $0, y: 0) } == [corner, edge, corner])
        #expect((0..<3).map { out.pixel(x: $0, y: 1) } == [edge, centre, edge])
        #expect((0..<3).map { out.pixel(x: $0, y: 2) } == [corner, edge, corner])

        // 4×2: centre (2, 1), dMax² = 5. Inner columns d² = 0.5 → ×0.95; outer d² = 2.5 → ×0.75.
        let wide = RGBAImage(width: 4, height: 2, fill: grey(200)).vignetted(strength: 0.5)
        #expect(redRows(wide) == [[150, 190, 190, 150], [150, 190, 190, 150]])
        #expect(src.vignetted(strength: 0) == src)
    }

    @Test func postProcessedIsInstantThenVignette() throws {
        // Grey 128 → instant (151, 141, 125); corner ×7/9 → 117.4 → 117, 109.7 → 110, 97.2 → 97.
        let src = RGBAImage(width: 3, height: 3, fill: grey(128))
        let out = src.postProcessed()
        #expect(out.pixel(x: 1, y: 1) == RGBA(r: 151, g: 141, b: 125))
        #expect(out.pixel(x: 0, y: 0) == RGBA(r: 117, g: 110, b: 97))
        let venice = try #require(SourceImages.named("Venice"))
        #expect(venice.postProcessed() == venice.instantEffect().vignetted(strength: 0.5))
    }

    @Test func everyFilterKeepsAlphaAndSize() {
        // 7×5 with varied colours and alphas.
        var img = RGBAImage(width: 7, height: 5, fill: .clear)
        for y in 0..<5 {
            for x in 0..<7 {
                img.setPixel(
                    x: x, y: y,
                    to: RGBA(
                        r: UInt8(x * 36), g: UInt8(y * 60), b: UInt8((x * y * 13) % 256),
                        a: UInt8((x * 31 + y * 57) % 256)))
            }
        }
        let results = [
            img.blurred(radius: 2), img.mistedTopAndBottom(), img.instantEffect(),
            img.vignetted(), img.postProcessed(),
        ]
        for out in results {
            #expect(out.width == 7 && out.height == 5)
            #expect(alphaBytes(out) == alphaBytes(img))
            #expect(out != img)
        }
    }
}

@Suite(.serialized, .oneAtATime) struct SourceImagesTests {
    static let sizes: [String: (Int, Int)] = [
        "city": (192, 128), "dark_road": (192, 128), "train_day": (192, 128), "train_dusk": (192, 128),
        "train_night": (192, 128), "Eiffel Tower": (128, 192), "Venice": (256, 192), "screenshot": (144, 256),
        "arctic-12": (192, 128), "Scottish castle": (192, 128), "Arctic-02": (192, 128), "Arctic-16": (192, 128),
        "Arctic-15": (192, 128),
    ]

    /// Every named image, in the order of the three lists.
    static let allNames = SourceImages.filterNames + SourceImages.providerNames + SourceImages.tableNames

    @Test func namesInTheArticlesOrder() {
        #expect(SourceImages.filterNames == ["city", "dark_road", "train_day", "train_dusk", "train_night"])
        #expect(SourceImages.providerNames == ["Eiffel Tower", "Venice", "screenshot", "arctic-12"])
        #expect(SourceImages.tableNames == ["Scottish castle", "Arctic-02", "Arctic-16", "Arctic-15"])
        // Every cell of the article's table-view app has a picture.
        let cells = [
            "Eiffel Tower", "Venice", "Scottish castle", "Arctic-02", "Eiffel Tower", "Arctic-16", "Arctic-15",
            "arctic-12",
        ]
        #expect(cells.allSatisfy { SourceImages.named($0) != nil })
        #expect(Set(Self.allNames) == Set(Self.sizes.keys))
        #expect(SourceImages.named("nowhere") == nil)
        #expect(SourceImages.named("City") == nil)
    }

    @Test(arguments: SourceImagesTests.allNames)
    func imageExistsWithItsSizeOpaqueAndNotFlat(name: String) throws {
        let img = try #require(SourceImages.named(name))
        let size = try #require(Self.sizes[name])
        #expect(img.width == size.0 && img.height == size.1)
        #expect(img.pixels.count == 4 * size.0 * size.1)
        #expect(alphaBytes(img).allSatisfy { $0 == 255 })
        // Distinct colours, counted until the ten the check asks for: below ten, every pixel is
        // counted (a set of every pixel of every picture is slow in a debug build).
        var colours = Set<RGBA>()
        scan: for y in 0..<img.height {
            for x in 0..<img.width {
                colours.insert(img.pixel(x: x, y: y))
                if colours.count == 10 { break scan }
            }
        }
        // The flattest, the screenshot, has 11 flat UI colours; the others have gradients (76 to 6573).
        #expect(colours.count >= 10, "\(name) has only \(colours.count) colours")
    }

    @Test func imagesDifferFromEachOther() {
        let all = Self.allNames.compactMap(SourceImages.named)
        #expect(all.count == 13)
        for i in all.indices {
            for j in all.indices where j > i { #expect(all[i] != all[j]) }
        }
        // Night is darker than day.
        func meanRed(_ img: RGBAImage) -> Int {
            redRows(img).joined().map(Int.init).reduce(0, +) / (img.width * img.height)
        }
        let day = SourceImages.named("train_day")!, night = SourceImages.named("train_night")!
        #expect(meanRed(night) < meanRed(day) / 2)
    }

    @Test func tablePicturesAreVisiblyDifferentScenes() throws {
        // Not just unequal bytes: every two of the table's pictures (and arctic-12) differ by a mean
        // of more than 30 per channel, pixel by pixel.
        let names = SourceImages.tableNames + ["arctic-12"]
        let images = try names.map { try #require(SourceImages.named($0)) }
        func meanDifference(_ a: RGBAImage, _ b: RGBAImage) -> Int {
            // Summed as it goes: the same sum as mapping to an array of differences and reducing
            // it, without the array or an iterator, which are slow in a debug build.
            let (first, second) = (a.pixels, b.pixels)
            var sum = 0
            for index in 0..<min(first.count, second.count) { sum += abs(Int(first[index]) - Int(second[index])) }
            return sum / (3 * a.width * a.height)
        }
        for i in images.indices {
            for j in images.indices where j > i {
                let difference = meanDifference(images[i], images[j])
                #expect(difference > 30, "\(names[i]) and \(names[j]) differ by only \(difference)")
            }
        }
        // Mean (red, green, blue) over the picture.
        func mean(_ img: RGBAImage) -> (r: Int, g: Int, b: Int) {
            var sum = (r: 0, g: 0, b: 0)
            for y in 0..<img.height {
                for x in 0..<img.width {
                    let p = img.pixel(x: x, y: y)
                    sum.r += Int(p.r); sum.g += Int(p.g); sum.b += Int(p.b)
                }
            }
            let n = img.width * img.height
            return (sum.r / n, sum.g / n, sum.b / n)
        }
        let castle = mean(images[0]), noon = mean(images[1]), aurora = mean(images[2]), sunset = mean(images[3])
        // Noon is blue and bright; the aurora night is dark; the sunset is warm; the castle's day is grey-green.
        #expect(noon.b > noon.r + 40)
        #expect(aurora.r + aurora.g + aurora.b < (noon.r + noon.g + noon.b) / 2)
        #expect(sunset.r > sunset.b)
        #expect(abs(castle.r - castle.b) < 30)
    }
}

@Suite(.serialized, .oneAtATime) struct PNGEncoderTests {
    /// A chunk as read back from the file.
    struct Chunk {
        var type: String
        var data: [UInt8]
        var crc: UInt32
    }

    /// CRC-32 bit by bit, with no table: an independent check of the encoder's table-driven one.
    static func slowCRC32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func bigEndian(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    /// Splits a PNG after its signature into chunks, checking each length fits the file.
    static func chunks(_ file: [UInt8]) throws -> [Chunk] {
        var result: [Chunk] = []
        var i = 8
        while i < file.count {
            try #require(i + 12 <= file.count)
            let length = Int(bigEndian(file[i..<i + 4]))
            try #require(i + 12 + length <= file.count)
            let type = String(decoding: file[i + 4..<i + 8], as: UTF8.self)
            let data = Array(file[i + 8..<i + 8 + length])
            let crc = bigEndian(file[i + 8 + length..<i + 12 + length])
            result.append(Chunk(type: type, data: data, crc: crc))
            i += 12 + length
        }
        return result
    }

    /// Inflates a zlib stream made only of stored blocks; returns the data and the number of blocks.
    static func inflateStored(_ stream: [UInt8]) throws -> (data: [UInt8], blocks: Int) {
        try #require(stream.count >= 6)
        #expect(stream[0] == 0x78 && stream[1] == 0x01)
        #expect((Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0)
        var i = 2, out: [UInt8] = [], blocks = 0, final = false
        while !final {
            try #require(i + 5 <= stream.count)
            let header = stream[i]
            final = header & 1 == 1
            #expect(header >> 1 == 0, "block type must be 00 (stored)")
            let len = Int(stream[i + 1]) | Int(stream[i + 2]) << 8
            let nlen = Int(stream[i + 3]) | Int(stream[i + 4]) << 8
            #expect(len ^ nlen == 0xFFFF)
            try #require(i + 5 + len <= stream.count)
            out += stream[i + 5..<i + 5 + len]
            i += 5 + len
            blocks += 1
        }
        try #require(i + 4 == stream.count, "4 bytes of Adler-32 end the stream")
        #expect(bigEndian(stream[i..<i + 4]) == PNGEncoder.adler32(out))
        return (out, blocks)
    }

    /// Filter byte 0 then the row's bytes, for every row: built here independently of the encoder.
    static func expectedScanlines(_ img: RGBAImage) -> [UInt8] {
        var bytes: [UInt8] = []
        for y in 0..<img.height {
            bytes.append(0)
            for x in 0..<img.width {
                let p = img.pixel(x: x, y: y)
                bytes += [p.r, p.g, p.b, p.a]
            }
        }
        return bytes
    }

    /// Checks a whole file; returns how many IDAT chunks and stored blocks it used.
    @discardableResult
    static func checkPNG(_ file: [UInt8], of img: RGBAImage) throws -> (idats: Int, blocks: Int) {
        #expect(Array(file.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let parts = try chunks(file)
        for chunk in parts {
            #expect(chunk.crc == slowCRC32(Array(chunk.type.utf8) + chunk.data), "CRC of \(chunk.type)")
        }
        let types = parts.map(\.type)
        try #require(types.count >= 3)
        #expect(types.first == "IHDR" && types.last == "IEND")
        #expect(types.dropFirst().dropLast().allSatisfy { $0 == "IDAT" })
        #expect(parts.last!.data.isEmpty)

        let ihdr = parts[0].data
        try #require(ihdr.count == 13)
        #expect(bigEndian(ihdr[0..<4]) == UInt32(img.width))
        #expect(bigEndian(ihdr[4..<8]) == UInt32(img.height))
        #expect(Array(ihdr[8..<13]) == [8, 6, 0, 0, 0])

        let idats = parts.filter { $0.type == "IDAT" }
        let (data, blocks) = try inflateStored(idats.flatMap(\.data))
        #expect(data == expectedScanlines(img))
        return (idats.count, blocks)
    }

    @Test func knownChecksums() {
        #expect(PNGEncoder.crc32(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(PNGEncoder.crc32([]) == 0)
        #expect(PNGEncoder.crc32(Array("IEND".utf8)) == 0xAE42_6082) // the last 4 bytes of every PNG
        #expect(PNGEncoder.adler32(Array("Wikipedia".utf8)) == 0x11E6_0398)
        #expect(PNGEncoder.adler32([]) == 1)
    }

    @Test func adlerOverManyBlocksOfModulo() {
        // 20,000 bytes of 255 cross the every-5552-bytes reduction several times; compare with
        // a reduction after every byte.
        let bytes = [UInt8](repeating: 255, count: 20_000) + (0..<3_000).map { UInt8($0 % 251) }
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        #expect(PNGEncoder.adler32(bytes) == b << 16 | a)
    }

    @Test func tinyImageIsAValidPNG() throws {
        let img = image([
            [
                RGBA(r: 255, g: 0, b: 0), RGBA(r: 0, g: 255, b: 0), RGBA(r: 0, g: 0, b: 255),
                RGBA(r: 1, g: 2, b: 3, a: 4),
            ],
            [.white, .black, .clear, RGBA(r: 200, g: 100, b: 50, a: 128)],
        ])
        let file = [UInt8](PNGEncoder.encode(img))
        let (idats, blocks) = try Self.checkPNG(file, of: img)
        #expect(idats == 1 && blocks == 1)
        // 8 signature + (12 + 13) IHDR + (12 + 2 + 5 + 2·17 + 4) IDAT + 12 IEND.
        #expect(file.count == 8 + 25 + 57 + 12)
        #expect(Array(file.suffix(12)) == [0, 0, 0, 0, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82])
    }

    @Test func smallLimitsGiveSeveralBlocksAndChunks() throws {
        let img = RGBAImage(width: 3, height: 3, fill: RGBA(r: 9, g: 99, b: 199, a: 250))
        // 3 rows of 13 bytes = 39 bytes → 8 blocks of ≤ 5; stream 2 + 39 + 8·5 + 4 = 85 bytes → 13 IDATs of ≤ 7.
        let file = PNGEncoder.encodeBytes(img, maxIDATLength: 7, maxBlockLength: 5)
        let (idats, blocks) = try Self.checkPNG(file, of: img)
        #expect(blocks == 8)
        #expect(idats == 13)
        // No data at all: one empty final block.
        let empty = try Self.inflateStored(PNGEncoder.zlibStored([]))
        #expect(empty.data.isEmpty && empty.blocks == 1)
    }

    @Test func largestSourceImageRoundTrips() throws {
        // Venice: 192 rows of 1 + 1024 bytes = 196,800 bytes → 4 stored blocks; 196,800 + 2 + 20 + 4 bytes → 4 IDATs.
        let venice = try #require(SourceImages.named("Venice"))
        let (idats, blocks) = try Self.checkPNG([UInt8](PNGEncoder.encode(venice)), of: venice)
        #expect(blocks == 4)
        #expect(idats == 4)
    }
}
