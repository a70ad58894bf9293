import ExperimentKit
import Foundation
import Synchronization

/// The pictures the image experiments filter, drawn by code instead of loaded
/// from files or URLs.
///
/// The articles filter photographs ("city", "dark_road", the three trains) and
/// download four more (the Eiffel Tower, a canal in Venice, a screenshot,
/// "arctic-12"); the table-view app shows four more in its cells (a Scottish
/// castle, "Arctic-02", "Arctic-16", "Arctic-15"). Those files are not part of
/// this project, so each name maps
/// to a small, deterministic drawing of the same subject: flat shapes, linear
/// gradients, soft glows, and texture from a fixed-seed generator. The same
/// name always gives the same picture, on every run.
///
/// Sizes (width × height), all opaque (alpha 255 everywhere):
///
/// | Name            | Size    | Picture                                             |
/// |-----------------|---------|-----------------------------------------------------|
/// | `city`          | 192×128 | daytime skyline, sun, windows, a street             |
/// | `dark_road`     | 192×128 | a road at night into the distance, street lamps     |
/// | `train_day`     | 192×128 | a red train under a blue sky, green hills           |
/// | `train_dusk`    | 192×128 | a dark train against an orange sunset, lit windows  |
/// | `train_night`   | 192×128 | a train at night: stars, moon, lit windows, headlight |
/// | `Eiffel Tower`  | 128×192 | the tower (portrait) over a park                    |
/// | `Venice`        | 256×192 | façades over a canal, poles, a gondola (the largest) |
/// | `screenshot`    | 144×256 | a phone list screen: bars, rows, avatars, tab bar   |
/// | `arctic-12`     | 192×128 | icebergs, sea and snow under a pale sky             |
/// | `Scottish castle` | 192×128 | a castle with towers and battlements on a hill, grey sky |
/// | `Arctic-02`     | 192×128 | icebergs in open sea at noon, sun glitter           |
/// | `Arctic-16`     | 192×128 | an aurora over dark mountains, a lit cabin in the snow |
/// | `Arctic-15`     | 192×128 | a polar sunset over ice floes, a polar bear         |
///
/// Venice is the largest, as in the article, where it "loaded and filtered much
/// longer than the rest".
public enum SourceImages {
    /// The five images of the "filtering five images" experiment, in the article's order.
    public static let filterNames: [String] = ["city", "dark_road", "train_day", "train_dusk", "train_night"]

    /// The four images of the ImageProvider experiment, in the article's order.
    public static let providerNames: [String] = ["Eiffel Tower", "Venice", "screenshot", "arctic-12"]

    /// The four pictures the table-view app shows besides the provider images. Its eight cells are
    /// "Eiffel Tower", "Venice", "Scottish castle", "Arctic-02", "Eiffel Tower", "Arctic-16",
    /// "Arctic-15", "arctic-12".
    public static let tableNames: [String] = ["Scottish castle", "Arctic-02", "Arctic-16", "Arctic-15"]

    /// The image with this name (one of ``filterNames``, ``providerNames`` or
    /// ``tableNames``, case-sensitive), or `nil` for any other name.
    ///
    /// Each image is drawn once, on first use, and shared afterwards; calling
    /// this is then only a copy-on-write reference copy.
    public static func named(_ name: String) -> RGBAImage? {
        requestCount.add(1, ordering: .relaxed)
        switch name {
        case "city": return city
        case "dark_road": return darkRoad
        case "train_day": return trainDay
        case "train_dusk": return trainDusk
        case "train_night": return trainNight
        case "Eiffel Tower": return eiffelTower
        case "Venice": return venice
        case "screenshot": return screenshot
        case "arctic-12": return arctic
        case "Scottish castle": return scottishCastle
        case "Arctic-02": return arcticNoon
        case "Arctic-16": return arcticAurora
        case "Arctic-15": return arcticSunset
        default: return nil
        }
    }

    /// How many pictures this process has asked for, drawn or already drawn: a test checks that
    /// predicting (`list`, `describe`) asks for none.
    static var requests: Int {
        requestCount.load(ordering: .relaxed)
    }

    private static let requestCount = Atomic<Int>(0)

    // Lazily drawn, once each (static stored properties are initialised on first access, thread-safely).
    private static let city = drawCity()
    private static let darkRoad = drawDarkRoad()
    private static let trainDay = drawTrain(.day)
    private static let trainDusk = drawTrain(.dusk)
    private static let trainNight = drawTrain(.night)
    private static let eiffelTower = drawEiffelTower()
    private static let venice = drawVenice()
    private static let screenshot = drawScreenshot()
    private static let arctic = drawArctic()
    private static let scottishCastle = drawScottishCastle()
    private static let arcticNoon = drawArcticNoon()
    private static let arcticAurora = drawArcticAurora()
    private static let arcticSunset = drawArcticSunset()
}

// MARK: - The drawings

extension SourceImages {
    fileprivate static func drawCity() -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 1)
        canvas.verticalGradient(
            from: 0, to: 100, top: RGBA(r: 95, g: 150, b: 215), bottom: RGBA(r: 205, g: 228, b: 245))
        canvas.glow(x: 150, y: 26, radius: 30, color: RGBA(r: 255, g: 245, b: 200), strength: 0.6)
        canvas.fillEllipse(x: 150, y: 26, rx: 11, ry: 11, color: RGBA(r: 255, g: 240, b: 180))
        // Far skyline, pale.
        var x = 0
        while x < 192 {
            let w = 10 + random.int(below: 12)
            let top = 100 - 30 - random.int(below: 35)
            canvas.fillRect(x: x, y: top, width: w, height: 100 - top, color: RGBA(r: 140, g: 158, b: 185))
            x += w
        }
        // Near buildings, dark, with lit or dark windows.
        x = -4
        while x < 192 {
            let w = 14 + random.int(below: 16)
            let top = 100 - 22 - random.int(below: 55)
            let wall = [RGBA(r: 62, g: 66, b: 82), RGBA(r: 80, g: 72, b: 70), RGBA(r: 54, g: 70, b: 76)][
                random.int(below: 3)]
            canvas.fillRect(x: x, y: top, width: w - 2, height: 100 - top, color: wall)
            var wy = top + 3
            while wy < 96 {
                var wx = x + 2
                while wx < x + w - 4 {
                    let lit = random.int(below: 3) == 0
                    canvas.fillRect(
                        x: wx, y: wy, width: 2, height: 3,
                        color: lit ? RGBA(r: 250, g: 222, b: 140) : RGBA(r: 110, g: 125, b: 150))
                    wx += 4
                }
                wy += 5
            }
            x += w
        }
        // Street: pavement, asphalt, lane markings.
        canvas.fillRect(x: 0, y: 100, width: 192, height: 3, color: RGBA(r: 160, g: 160, b: 158))
        canvas.fillRect(x: 0, y: 103, width: 192, height: 25, color: RGBA(r: 68, g: 68, b: 74))
        for dash in stride(from: 4, to: 192, by: 20) {
            canvas.fillRect(x: dash, y: 114, width: 10, height: 2, color: RGBA(r: 235, g: 235, b: 225))
        }
        return canvas.image
    }

    fileprivate static func drawDarkRoad() -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 2)
        canvas.starrySky(
            to: 60, top: RGBA(r: 6, g: 8, b: 26), bottom: RGBA(r: 34, g: 32, b: 62), stars: 40, above: 55,
            brightness: 120..<240, random: &random)
        canvas.verticalGradient(from: 60, to: 128, top: RGBA(r: 16, g: 22, b: 18), bottom: RGBA(r: 26, g: 34, b: 26))
        // The road narrows to a vanishing point on the horizon.
        canvas.fillPolygon([(91, 60), (101, 60), (186, 128), (6, 128)], color: RGBA(r: 46, g: 46, b: 52))
        // Centre dashes, longer and wider nearer the viewer.
        for y in 61..<128 {
            let depth = Double(y - 60)
            guard Int((depth * 4).squareRoot()) % 2 == 0 else { continue }
            let half = 0.3 + depth * 0.03
            canvas.fillSpan(y: y, from: 96 - half, to: 96 + half, color: RGBA(r: 225, g: 205, b: 120))
        }
        // Street lamps along the right edge, with pools of light.
        for (lampX, lampY, height) in [(112.0, 66.0, 6.0), (128.0, 76.0, 14.0), (152.0, 95.0, 28.0)] {
            canvas.fillRect(
                x: Int(lampX), y: Int(lampY - height), width: max(1, Int(height / 10)), height: Int(height),
                color: RGBA(r: 70, g: 70, b: 76))
            canvas.glow(
                x: lampX, y: lampY - height, radius: height * 1.6, color: RGBA(r: 255, g: 200, b: 120), strength: 0.9)
            canvas.glow(
                x: lampX - height * 0.8, y: lampY + height * 0.2, radius: height * 1.2,
                color: RGBA(r: 200, g: 160, b: 100), strength: 0.35)
        }
        // Tail lights of a car far ahead.
        canvas.glow(x: 93, y: 66, radius: 3, color: RGBA(r: 230, g: 30, b: 30), strength: 1)
        canvas.glow(x: 98, y: 66, radius: 3, color: RGBA(r: 230, g: 30, b: 30), strength: 1)
        return canvas.image
    }

    fileprivate enum TrainTime { case day, dusk, night }

    fileprivate static func drawTrain(_ time: TrainTime) -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 3)
        let (hills, ground, body, roof, window) = paintTrainSky(time, on: &canvas, random: &random)
        // Rolling hills, then flat ground.
        canvas.fillRows(from: 55, to: 128) { x in
            let xs = Double(x)
            return 76 + 8 * sin(xs * 0.045) + 5 * sin(xs * 0.11 + 1.3)
        } color: { _ in
            hills
        }
        canvas.fillRect(x: 0, y: 90, width: 192, height: 38, color: ground)
        // Track: sleepers and two rails.
        for sx in stride(from: 0, to: 192, by: 6) {
            canvas.fillRect(x: sx, y: 101, width: 3, height: 3, color: RGBA(r: 90, g: 66, b: 50))
        }
        canvas.fillRect(x: 0, y: 100, width: 192, height: 1, color: RGBA(r: 160, g: 160, b: 165))
        canvas.fillRect(x: 0, y: 103, width: 192, height: 1, color: RGBA(r: 160, g: 160, b: 165))
        // Two carriages and a locomotive with a sloped nose.
        for carX in [14, 74] {
            canvas.fillRect(x: carX, y: 70, width: 56, height: 3, color: roof)
            canvas.fillRect(x: carX, y: 73, width: 56, height: 24, color: body)
            for wx in stride(from: carX + 4, to: carX + 50, by: 10) {
                canvas.fillRect(x: wx, y: 77, width: 7, height: 7, color: window)
            }
        }
        canvas.fillRect(x: 134, y: 70, width: 30, height: 3, color: roof)
        canvas.fillPolygon([(134, 73), (164, 73), (182, 90), (182, 97), (134, 97)], color: body)
        canvas.fillPolygon([(164, 76), (176, 87), (164, 87)], color: window)
        canvas.fillRect(x: 140, y: 77, width: 8, height: 7, color: window)
        canvas.fillRect(x: 14, y: 90, width: 168, height: 2, color: time == .day ? RGBA(r: 240, g: 240, b: 240) : roof)
        for wheel in stride(from: 20.0, to: 180, by: 14) {
            canvas.fillEllipse(x: wheel, y: 98, rx: 3, ry: 3, color: RGBA(r: 30, g: 30, b: 32))
        }
        if time != .day {
            // Lit windows glow; the headlight throws light ahead.
            for wx in stride(from: 22.0, to: 130, by: 10) {
                canvas.glow(x: wx, y: 80, radius: 7, color: window, strength: 0.25)
            }
            canvas.glow(
                x: 181, y: 93, radius: time == .night ? 18 : 10, color: RGBA(r: 255, g: 250, b: 220), strength: 0.95)
        }
        return canvas.image
    }

    /// Paints the train picture's sky at this time of day and gives the colours of the land and
    /// the train in its light.
    fileprivate static func paintTrainSky(
        _ time: TrainTime, on canvas: inout Canvas, random: inout SeededGenerator
    ) -> (hills: RGBA, ground: RGBA, body: RGBA, roof: RGBA, window: RGBA) {
        let hills, ground, body, roof, window: RGBA
        switch time {
        case .day:
            canvas.verticalGradient(
                from: 0, to: 90, top: RGBA(r: 80, g: 140, b: 225), bottom: RGBA(r: 195, g: 222, b: 250))
            canvas.fillEllipse(x: 40, y: 22, rx: 16, ry: 6, color: RGBA(r: 250, g: 250, b: 252))
            canvas.fillEllipse(x: 54, y: 18, rx: 12, ry: 7, color: RGBA(r: 250, g: 250, b: 252))
            canvas.fillEllipse(x: 130, y: 30, rx: 18, ry: 5, color: RGBA(r: 245, g: 247, b: 252))
            hills = RGBA(r: 80, g: 145, b: 72); ground = RGBA(r: 112, g: 168, b: 82)
            body = RGBA(r: 200, g: 40, b: 42); roof = RGBA(r: 150, g: 150, b: 156);
            window = RGBA(r: 175, g: 212, b: 238)
        case .dusk:
            canvas.verticalGradient(
                from: 0, to: 90, top: RGBA(r: 58, g: 40, b: 100), bottom: RGBA(r: 250, g: 140, b: 70))
            canvas.glow(x: 60, y: 84, radius: 40, color: RGBA(r: 255, g: 190, b: 110), strength: 0.6)
            canvas.fillEllipse(x: 60, y: 84, rx: 16, ry: 16, color: RGBA(r: 255, g: 200, b: 110))
            hills = RGBA(r: 62, g: 40, b: 62); ground = RGBA(r: 44, g: 30, b: 44)
            body = RGBA(r: 40, g: 32, b: 46); roof = RGBA(r: 30, g: 24, b: 34); window = RGBA(r: 255, g: 205, b: 120)
        case .night:
            canvas.starrySky(
                to: 90, top: RGBA(r: 4, g: 6, b: 22), bottom: RGBA(r: 22, g: 26, b: 54), stars: 60, above: 80,
                brightness: 110..<255, random: &random)
            canvas.glow(x: 150, y: 28, radius: 26, color: RGBA(r: 200, g: 210, b: 240), strength: 0.35)
            canvas.fillEllipse(x: 150, y: 28, rx: 10, ry: 10, color: RGBA(r: 238, g: 236, b: 214))
            canvas.fillEllipse(x: 146, y: 25, rx: 2, ry: 2, color: RGBA(r: 210, g: 208, b: 190))
            hills = RGBA(r: 12, g: 16, b: 28); ground = RGBA(r: 10, g: 12, b: 18)
            body = RGBA(r: 28, g: 28, b: 38); roof = RGBA(r: 20, g: 20, b: 28); window = RGBA(r: 255, g: 222, b: 140)
        }
        return (hills, ground, body, roof, window)
    }

    fileprivate static func drawEiffelTower() -> RGBAImage {
        var canvas = Canvas(width: 128, height: 192)
        canvas.verticalGradient(
            from: 0, to: 170, top: RGBA(r: 110, g: 165, b: 230), bottom: RGBA(r: 222, g: 232, b: 246))
        canvas.fillEllipse(x: 26, y: 40, rx: 18, ry: 6, color: RGBA(r: 248, g: 250, b: 252))
        canvas.fillEllipse(x: 100, y: 70, rx: 16, ry: 5, color: RGBA(r: 244, g: 247, b: 252))
        // Park and a path.
        canvas.fillRect(x: 0, y: 168, width: 128, height: 24, color: RGBA(r: 88, g: 140, b: 70))
        canvas.fillPolygon([(54, 168), (74, 168), (92, 192), (36, 192)], color: RGBA(r: 205, g: 192, b: 160))
        // The tower: a curved flare from the spire to four legs, an arch between them, a lattice.
        let top = 16.0, base = 170.0, centre = 64.0
        let iron = RGBA(r: 108, g: 84, b: 64), lattice = RGBA(r: 156, g: 126, b: 94)
        for y in Int(top)..<Int(base) {
            let t = (Double(y) + 0.5 - top) / (base - top)
            let half = 1.5 + 46 * pow(t, 2.4)
            var archHalf = -1.0
            if Double(y) > base - 32 {
                let u = (base - Double(y)) / 32
                archHalf = 27 * (1 - u * u).squareRoot()
            }
            for x in 0..<128 {
                let dx = abs(Double(x) + 0.5 - centre)
                guard dx <= half, dx > archHalf else { continue }
                let onLattice = (x + y) % 5 == 0 || (x - y + 1000) % 5 == 0
                canvas.plot(x: x, y: y, color: onLattice ? lattice : iron)
            }
        }
        for (platformY, extra) in [(62, 3.0), (116, 4.0)] {
            let t = (Double(platformY) - top) / (base - top)
            let half = 1.5 + 46 * pow(t, 2.4) + extra
            canvas.fillSpan(y: platformY, from: centre - half, to: centre + half, color: RGBA(r: 78, g: 58, b: 44))
            canvas.fillSpan(y: platformY + 1, from: centre - half, to: centre + half, color: RGBA(r: 78, g: 58, b: 44))
        }
        canvas.fillRect(x: 63, y: 4, width: 2, height: 12, color: RGBA(r: 90, g: 70, b: 56))
        return canvas.image
    }

    fileprivate static func drawVenice() -> RGBAImage {
        var canvas = Canvas(width: 256, height: 192)
        var random = SeededGenerator(seed: 5)
        canvas.verticalGradient(
            from: 0, to: 110, top: RGBA(r: 130, g: 185, b: 235), bottom: RGBA(r: 242, g: 226, b: 200))
        // A row of façades along the canal, each its own colour and height, with arched windows.
        let facades = [
            RGBA(r: 192, g: 92, b: 62), RGBA(r: 222, g: 172, b: 92), RGBA(r: 212, g: 142, b: 132),
            RGBA(r: 232, g: 212, b: 172), RGBA(r: 176, g: 112, b: 82), RGBA(r: 236, g: 190, b: 120),
        ]
        var x = 0
        var index = 0
        while x < 256 {
            let w = 30 + random.int(below: 22)
            let top = 22 + random.int(below: 40)
            let colour = facades[index % facades.count]
            canvas.fillRect(x: x, y: top, width: w, height: 118 - top, color: colour)
            canvas.fillRect(x: x, y: top, width: w, height: 3, color: RGBA(r: 120, g: 70, b: 50))
            var wy = top + 8
            while wy < 104 {
                var wx = x + 5
                while wx + 5 < x + w - 3 {
                    canvas.fillRect(x: wx, y: wy + 2, width: 5, height: 8, color: RGBA(r: 70, g: 48, b: 40))
                    canvas.fillEllipse(
                        x: Double(wx) + 2.5, y: Double(wy) + 2.5, rx: 2.5, ry: 2.5, color: RGBA(r: 70, g: 48, b: 40))
                    wx += 10
                }
                wy += 16
            }
            x += w
            index += 1
        }
        // The canal: green-blue water in wavy stripes.
        let water = RGBA(r: 38, g: 108, b: 118), ripple = RGBA(r: 96, g: 162, b: 160)
        canvas.fillRect(x: 0, y: 118, width: 256, height: 74, color: water)
        for y in 118..<192 {
            for x in 0..<256 {
                let phase = Double(y) * 0.9 + 2.2 * sin(Double(x) * 0.09 + Double(y) * 0.2)
                if sin(phase) > 0.72 { canvas.plot(x: x, y: y, color: ripple) }
            }
        }
        // Mooring poles, striped.
        for poleX in [30, 44, 206, 222] {
            for y in 104..<150 {
                let stripe = (y / 5) % 2 == 0 ? RGBA(r: 230, g: 230, b: 230) : RGBA(r: 30, g: 60, b: 140)
                canvas.fillRect(x: poleX, y: y, width: 3, height: 1, color: stripe)
            }
        }
        // A gondola with its gondolier.
        canvas.fillPolygon(
            [(96, 160), (110, 168), (168, 168), (186, 156), (190, 152), (178, 163), (112, 164)],
            color: RGBA(r: 16, g: 14, b: 18))
        canvas.fillRect(x: 164, y: 140, width: 4, height: 24, color: RGBA(r: 30, g: 28, b: 40))
        canvas.fillEllipse(x: 166, y: 137, rx: 3, ry: 3, color: RGBA(r: 225, g: 185, b: 150))
        canvas.fillRect(x: 161, y: 133, width: 10, height: 2, color: RGBA(r: 240, g: 220, b: 120))
        canvas.fillPolygon([(158, 146), (160, 146), (148, 178), (146, 178)], color: RGBA(r: 120, g: 86, b: 50))
        return canvas.image
    }

    fileprivate static func drawScreenshot() -> RGBAImage {
        var canvas = Canvas(width: 144, height: 256)
        let background = RGBA(r: 242, g: 242, b: 247), white = RGBA.white
        let separator = RGBA(r: 200, g: 200, b: 206), text = RGBA(r: 30, g: 30, b: 34)
        let secondary = RGBA(r: 150, g: 150, b: 158), tint = RGBA(r: 0, g: 122, b: 255)
        canvas.fillRect(x: 0, y: 0, width: 144, height: 256, color: background)
        // Status bar: time on the left, signal and battery on the right.
        canvas.fillRect(x: 0, y: 0, width: 144, height: 44, color: white)
        canvas.fillRect(x: 8, y: 4, width: 18, height: 5, color: text)
        for bar in 0..<4 {
            canvas.fillRect(x: 104 + 3 * bar, y: 8 - bar, width: 2, height: 1 + bar, color: text)
        }
        canvas.fillRect(x: 120, y: 4, width: 14, height: 6, color: text)
        canvas.fillRect(x: 121, y: 5, width: 9, height: 4, color: RGBA(r: 52, g: 199, b: 89))
        // Navigation bar: back chevron, title, action.
        canvas.fillPolygon([(10, 26), (15, 21), (16, 22), (12, 26), (16, 30), (15, 31)], color: tint)
        canvas.fillRect(x: 50, y: 22, width: 44, height: 8, color: text)
        canvas.fillRect(x: 124, y: 22, width: 12, height: 8, color: tint)
        canvas.fillRect(x: 0, y: 43, width: 144, height: 1, color: separator)
        // A list: avatar, title line, subtitle line, separator.
        let avatars = [
            RGBA(r: 255, g: 149, b: 0), RGBA(r: 88, g: 86, b: 214), RGBA(r: 52, g: 199, b: 89),
            RGBA(r: 255, g: 59, b: 48),
        ]
        let titleWidths = [60, 42, 74, 52], subtitleWidths = [88, 70, 96, 60]
        for row in 0..<4 {
            let y = 52 + row * 34
            canvas.fillRect(x: 0, y: y, width: 144, height: 34, color: white)
            canvas.fillEllipse(x: 22, y: Double(y) + 17, rx: 11, ry: 11, color: avatars[row])
            canvas.fillRect(x: 40, y: y + 8, width: titleWidths[row], height: 6, color: text)
            canvas.fillRect(x: 40, y: y + 20, width: subtitleWidths[row], height: 4, color: secondary)
            canvas.fillRect(x: 40, y: y + 33, width: 104, height: 1, color: separator)
        }
        // A button below the list.
        canvas.fillRect(x: 16, y: 198, width: 112, height: 18, color: tint)
        canvas.fillRect(x: 52, y: 204, width: 40, height: 6, color: white)
        // Tab bar with four icons, the first selected.
        canvas.fillRect(x: 0, y: 226, width: 144, height: 30, color: RGBA(r: 249, g: 249, b: 251))
        canvas.fillRect(x: 0, y: 226, width: 144, height: 1, color: separator)
        for tab in 0..<4 {
            canvas.fillEllipse(x: 18 + 36 * Double(tab), y: 238, rx: 6, ry: 6, color: tab == 0 ? tint : secondary)
            canvas.fillRect(x: 10 + 36 * tab, y: 247, width: 16, height: 3, color: tab == 0 ? tint : secondary)
        }
        return canvas.image
    }

    fileprivate static func drawArctic() -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 12)
        canvas.verticalGradient(
            from: 0, to: 78, top: RGBA(r: 160, g: 200, b: 235), bottom: RGBA(r: 236, g: 244, b: 252))
        canvas.glow(x: 40, y: 30, radius: 30, color: RGBA(r: 255, g: 250, b: 228), strength: 0.8)
        // Distant white mountains, shaded on their right flanks.
        canvas.fillPolygon(
            [(0, 78), (0, 56), (30, 40), (58, 60), (84, 34), (120, 62), (150, 46), (192, 66), (192, 78)],
            color: RGBA(r: 226, g: 236, b: 248))
        canvas.fillPolygon([(30, 40), (58, 60), (40, 60)], color: RGBA(r: 196, g: 214, b: 236))
        canvas.fillPolygon([(84, 34), (120, 62), (96, 62)], color: RGBA(r: 196, g: 214, b: 236))
        canvas.fillPolygon([(150, 46), (192, 66), (170, 66)], color: RGBA(r: 196, g: 214, b: 236))
        // Dark sea with floating ice.
        canvas.fillRect(x: 0, y: 78, width: 192, height: 14, color: RGBA(r: 36, g: 78, b: 128))
        for _ in 0..<14 {
            let fx = Double(random.int(below: 192)), fy = Double(79 + random.int(below: 12))
            canvas.fillEllipse(
                x: fx, y: fy, rx: Double(2 + random.int(below: 6)), ry: 1, color: RGBA(r: 236, g: 244, b: 252))
        }
        // An iceberg: lit face and a blue shadowed face.
        canvas.fillPolygon(
            [(110, 88), (122, 60), (136, 56), (152, 70), (160, 88)], color: RGBA(r: 240, g: 247, b: 253))
        canvas.fillPolygon([(136, 56), (152, 70), (160, 88), (140, 88)], color: RGBA(r: 170, g: 200, b: 232))
        // Snow field in front, with blue drift shadows.
        canvas.fillRect(x: 0, y: 92, width: 192, height: 36, color: RGBA(r: 246, g: 249, b: 253))
        for drift in 0..<7 {
            let startX = Double(random.int(below: 192)) - 20
            let y = 96 + drift * 5
            canvas.fillPolygon(
                [
                    (startX, Double(y)), (startX + 50, Double(y) + 2), (startX + 46, Double(y) + 3),
                    (startX - 4, Double(y) + 1),
                ],
                color: RGBA(r: 200, g: 220, b: 242))
        }
        return canvas.image
    }

    fileprivate static func drawScottishCastle() -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 20)
        paintCastleHill(on: &canvas, random: &random)
        paintCastle(on: &canvas, random: &random)
        // A track from the gate down the hill, heather and grass in the foreground.
        canvas.fillPolygon(
            [(122, 70), (132, 70), (146, 90), (176, 128), (146, 128), (134, 92)], color: RGBA(r: 150, g: 138, b: 112))
        for _ in 0..<420 {
            let hx = random.int(below: 192), hy = 70 + random.int(below: 58)
            guard Double(hy) > castleHillCrest(hx) + 3, canvas.image.pixel(x: hx, y: hy) != RGBA(r: 150, g: 138, b: 112)
            else { continue }
            let heather = random.int(below: 3) == 0
            canvas.fillRect(
                x: hx, y: hy, width: 2, height: 1,
                color: heather ? RGBA(r: 122, g: 74, b: 116) : RGBA(r: 42, g: 62, b: 36))
        }
        return canvas.image
    }

    /// The overcast sky, the far hills and the hill the castle stands on, with its rocky crest.
    fileprivate static func paintCastleHill(on canvas: inout Canvas, random: inout SeededGenerator) {
        // Overcast sky: grey, lighter towards the horizon, with darker and lighter cloud banks.
        canvas.verticalGradient(
            from: 0, to: 90, top: RGBA(r: 116, g: 122, b: 130), bottom: RGBA(r: 200, g: 204, b: 208))
        for bank in 0..<10 {
            let cx = Double(random.int(below: 212)) - 10, cy = Double(4 + random.int(below: 44))
            let shade = bank % 2 == 0 ? RGBA(r: 98, g: 104, b: 112, a: 130) : RGBA(r: 176, g: 180, b: 186, a: 120)
            canvas.fillEllipse(
                x: cx, y: cy, rx: Double(20 + random.int(below: 24)), ry: Double(3 + random.int(below: 4)), color: shade
            )
        }
        // Far hills, blue-grey in the haze.
        canvas.fillRows(from: 50, to: 128) { x in
            let xs = Double(x)
            return 74 + 6 * sin(xs * 0.03 + 0.5) + 4 * sin(xs * 0.08)
        } color: { _ in
            RGBA(r: 112, g: 124, b: 130)
        }
        // The hill the castle stands on, and its rocky crest.
        let grass = (0..<192).map { canvas.mix(RGBA(r: 70, g: 96, b: 58), RGBA(r: 52, g: 74, b: 46), Double($0) / 192) }
        canvas.fillRows(from: 50, to: 128, surface: castleHillCrest) { grass[$0] }
        canvas.fillPolygon(
            [(64, 68), (146, 68), (138, 78), (112, 84), (88, 80), (72, 76)], color: RGBA(r: 96, g: 96, b: 92))
        canvas.fillPolygon([(112, 84), (138, 78), (146, 68), (126, 72)], color: RGBA(r: 76, g: 76, b: 74))
    }

    /// The height of the castle's hill at column `x`.
    fileprivate static func castleHillCrest(_ x: Int) -> Double {
        let dx = Double(x) - 104
        return 64 + 0.0035 * dx * dx + 1.5 * sin(Double(x) * 0.3)
    }

    /// The castle on its hill: walls, keep and towers, their windows, weathered stone and the flag.
    fileprivate static func paintCastle(on canvas: inout Canvas, random: inout SeededGenerator) {
        // The castle: curtain wall, a tall keep, a round tower with battlements, a tower and a turret with
        // slate cones. Each block is lit on the left and shaded on the right.
        let stone = RGBA(r: 88, g: 90, b: 96), shade = RGBA(r: 66, g: 68, b: 74)
        let slate = RGBA(r: 54, g: 58, b: 70), slit = RGBA(r: 34, g: 34, b: 40)
        func block(x: Int, top: Int, width: Int, parapet: Bool) {
            canvas.fillRect(x: x, y: top, width: width, height: 70 - top, color: stone)
            canvas.fillRect(x: x + width - width / 3, y: top, width: width / 3, height: 70 - top, color: shade)
            guard parapet else { return }
            canvas.fillRect(x: x - 2, y: top - 3, width: width + 4, height: 3, color: stone)
            for merlon in stride(from: x - 2, to: x + width + 2, by: 4) {
                canvas.fillRect(x: merlon, y: top - 6, width: 2, height: 3, color: stone)
            }
        }
        block(x: 60, top: 52, width: 88, parapet: false)
        for merlon in stride(from: 60, to: 148, by: 5) {
            canvas.fillRect(x: merlon, y: 49, width: 3, height: 3, color: stone)
        }
        block(x: 54, top: 36, width: 14, parapet: true)
        block(x: 84, top: 24, width: 34, parapet: true)
        block(x: 136, top: 38, width: 14, parapet: false)
        canvas.fillPolygon([(133, 38), (153, 38), (143, 18)], color: slate)
        block(x: 80, top: 14, width: 8, parapet: false)
        canvas.fillPolygon([(78, 14), (90, 14), (84, 3)], color: slate)
        // Windows: arrow slits, a larger arched window in the keep, and the gate.
        for (wx, wy) in [
            (90, 30), (100, 30), (110, 30), (90, 42), (110, 42), (59, 44), (59, 56), (141, 46), (83, 18), (70, 57),
            (146, 57),
        ] {
            canvas.fillRect(x: wx, y: wy, width: 2, height: 5, color: slit)
        }
        canvas.fillRect(x: 98, y: 42, width: 6, height: 8, color: slit)
        canvas.fillEllipse(x: 101, y: 42, rx: 3, ry: 3, color: slit)
        canvas.fillRect(x: 122, y: 60, width: 10, height: 10, color: RGBA(r: 30, g: 28, b: 30))
        canvas.fillEllipse(x: 127, y: 60, rx: 5, ry: 5, color: RGBA(r: 30, g: 28, b: 30))
        // Weathered stone: scattered darker blocks on the walls only.
        for _ in 0..<260 {
            let sx = 50 + random.int(below: 106), sy = 4 + random.int(below: 66)
            let under = canvas.image.pixel(x: sx, y: sy)
            guard under == stone || under == shade else { continue }
            canvas.fillRect(x: sx, y: sy, width: 2, height: 1, color: RGBA(r: 40, g: 40, b: 48, a: 70))
        }
        // A saltire on the keep's flagpole.
        canvas.fillRect(x: 100, y: 4, width: 1, height: 14, color: RGBA(r: 40, g: 38, b: 36))
        canvas.fillRect(x: 101, y: 4, width: 9, height: 6, color: RGBA(r: 20, g: 70, b: 170))
        for step in 0..<6 {
            let across = 101 + step * 8 / 5
            canvas.plot(x: across, y: 4 + step, color: .white)
            canvas.plot(x: across, y: 9 - step, color: .white)
        }
    }

    fileprivate static func drawArcticNoon() -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 102)
        // Deep blue noon sky, the sun high, a few small clouds.
        canvas.verticalGradient(from: 0, to: 62, top: RGBA(r: 30, g: 100, b: 196), bottom: RGBA(r: 170, g: 212, b: 244))
        canvas.glow(x: 74, y: 12, radius: 44, color: RGBA(r: 255, g: 252, b: 232), strength: 0.8)
        canvas.fillEllipse(x: 74, y: 12, rx: 7, ry: 7, color: RGBA(r: 255, g: 253, b: 240))
        for (cx, cy, rx) in [(26.0, 22.0, 16.0), (36.0, 19.0, 9.0), (150.0, 16.0, 20.0), (164.0, 13.0, 10.0)] {
            canvas.fillEllipse(x: cx, y: cy, rx: rx, ry: 3, color: RGBA(r: 250, g: 252, b: 255, a: 220))
        }
        // Open sea to the horizon, deeper blue nearer the viewer, with ripples and the sun's glitter.
        canvas.verticalGradient(from: 62, to: 128, top: RGBA(r: 46, g: 112, b: 172), bottom: RGBA(r: 10, g: 44, b: 96))
        for y in 63..<128 {
            for x in 0..<192 {
                let phase = Double(y) * 1.1 + 1.6 * sin(Double(x) * 0.12 + Double(y) * 0.3)
                if sin(phase) > 0.9 { canvas.plot(x: x, y: y, color: RGBA(r: 90, g: 160, b: 214, a: 110)) }
            }
        }
        for _ in 0..<70 {
            let y = 63 + random.int(below: 65)
            let spread = 3 + (y - 62) / 3
            canvas.fillRect(
                x: 74 - spread + random.int(below: 2 * spread + 1), y: y, width: 1 + random.int(below: 3), height: 1,
                color: RGBA(r: 255, g: 254, b: 236, a: 230))
        }
        // Far icebergs on the horizon.
        canvas.fillPolygon([(80, 62.5), (84, 59), (92, 58), (98, 62.5)], color: RGBA(r: 214, g: 230, b: 246))
        canvas.fillPolygon([(0, 62.5), (0, 59), (6, 60), (10, 62.5)], color: RGBA(r: 214, g: 230, b: 246))
        let ice = RGBA(r: 236, g: 244, b: 252), iceTop = RGBA(r: 252, g: 254, b: 255)
        let iceShade = RGBA(r: 164, g: 198, b: 230), underwater = RGBA(r: 96, g: 186, b: 206, a: 150)
        // A pointed iceberg, farther off: lit face left, blue shadow right, its submerged foot below.
        canvas.fillPolygon([(10, 71), (70, 71), (62, 80), (20, 80)], color: underwater)
        canvas.fillPolygon([(14, 71), (24, 54), (32, 50), (40, 32), (48, 45), (58, 51), (68, 71)], color: ice)
        canvas.fillPolygon([(40, 32), (48, 45), (58, 51), (68, 71), (46, 71), (43, 50)], color: iceShade)
        // A large tabular iceberg, near: flat top, cliffs with crevasses, shaded end.
        canvas.fillPolygon([(90, 85), (192, 85), (186, 104), (102, 106)], color: underwater)
        canvas.fillPolygon([(96, 85), (100, 50), (106, 44), (150, 42), (176, 46), (184, 54), (188, 85)], color: ice)
        canvas.fillPolygon(
            [(100, 50), (106, 44), (150, 42), (176, 46), (184, 54), (170, 51), (130, 49)], color: iceTop)
        canvas.fillPolygon([(176, 46), (184, 54), (188, 85), (172, 85), (170, 51)], color: iceShade)
        for crevasseX in [108, 117, 129, 142, 156, 163] {
            let start = 52 + random.int(below: 8)
            canvas.fillRect(
                x: crevasseX, y: start, width: 1, height: 33 - random.int(below: 14) - (start - 52),
                color: RGBA(r: 196, g: 218, b: 240))
        }
        canvas.fillRect(x: 97, y: 84, width: 91, height: 1, color: RGBA(r: 140, g: 184, b: 220))
        // Bergy bits drifting in front.
        for (bx, by, rx) in [
            (24.0, 104.0, 10.0), (60.0, 118.0, 7.0), (40.0, 96.0, 4.0), (150.0, 120.0, 14.0), (176.0, 112.0, 5.0),
        ] {
            canvas.fillEllipse(x: bx, y: by + 1.5, rx: rx, ry: rx * 0.3 + 1.5, color: RGBA(r: 110, g: 170, b: 214))
            canvas.fillEllipse(x: bx, y: by, rx: rx, ry: rx * 0.3, color: RGBA(r: 246, g: 250, b: 255))
        }
        // Two gulls.
        for (gx, gy) in [(120, 22), (130, 28)] {
            for (dx, dy) in [(0, 0), (1, -1), (2, -1), (3, 0), (4, -1), (5, -1), (6, 0)] {
                canvas.plot(x: gx + dx, y: gy + dy, color: RGBA(r: 40, g: 52, b: 72))
            }
        }
        return canvas.image
    }

    fileprivate static func drawArcticAurora() -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 116)
        canvas.starrySky(
            to: 90, top: RGBA(r: 3, g: 6, b: 22), bottom: RGBA(r: 14, g: 34, b: 56), stars: 110, above: 80,
            brightness: 100..<255, random: &random)
        for (sx, sy) in [(22.0, 12.0), (128.0, 8.0), (178.0, 30.0)] {
            canvas.glow(x: sx, y: sy, radius: 3, color: .white, strength: 1)
        }
        // The aurora: curtains whose bright lower edge waves across the sky; above it light fades into
        // violet in vertical rays; below it stops sharply.
        let green = RGBA(r: 70, g: 255, b: 150), violet = RGBA(r: 150, g: 80, b: 220)
        paintAuroraCurtains(green: green, violet: violet, on: &canvas)
        // Dark mountains with faintly lit snow caps.
        canvas.fillPolygon(
            [
                (0, 90), (0, 74), (18, 66), (34, 72), (56, 58), (78, 70), (96, 64), (120, 76), (150, 60), (174, 70),
                (192, 66), (192, 90),
            ], color: RGBA(r: 12, g: 18, b: 30))
        for (px, py) in [(18.0, 66.0), (56.0, 58.0), (96.0, 64.0), (150.0, 60.0)] {
            canvas.fillPolygon(
                [(px, py), (px - 7, py + 4), (px - 3, py + 3), (px + 1, py + 5), (px + 5, py + 3)],
                color: RGBA(r: 52, g: 80, b: 92))
        }
        // Snow plain tinted by the aurora, a frozen lake mirroring it.
        canvas.verticalGradient(from: 84, to: 128, top: RGBA(r: 30, g: 48, b: 64), bottom: RGBA(r: 62, g: 84, b: 102))
        canvas.glow(x: 90, y: 86, radius: 90, color: green, strength: 0.12)
        canvas.fillEllipse(x: 64, y: 100, rx: 46, ry: 6, color: RGBA(r: 16, g: 30, b: 44))
        for _ in 0..<12 {
            canvas.fillRect(
                x: 32 + random.int(below: 56), y: 96 + random.int(below: 8), width: 5 + random.int(below: 12),
                height: 1,
                color: RGBA(r: 70, g: 220, b: 140, a: 90))
        }
        // Spruces and a cabin with a lit window.
        let spruce = RGBA(r: 8, g: 20, b: 18)
        for (tx, ty, size) in [
            (124.0, 106.0, 16.0), (170.0, 102.0, 14.0), (181.0, 110.0, 22.0), (12.0, 96.0, 12.0), (112.0, 100.0, 10.0),
        ] {
            canvas.fillRect(x: Int(tx) - 1, y: Int(ty), width: 2, height: Int(size / 6) + 1, color: spruce)
            for tier in 0..<3 {
                let tierTop = ty - size + Double(tier) * size / 4
                let half = size / 6 + Double(tier) * size / 9
                canvas.fillPolygon(
                    [(tx, tierTop), (tx + half, tierTop + size / 2), (tx - half, tierTop + size / 2)], color: spruce)
            }
        }
        canvas.fillRect(x: 140, y: 94, width: 22, height: 12, color: RGBA(r: 48, g: 34, b: 30))
        canvas.fillPolygon([(136, 95), (151, 84), (166, 95)], color: RGBA(r: 160, g: 182, b: 198))
        canvas.fillRect(x: 156, y: 83, width: 3, height: 6, color: RGBA(r: 40, g: 30, b: 28))
        canvas.fillRect(x: 144, y: 97, width: 5, height: 4, color: RGBA(r: 255, g: 206, b: 120))
        canvas.fillRect(x: 154, y: 99, width: 4, height: 7, color: RGBA(r: 22, g: 16, b: 14))
        canvas.glow(x: 146.5, y: 99, radius: 16, color: RGBA(r: 255, g: 190, b: 100), strength: 0.45)
        // Footprints from the cabin door towards the viewer.
        for step in 0..<9 {
            let t = Double(step)
            let fx = 156 - t * 3 + 4 * sin(t * 0.7), fy = 108 + t * 2.4
            canvas.fillEllipse(
                x: fx + (step % 2 == 0 ? -1.5 : 1.5), y: fy, rx: 1.2, ry: 0.8, color: RGBA(r: 30, g: 46, b: 62))
        }
        return canvas.image
    }

    /// The aurora's curtains, green at their waving lower edge, fading into violet above it.
    fileprivate static func paintAuroraCurtains(green: RGBA, violet: RGBA, on canvas: inout Canvas) {
        let curtains: [(base: Double, amplitude: Double, frequency: Double, phase: Double, height: Double)] =
            [(46, 11, 0.034, 0.4, 36), (64, 6, 0.052, 2.1, 22)]
        for curtain in curtains {
            for x in 0..<192 {
                let xs = Double(x)
                let edge =
                    curtain.base + curtain.amplitude * sin(xs * curtain.frequency + curtain.phase) + 2
                    * sin(xs * 0.21 + curtain.phase)
                let rays = 0.55 + 0.45 * sin(xs * 0.9 + curtain.phase) * sin(xs * 0.17 + 1)
                let top = edge - curtain.height * (0.7 + 0.3 * rays)
                for y in max(0, Int(top))..<min(128, Int(edge) + 3) {
                    let yc = Double(y) + 0.5
                    var light = yc <= edge ? canvas.mix(green, violet, pow((edge - yc) / (edge - top), 2)) : green
                    let weight =
                        yc <= edge
                        ? rays * pow(max(0, 1 - (edge - yc) / (edge - top)), 1.3)
                        : rays * max(0, 1 - (yc - edge) / 2.5)
                    light.a = UInt8((min(1, weight * 0.85) * 255).rounded())
                    canvas.plot(x: x, y: y, color: light)
                }
            }
        }
    }

    fileprivate static func drawArcticSunset() -> RGBAImage {
        var canvas = Canvas(width: 192, height: 128)
        var random = SeededGenerator(seed: 115)
        // Sky from violet overhead through rose to orange at the horizon; a low sun half under the sea.
        canvas.verticalGradient(from: 0, to: 36, top: RGBA(r: 40, g: 34, b: 86), bottom: RGBA(r: 168, g: 88, b: 122))
        canvas.verticalGradient(from: 36, to: 64, top: RGBA(r: 168, g: 88, b: 122), bottom: RGBA(r: 255, g: 176, b: 96))
        canvas.glow(x: 118, y: 62, radius: 70, color: RGBA(r: 255, g: 170, b: 90), strength: 0.6)
        for (cx, cy, rx, ry) in [
            (40.0, 30.0, 34.0, 2.0), (150.0, 22.0, 40.0, 2.5), (96.0, 44.0, 26.0, 1.5), (170.0, 48.0, 18.0, 1.2),
        ] {
            canvas.fillEllipse(x: cx, y: cy, rx: rx, ry: ry, color: RGBA(r: 240, g: 128, b: 118, a: 190))
        }
        canvas.fillEllipse(x: 118, y: 63, rx: 12, ry: 12, color: RGBA(r: 255, g: 222, b: 150))
        // Ice cliffs along the horizon, in shadow.
        canvas.fillPolygon(
            [(0, 64), (0, 56), (22, 55), (26, 57), (54, 57), (58, 60), (70, 64)], color: RGBA(r: 112, g: 78, b: 120))
        canvas.fillPolygon([(160, 64), (166, 60), (192, 59), (192, 64)], color: RGBA(r: 112, g: 78, b: 120))
        // Dark violet sea with the sun's path broken into streaks.
        canvas.verticalGradient(from: 64, to: 128, top: RGBA(r: 118, g: 70, b: 112), bottom: RGBA(r: 30, g: 24, b: 60))
        for y in 64..<128 {
            let depth = Double(y - 64)
            for _ in 0..<3 {
                let offset = (Double(random.int(below: 201)) / 100 - 1) * (5 + depth * 0.45)
                canvas.fillRect(
                    x: 118 + Int(offset), y: y, width: 2 + random.int(below: 5), height: 1,
                    color: RGBA(r: 255, g: 190, b: 110, a: 200))
            }
        }
        // Ice floes: flat, irregular, larger and lower as they come nearer; pink-lit tops over shadowed edges.
        let floes: [(x: Double, y: Double, rx: Double)] = [
            (30, 68, 10), (72, 70, 8), (160, 69, 12), (104, 75, 14), (18, 84, 22), (152, 88, 26), (80, 95, 18),
            (42, 112, 38), (156, 118, 34), (104, 126, 20),
        ]
        for floe in floes {
            let nearness = (floe.y - 64) / 64
            let ry = floe.rx * (0.12 + 0.22 * nearness), thickness = 1 + nearness * 3
            var outline: [(Double, Double)] = []
            for k in 0..<9 {
                let angle = Double(k) * 2 * Double.pi / 9
                let r = 0.75 + Double(random.int(below: 26)) / 100
                outline.append((floe.x + floe.rx * r * cos(angle), floe.y + ry * r * sin(angle)))
            }
            canvas.fillPolygon(outline.map { ($0.0, $0.1 + thickness) }, color: RGBA(r: 92, g: 68, b: 122))
            canvas.fillPolygon(
                outline, color: canvas.mix(RGBA(r: 214, g: 170, b: 190), RGBA(r: 250, g: 206, b: 196), nearness))
        }
        // A polar bear on the nearest floe, with its long shadow.
        let fur = RGBA(r: 240, g: 214, b: 196), furShade = RGBA(r: 196, g: 160, b: 170)
        canvas.fillEllipse(x: 32, y: 110, rx: 11, ry: 1.5, color: RGBA(r: 176, g: 132, b: 160))
        for legX in [30, 40] {
            canvas.fillRect(x: legX, y: 103, width: 3, height: 6, color: furShade)
        }
        canvas.fillEllipse(x: 37, y: 101, rx: 9, ry: 4.5, color: fur)
        for legX in [33, 43] {
            canvas.fillRect(x: legX, y: 103, width: 3, height: 7, color: fur)
        }
        canvas.fillEllipse(x: 47, y: 99, rx: 3.5, ry: 2.5, color: fur)
        canvas.fillEllipse(x: 50.5, y: 100, rx: 1.8, ry: 1.3, color: fur)
        canvas.plot(x: 52, y: 99, color: RGBA(r: 30, g: 20, b: 30))
        canvas.plot(x: 47, y: 98, color: RGBA(r: 30, g: 20, b: 30))
        canvas.fillEllipse(x: 45.5, y: 96.8, rx: 1, ry: 1, color: fur)
        return canvas.image
    }
}

// MARK: - Drawing helpers

/// A minimal raster painter over an opaque image: rectangles, spans,
/// gradients, ellipses, polygons and glows. Shapes are sampled at pixel
/// centres `(x + 0.5, y + 0.5)`; anything outside the image is clipped.
/// Colours with alpha below 255 are blended over what is there ("source over").
private struct Canvas {
    private(set) var image: RGBAImage
    let width: Int
    let height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
        self.image = RGBAImage(width: width, height: height, fill: .black)
    }

    /// Paints one pixel, blending by `color.a`; the result stays opaque.
    mutating func plot(x: Int, y: Int, color: RGBA) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        if color.a == 255 {
            image.setPixel(x: x, y: y, to: color)
            return
        }
        let under = image.pixel(x: x, y: y)
        let a = Int(color.a)
        func over(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
            UInt8((Int(top) * a + Int(bottom) * (255 - a) + 127) / 255)
        }
        image.setPixel(
            x: x, y: y, to: RGBA(r: over(color.r, under.r), g: over(color.g, under.g), b: over(color.b, under.b)))
    }

    mutating func fillRect(x: Int, y: Int, width w: Int, height h: Int, color: RGBA) {
        for py in max(y, 0)..<max(min(y + h, height), max(y, 0)) {
            for px in max(x, 0)..<max(min(x + w, width), max(x, 0)) {
                plot(x: px, y: py, color: color)
            }
        }
    }

    /// Pixels of row `y` whose centres lie in `[from, to]`.
    mutating func fillSpan(y: Int, from: Double, to: Double, color: RGBA) {
        let first = max(0, Int((from - 0.5).rounded(.up)))
        let last = min(width - 1, Int((to - 0.5).rounded(.down)))
        guard first <= last else { return }
        for x in first...last { plot(x: x, y: y, color: color) }
    }

    /// A night sky (the dark road, the night train, the aurora): rows `0..<to` shaded from `top`
    /// to `bottom`, then `stars` grey stars across the whole width in the rows above `above`, each
    /// of a brightness drawn from `brightness`. The draws are made in the order brightness, x, y,
    /// so a picture's seed gives the same sky every time.
    mutating func starrySky(
        to: Int, top: RGBA, bottom: RGBA, stars: Int, above: Int, brightness: Range<Int>, random: inout SeededGenerator
    ) {
        verticalGradient(from: 0, to: to, top: top, bottom: bottom)
        for _ in 0..<stars {
            let level = UInt8(brightness.lowerBound + random.int(below: brightness.count))
            plot(x: random.int(below: width), y: random.int(below: above), color: RGBA(r: level, g: level, b: level))
        }
    }

    /// Rows `from..<to` shaded linearly from `top` to `bottom`.
    mutating func verticalGradient(from: Int, to: Int, top: RGBA, bottom: RGBA) {
        for y in max(from, 0)..<min(to, height) {
            let color = mix(top, bottom, Double(y - from) / Double(max(to - from - 1, 1)))
            fillRect(x: 0, y: y, width: width, height: 1, color: color)
        }
    }

    /// In each column `x`, the rows from `surface(x)` down to `to` (exclusive), within `from..<to`.
    mutating func fillRows(from: Int, to: Int, surface: (Int) -> Double, color: (Int) -> RGBA) {
        for x in 0..<width {
            let start = max(from, Int((surface(x) - 0.5).rounded(.up)))
            for y in max(start, 0)..<max(min(to, height), max(start, 0)) { plot(x: x, y: y, color: color(x)) }
        }
    }

    mutating func fillEllipse(x cx: Double, y cy: Double, rx: Double, ry: Double, color: RGBA) {
        let rows = max(0, Int(cy - ry) - 1)..<min(height, Int(cy + ry) + 2)
        for y in rows {
            let dy = (Double(y) + 0.5 - cy) / ry
            let inside = 1 - dy * dy
            guard inside >= 0 else { continue }
            let half = rx * inside.squareRoot()
            fillSpan(y: y, from: cx - half, to: cx + half, color: color)
        }
    }

    /// A filled polygon (even-odd rule), vertices in pixel coordinates.
    mutating func fillPolygon(_ points: [(Double, Double)], color: RGBA) {
        guard points.count >= 3 else { return }
        let minY = max(0, Int(points.map(\.1).min()!) - 1)
        let maxY = min(height - 1, Int(points.map(\.1).max()!) + 1)
        guard minY <= maxY else { return }
        for y in minY...maxY {
            let sy = Double(y) + 0.5
            var crossings: [Double] = []
            for i in points.indices {
                let (x0, y0) = points[i]
                let (x1, y1) = points[(i + 1) % points.count]
                if (y0 <= sy && y1 > sy) || (y1 <= sy && y0 > sy) {
                    crossings.append(x0 + (sy - y0) / (y1 - y0) * (x1 - x0))
                }
            }
            crossings.sort()
            var i = 0
            while i + 1 < crossings.count {
                fillSpan(y: y, from: crossings[i], to: crossings[i + 1], color: color)
                i += 2
            }
        }
    }

    /// A soft light: `color` blended in with weight `strength · (1 − d / radius)²` within `radius` of the centre.
    mutating func glow(x cx: Double, y cy: Double, radius: Double, color: RGBA, strength: Double) {
        for y in max(0, Int(cy - radius))..<min(height, Int(cy + radius) + 1) {
            for x in max(0, Int(cx - radius))..<min(width, Int(cx + radius) + 1) {
                let dx = Double(x) + 0.5 - cx, dy = Double(y) + 0.5 - cy
                let d = (dx * dx + dy * dy).squareRoot()
                guard d < radius else { continue }
                let falloff = 1 - d / radius
                let weight = min(1, strength * falloff * falloff)
                var blended = color
                blended.a = UInt8((weight * 255).rounded())
                plot(x: x, y: y, color: blended)
            }
        }
    }

    /// `a` when `t` is 0, `b` when `t` is 1, linear between; opaque.
    func mix(_ a: RGBA, _ b: RGBA, _ t: Double) -> RGBA {
        let weight = min(max(t, 0), 1)
        func channel(_ p: UInt8, _ q: UInt8) -> UInt8 {
            let from = Double(p), to = Double(q)
            let mixed: Double = from + (to - from) * weight
            return UInt8(mixed.rounded())
        }
        return RGBA(r: channel(a.r, b.r), g: channel(a.g, b.g), b: channel(a.b, b.b))
    }
}

/// The pictures' texture comes from ExperimentKit's fixed-seed generator, the same on every run.
extension SeededGenerator {
    /// An integer in `0..<bound` (modulo bias is irrelevant for texture).
    fileprivate mutating func int(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
