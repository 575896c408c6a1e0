// Fixtures: the committed test images (Fixtures/make_fixtures.py) and Pillow's reference pixels for them.
import DWTestSupport
import DWWebImage
import Foundation
import XCTest

enum Fixtures {
    static let directory = SourceTree.processingFixtures

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: directory.appendingPathComponent(name))
    }

    static func image(_ name: String) throws -> DWImage {
        try DWImage(data: data(name))
    }

    /// expected.json: name → {size, samples: [[x, y, [r, g, b, a]]], delays_ms, loop}.
    static var expected: [String: [String: Any]] {
        let url = directory.appendingPathComponent("expected.json")
        let object = try? JSONSerialization.jsonObject(with: Data(contentsOf: url))
        return object as? [String: [String: Any]] ?? [:]
    }

    static func size(_ name: String) -> (Int, Int)? {
        guard let size = expected[name]?["size"] as? [Int], size.count == 2 else { return nil }
        return (size[0], size[1])
    }

    static func samples(_ name: String) -> [(x: Int, y: Int, rgba: [Int])] {
        guard let list = expected[name]?["samples"] as? [[Any]] else { return [] }
        return list.compactMap { entry in
            guard entry.count == 3, let x = entry[0] as? Int, let y = entry[1] as? Int, let rgba = entry[2] as? [Int]
            else { return nil }
            return (x, y, rgba)
        }
    }
}

/// Asserts that `bitmap` has `rgba` at (x, y), each channel within `tolerance`.
func assertPixel(
    _ bitmap: DWBitmap, _ x: Int, _ y: Int, _ rgba: [Int], tolerance: Int, _ what: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    let p = bitmap.rgba(x: x, y: y)
    let got = [Int(p.r), Int(p.g), Int(p.b), Int(p.a)]
    // Fully transparent pixels: only alpha matters (their colour is undefined across decoders).
    let channels = rgba[3] == 0 && got[3] == 0 ? [3] : [0, 1, 2, 3]
    for c in channels where abs(got[c] - rgba[c]) > tolerance {
        XCTFail("\(what) at (\(x),\(y)): got \(got), expected \(rgba) ±\(tolerance)", file: file, line: line)
        return
    }
}

/// The whole text of a /proc file (their size reads as 0, so read until EOF).
func readProcFile(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var data = Data()
    var buffer = [UInt8](repeating: 0, count: 65536)
    while true {
        let n = read(fd, &buffer, buffer.count)
        if n <= 0 { break }
        data.append(buffer, count: n)
    }
    return String(decoding: data, as: UTF8.self)
}
