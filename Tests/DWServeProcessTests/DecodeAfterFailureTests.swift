// The request after a corrupt JPEG, through the built `dwfetch serve`: the corrupt one is a clean 422, and the good
// JPEG asked next of the same server with the same options is what a fresh server answers, so neither decoder
// (libjpeg straight into memory, or libvips after it refused) keeps anything of a failed decode.
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

final class DecodeAfterFailureTests: ServeTestCase {
    /// An 800 × 600 baseline 4:2:0 JPEG of gradients, stripes and seeded noise, no metadata (Pillow).
    private func photo() throws -> Data {
        let text = try python(
            """
            import base64, io, random
            from PIL import Image
            w, h = 800, 600
            noise = random.Random(7).randbytes(w * h)
            px = bytearray(w * h * 3)
            for y in range(h):
                for x in range(w):
                    i = y * w + x
                    n = noise[i] >> 3
                    px[3 * i] = (x * 255 // w) // 2 + n
                    px[3 * i + 1] = (y * 255 // h) // 2 + (90 if x // 37 % 2 == 0 else 10)
                    px[3 * i + 2] = ((x + y) * 3 % 256) // 2 + n
            out = io.BytesIO()
            Image.frombytes('RGB', (w, h), bytes(px)).save(out, 'JPEG', quality=85)
            print(base64.b64encode(out.getvalue()).decode())
            """)
        return try XCTUnwrap(Data(base64Encoded: text))
    }

    /// The offset just past the first segment with marker `0xFF code` (its length field counts itself).
    private static func segmentEnd(_ code: UInt8, in jpeg: Data) -> Int? {
        let bytes = [UInt8](jpeg)
        var at = 2  // after SOI
        while at + 4 <= bytes.count, bytes[at] == 0xFF {
            let end = at + 2 + (Int(bytes[at + 2]) << 8 | Int(bytes[at + 3]))
            if bytes[at + 1] == code { return end }
            at = end
        }
        return nil
    }

    /// `jpeg`'s first `kept` bytes, then seeded garbage, then an EOI marker: as long as `jpeg`.
    private static func garbage(after kept: Int, of jpeg: Data) -> Data {
        var state: UInt32 = 2024
        var out = Data(jpeg.prefix(kept))
        while out.count < jpeg.count - 2 {
            state = state &* 1_103_515_245 &+ 12345
            out.append(UInt8(truncatingIfNeeded: state >> 16))
        }
        return out + [0xFF, 0xD9]
    }

    /// Width and height of an encoded image, as `vipsheader` (libvips-tools) reads them.
    private static func size(_ image: Data) throws -> [Int] {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("dwafter-\(UUID().uuidString)")
        try image.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ["width", "height"].map { field in
            let text = try Subprocess.output(["vipsheader", "-f", field, file.path])
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
    }

    /// Corrupt JPEGs asked with `rs:fit:300:200`, each followed by the good JPEG with the same options on the same
    /// server (one transform worker, so the same thread): the good one is 300 × 200's fit, byte for byte the answer
    /// a fresh server gives and this server gave before any failure. Cut in half (libjpeg stops at the missing
    /// data, then libvips, whose `fail_on=truncated` refuses it) and garbage from the frame header on (libvips'
    /// header read refuses it) are 422. Garbage for the entropy-coded data, from its start or from its middle, only
    /// makes libjpeg warn: the decode in memory gives up on the warning and libvips, which fails on truncation
    /// only, decodes what it can (200, damaged pixels). Three rounds; every source under its own path, so each is
    /// fetched and decoded (no cached variant or remembered failure answers).
    func testAGoodJPEGAfterACorruptOneIsWhatAFreshServerAnswers() throws {
        let good = try photo()
        let scan = try XCTUnwrap(Self.segmentEnd(0xDA, in: good), "SOS")
        let frame = try XCTUnwrap(Self.segmentEnd(0xC0, in: good), "SOF0")
        XCTAssertLessThan(scan, good.count / 2, "the cut and the middle are in the entropy-coded data")
        let corrupt: [(String, Data, Int)] = [
            ("cut in half", good.prefix(good.count / 2), 422),
            ("garbage from the frame header on", Self.garbage(after: frame, of: good), 422),
            ("garbage entropy-coded data", Self.garbage(after: scan, of: good), 200),
            ("garbage from the middle of the entropy-coded data", Self.garbage(after: good.count / 2, of: good), 200)
        ]
        let options = "rs:fit:300:200", arguments = ["--workers", "1"]
        var served = 0
        func get(_ data: Data, on server: ServeProcess) throws -> HTTPResult {
            served += 1
            let path = "/source-\(served).jpg"
            origin.setRoute(path, .ok(data, contentType: "image/jpeg"))
            let response = try server.get(ProxyPath.plain(origin.url(path), options: options))
            XCTAssertEqual(origin.requestCount(path: path), 1, "\(path): fetched, so decoded")
            return response
        }
        let reference = try get(good, on: serve(arguments))
        XCTAssertEqual(reference.status, 200, reference.text)
        XCTAssertEqual(reference.header("Content-Type"), "image/jpeg")
        XCTAssertEqual(try Self.size(reference.body), [267, 200])

        let server = try serve(arguments)
        let first = try get(good, on: server)
        XCTAssertEqual(first.status, 200, first.text)
        XCTAssertTrue(first.body == reference.body, "before any failure: a fresh server's answer")
        for round in 1...3 {
            for (name, data, status) in corrupt {
                let bad = try get(data, on: server)
                XCTAssertEqual(bad.status, status, "round \(round), \(name): \(bad.text.prefix(200))")
                if status == 200 {
                    XCTAssertEqual(try Self.size(bad.body), [267, 200], "round \(round), \(name)")
                    XCTAssertFalse(bad.body == reference.body, "round \(round), \(name): damaged pixels")
                }
                let next = try get(good, on: server)
                XCTAssertEqual(next.status, 200, "round \(round), after \(name): \(next.text)")
                XCTAssertEqual(try Self.size(next.body), [267, 200], "round \(round), after \(name)")
                XCTAssertTrue(next.body == reference.body, "round \(round), after \(name): a fresh server's answer")
            }
        }
        XCTAssertTrue(server.process.isRunning, "the server is still up")
    }
}
