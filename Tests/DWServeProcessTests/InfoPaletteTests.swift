// /info's `dc:1`: imgproxy Pro's dominant colours by name ({"vibrant": {"R","G","B"}, …}), with `build_missed`.
import DWTestServer
import Foundation
import XCTest

final class InfoPaletteTests: ServeTestCase {
    /// A GIF of four known colours: half vivid orange, a quarter muted slate, dark vivid blue and light muted beige.
    static let palette: [(UInt8, UInt8, UInt8)] = [(230, 120, 20), (110, 120, 130), (20, 30, 110), (210, 200, 180)]
    static let image: Data = {
        let (width, height) = (40, 40)
        var pixels: [UInt8] = []
        for y in 0..<height {
            for _ in 0..<width { pixels.append(y < 20 ? 0 : y < 30 ? 1 : y < 36 ? 2 : 3) }
        }
        return SampleImages.gif(width: width, height: height, palette: palette, frames: [pixels])
    }()

    private func colours(_ server: ServeProcess, _ options: String) throws -> [String: [String: Int]] {
        let answer = try server.get("/info/insecure/\(options)/plain/\(origin.url("/p.gif"))")
        XCTAssertEqual(answer.status, 200, answer.text)
        let info = try XCTUnwrap(try JSONSerialization.jsonObject(with: answer.body) as? [String: Any], answer.text)
        return try XCTUnwrap(info["dominant_colors"] as? [String: [String: Int]], "\(options): \(answer.text)")
    }

    private func assertColour(_ found: [String: Int]?, _ expected: (UInt8, UInt8, UInt8), _ name: String) {
        XCTAssertEqual(Set(found?.keys.map { $0 } ?? []), ["R", "G", "B"], name)
        for (key, value) in zip(["R", "G", "B"], [expected.0, expected.1, expected.2]) {
            XCTAssertEqual(found?[key] ?? -1, Int(value), accuracy: 2, "\(name).\(key): \(found ?? [:])")
        }
    }

    /// `dc:1`: each colour under the name its saturation and lightness give it, the names without such a colour
    /// left out; `dc:1:1` (build_missed) adds them, made from those found (light vibrant: the vibrant's hue at
    /// lightness 0.74; dark muted: the dark vibrant's at saturation 0.3); `dc:4` stays the list of main colours.
    func testDominantColorsAnswerImgproxyProsNamedColours() throws {
        origin.setRoute("/p.gif", .ok(Self.image, contentType: "image/gif"))
        let server = try serve()
        let found = try colours(server, "dc:1")
        XCTAssertEqual(Set(found.keys), ["vibrant", "muted", "dark_vibrant", "light_muted"], "\(found)")
        for (name, index) in [("vibrant", 0), ("muted", 1), ("dark_vibrant", 2), ("light_muted", 3)] {
            assertColour(found[name], Self.palette[index], name)
        }
        let built = try colours(server, "dominant_colors:true:true")
        XCTAssertEqual(
            Set(built.keys), ["vibrant", "light_vibrant", "dark_vibrant", "muted", "light_muted", "dark_muted"])
        for name in found.keys { XCTAssertEqual(built[name], found[name], "\(name) is the one found") }
        func hls(_ colour: [String: Int]?) throws -> [Double] {
            let (r, g, b) = (colour?["R"] ?? 0, colour?["G"] ?? 0, colour?["B"] ?? 0)
            return try python("import colorsys; print(*colorsys.rgb_to_hls(\(r)/255, \(g)/255, \(b)/255))")
                .split(separator: " ").compactMap { Double($0) }
        }
        let (orange, light) = (try hls(built["vibrant"]), try hls(built["light_vibrant"]))
        XCTAssertEqual(light[0], orange[0], accuracy: 0.02, "the vibrant's hue")
        XCTAssertEqual(light[1], 0.74, accuracy: 0.01, "light vibrant's target lightness")
        let (blue, darkMuted) = (try hls(built["dark_vibrant"]), try hls(built["dark_muted"]))
        XCTAssertEqual(darkMuted[0], blue[0], accuracy: 0.02, "the dark vibrant's hue")
        XCTAssertEqual(darkMuted[2], 0.3, accuracy: 0.02, "muted saturation")
        let list = try server.get("/info/insecure/dc:4/plain/\(origin.url("/p.gif"))")
        let info = try XCTUnwrap(try JSONSerialization.jsonObject(with: list.body) as? [String: Any])
        XCTAssertEqual((info["dominant_colors"] as? [[String: Any]])?.count, 4, list.text)
        XCTAssertEqual(
            try server.get("/info/insecure/dc:4:1/plain/\(origin.url("/p.gif"))").status, 400,
            "build_missed goes with dc:1 only")
    }
}
