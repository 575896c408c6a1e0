// /info (imgproxy Pro's shape): fields against Pillow's view of the source, a BlurHash decoded back, signatures.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class InfoEndpointTests: ServeTestCase {
    func testInfoFieldsMatchPillowAndTheBlurHashDecodesBack() throws {
        let quads = SampleImages.quadrants(width: 100, height: 80)
        origin.setRoute("/q.png", .ok(quads))
        let key = "736563726574", salt = "68656C6C6F"
        let server = try serve(["--key", key, "--salt", salt])
        let rest = "/bh:4:3/dc:4/avg:1/plain/\(origin.url("/q.png"))"
        let signature = try python(hmacOf: rest, key: key, salt: salt)
        let response = try server.get("/info/\(signature)\(rest)")
        XCTAssertEqual(response.status, 200, response.text)
        XCTAssertEqual(response.header("Content-Type"), "application/json")
        let info = try XCTUnwrap(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
        let pillow = try pillow(quads)
        XCTAssertEqual(info["width"] as? Int, pillow.width)
        XCTAssertEqual(info["height"] as? Int, pillow.height)
        XCTAssertEqual((info["format"] as? String)?.uppercased(), pillow.format)
        XCTAssertEqual(info["frames"] as? Int, pillow.frames)
        XCTAssertEqual(info["size"] as? Int, quads.count)
        XCTAssertEqual(info["orientation"] as? Int, 1)
        let colours = try XCTUnwrap(info["dominant_colors"] as? [[String: Any]])
        XCTAssertEqual(Set(colours.compactMap { $0["color"] as? String }), ["#ff0000", "#00ff00", "#0000ff", "#ffff00"])
        let average = try XCTUnwrap(info["average"] as? [String: Int])
        XCTAssertEqual(average["R"] ?? 0, 128, accuracy: 2)
        XCTAssertEqual(average["B"] ?? 0, 64, accuracy: 2)
        // The BlurHash decoded back (woltapp's algorithm in Python): each corner leans to its quadrant's colour.
        let hash = try XCTUnwrap(info["blurhash"] as? String)
        let corners = try python(Self.blurHashDecoder + "\nprint(corners('\(hash)'))")
        XCTAssertEqual(corners, "R G B Y", "decoded corners of \(hash)")

        XCTAssertEqual(try server.get("/info/insecure\(rest)").status, 403, "signed like processing URLs")
        let unknown = try serve().get("/info/insecure/bogus:1/plain/\(origin.url("/q.png"))")
        XCTAssertEqual(unknown.status, 400)
        XCTAssertTrue(unknown.text.contains("bogus"), unknown.text)
        let plain = try serve().get("/info/insecure/plain/\(origin.url("/q.png"))")
        let defaults = try XCTUnwrap(try JSONSerialization.jsonObject(with: plain.body) as? [String: Any])
        XCTAssertEqual(
            Set(defaults.keys), ["width", "height", "format", "frames", "size", "orientation", "aspect_ratio"])
    }

    /// An /info answer is cached as a variant is: the same options again are answered from the cache (the access
    /// log says `info cached`) with the origin asked once; other options and another cache buster are other entries.
    func testInfoAnswersAreCachedPerOptionsAndCacheBuster() throws {
        origin.setRoute("/c.png", .ok(SampleImages.quadrants(width: 40, height: 30)))
        let server = try serve(["-v"])
        let source = origin.url("/c.png")
        var answers: [String: Data] = [:]
        // (options, answered from the /info cache)
        let requests = [
            ("bh:3", false), ("bh:3", true), ("bh:4", false), ("bh:3/cb:2", false), ("bh:3/cb:2", true),
            ("bh:4", true), ("bh:3", true)
        ]
        for (index, (options, cached)) in requests.enumerated() {
            let target = "/info/insecure/\(options)/plain/\(source)"
            let response = try server.get(target)
            XCTAssertEqual(response.status, 200, "\(options): \(response.text)")
            let line = try accessLine(server, target, index: requests[...index].filter { $0.0 == options }.count)
            XCTAssertEqual(line.hasSuffix(" info cached"), cached, "request \(index) (\(options)): \(line)")
            if let earlier = answers[options] { XCTAssertEqual(response.body, earlier, "\(options): the same answer") }
            answers[options] = response.body
        }
        XCTAssertEqual(origin.requestCount(path: "/c.png"), 1, "one origin fetch for every /info")
        XCTAssertNotEqual(answers["bh:3"], answers["bh:4"], "other options, another answer")
        let cacheBusted = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: answers["bh:3/cb:2"] ?? Data()) as? [String: Any])
        XCTAssertNil(cacheBusted["cb"], "cb changes the key, not the answer")
        XCTAssertEqual(answers["bh:3/cb:2"], answers["bh:3"])
    }

    /// The `index`-th (from 1) access-log line for `target`, waiting for it (the line is written as the answer goes).
    private func accessLine(_ server: ServeProcess, _ target: String, index: Int) throws -> String {
        let marker = "GET \(target) "
        var lines: [Substring] = []
        let written = eventually(timeout: 10, interval: 0.02) {
            lines = server.stderr.split(separator: "\n").filter { $0.contains(marker) }
            return lines.count >= index
        }
        guard written else {
            throw ServeStartFailure("no access-log line \(index) for \(target):\n\(server.stderr)")
        }
        return String(lines[index - 1])
    }

    /// A BlurHash decoder (woltapp/blurhash's decode, 6 × 6 pixels) that names each corner's main colour.
    static let blurHashDecoder = """
        import math
        A = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz#$%*+,-.:;=?@[]^_{|}~'
        def d83(s): 
            v = 0
            for c in s: v = v * 83 + A.index(c)
            return v
        def lin(v):
            v = v / 255
            return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4
        def srgb(v):
            v = max(0, min(1, v))
            return round((v * 12.92 if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055) * 255)
        def decode(h, w, ht):
            size = d83(h[0]); nx, ny = size % 9 + 1, size // 9 + 1
            mx = (d83(h[1]) + 1) / 166
            dc = d83(h[2:6]); colors = [(lin(dc >> 16), lin((dc >> 8) & 255), lin(dc & 255))]
            for i in range(1, nx * ny):
                v = d83(h[4 + i * 2:6 + i * 2])
                q = lambda x: math.copysign(((x - 9) / 9) ** 2, x - 9) * mx
                colors.append((q(v // 361), q((v // 19) % 19), q(v % 19)))
            px = []
            for y in range(ht):
                row = []
                for x in range(w):
                    c = [0, 0, 0]
                    for j in range(ny):
                        for i in range(nx):
                            b = math.cos(math.pi * x * i / w) * math.cos(math.pi * y * j / ht)
                            for k in range(3): c[k] += colors[i + j * nx][k] * b
                    row.append([srgb(v) for v in c])
                px.append(row)
            return px
        def name(p):
            r, g, b = p
            if r > 150 and g > 150 and b < 120: return 'Y'
            return 'RGB'[p.index(max(p))]
        def corners(h):
            p = decode(h, 6, 6)
            return ' '.join(name(p[y][x]) for (x, y) in [(0, 0), (5, 0), (0, 5), (5, 5)])
        """
}
