// gzip cache entries: what .auto compresses, round trips, and damaged gzip entries as misses.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class CacheCompressionTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwgzip" }

    private func flags(_ cache: DWWebImageCache, _ key: String) throws -> UInt16 {
        let file = try Data(contentsOf: cache.fileURL(forKey: key))
        return UInt16(file[6]) | UInt16(file[7]) << 8
    }

    private func fileSize(_ cache: DWWebImageCache, _ key: String) throws -> Int {
        try FileManager.default.attributesOfItem(atPath: cache.fileURL(forKey: key).path)[.size] as? Int ?? -1
    }

    func testAutoGzipsBMPAndTIFFButNotJPEGOrPNG() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        XCTAssertEqual(cache.configuration.compression, .auto)
        let bmp = SampleImages.bmp(width: 200, height: 200)
        let tiff = SampleImages.tiff(width: 200, height: 100)
        let png = SampleImages.png(approximateSize: 50_000)
        for (key, data) in [("bmp", bmp), ("tiff", tiff), ("png", png), ("jpeg", SampleImages.jpeg)] {
            try cache.store(data, forKey: key, policy: [.disk])
            XCTAssertEqual(DWWebImageCache(rootDirectory: root, memoryCountLimit: 0).objCache(forKey: key), data, key)
        }
        XCTAssertEqual(try flags(cache, "bmp") & 1, 1)
        XCTAssertEqual(try flags(cache, "tiff") & 1, 1)
        XCTAssertLessThan(try fileSize(cache, "bmp"), bmp.count, "BMP shrinks")
        XCTAssertEqual(try flags(cache, "png") & 1, 0, "already compressed: stored as is")
        XCTAssertEqual(try flags(cache, "jpeg") & 1, 0)

        cache.configuration.compression = .gzip
        try cache.store(png, forKey: "png-forced", policy: [.disk])
        XCTAssertEqual(try flags(cache, "png-forced") & 1, 1)
        XCTAssertEqual(cache.objCache(forKey: "png-forced"), png)
        cache.configuration.compression = .none
        try cache.store(bmp, forKey: "bmp-plain", policy: [.disk])
        XCTAssertEqual(try flags(cache, "bmp-plain") & 1, 0)
    }

    /// The compressed-format rule is the format's (`DWImageFormat.isCompressed`): JPEG XL and JPEG 2000 bodies are
    /// stored as they are even when their bytes would deflate (a hand-written magic list missed both).
    func testAutoStoresJPEGXLAndJPEG2000AsTheyAre() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        let jxl = Data([0xFF, 0x0A]) + Data(repeating: 0, count: 4096)  // a JPEG XL codestream's signature
        let jp2 =
            Data([0, 0, 0, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]) + Data(repeating: 0, count: 4096)
        for (key, data) in [("jxl", jxl), ("jp2", jp2)] {
            XCTAssertTrue(ImageSniffer.format(of: data).isCompressed, key)
            try cache.store(data, forKey: key, policy: [.disk])
            XCTAssertEqual(try flags(cache, key) & 1, 0, "\(key): stored as is")
            XCTAssertGreaterThanOrEqual(try fileSize(cache, key), data.count, key)
        }
    }

    func testAFlippedByteOrATruncatedGzipEntryIsAMissThatRemovesIt() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        let bmp = SampleImages.bmp(width: 100, height: 100)
        for key in ["flip", "cut"] { try cache.store(bmp, forKey: key, policy: [.disk]) }
        var flipped = try Data(contentsOf: cache.fileURL(forKey: "flip"))
        flipped[flipped.count - 20] ^= 0x40
        try flipped.write(to: cache.fileURL(forKey: "flip"))
        let whole = try Data(contentsOf: cache.fileURL(forKey: "cut"))
        try whole.prefix(whole.count - 7).write(to: cache.fileURL(forKey: "cut"))
        for key in ["flip", "cut"] {
            XCTAssertNil(cache.objCache(forKey: key), key)
            XCTAssertFalse(FileManager.default.fileExists(atPath: cache.fileURL(forKey: key).path), "\(key) removed")
        }
    }

    func testGzipChecksTheOriginalCRCEvenWhenTheStoredBytesAreConsistent() throws {
        // A gzip stream whose trailer CRC disagrees with its content, re-wrapped with a valid outer CRC:
        // only zlib's check can catch it.
        let payload = Data(repeating: 7, count: 5000)
        let tmp = root.appendingPathComponent("g")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let fd = open(tmp.path, O_RDWR | O_CREAT, 0o644)
        XCTAssertNotNil(Gzip.compress(payload, into: fd))
        close(fd)
        var stream = try Data(contentsOf: tmp)
        XCTAssertEqual(Gzip.decompress(stream), payload)
        stream[stream.count - 8] ^= 1  // the trailer's CRC-32 of the original
        XCTAssertNil(Gzip.decompress(stream))
        XCTAssertNil(Gzip.decompress(Data("not gzip at all, long enough".utf8)))
    }
}
