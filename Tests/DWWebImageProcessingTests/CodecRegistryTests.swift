// A format the library does not know (QOI, its codec in DWTestCodecs) registered once and used everywhere: fetched
// from a real server and sniffed, decoded by bitmap(), verified (a cut file refused), resized and converted both
// ways; and the cache's decoded tier, which a second bitmap() of a delivered image reads instead of decoding.
import DWTestCodecs
import DWTestServer
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class CodecRegistryTests: XCTestCase {
    override func setUp() {
        QOICodec.register()
    }

    /// 40×24 RGBA: gradients (QOI's diff and luma ops), flat runs, repeated colours (index) and varying alpha.
    static let bitmap: DWBitmap = {
        let (w, h) = (40, 24)
        var pixels = [UInt8]()
        for y in 0..<h {
            for x in 0..<w {
                if y < 8 {
                    pixels += [UInt8(x * 6), UInt8(y * 10), 128, 255]
                } else if y < 16 {
                    pixels += x % 7 < 3 ? [200, 30, 30, 255] : [20, 220, 40, 255]
                } else {
                    pixels += [UInt8((x * 37) % 256), UInt8((y * 91) % 256), UInt8((x * y) % 256), UInt8(x * 6)]
                }
            }
        }
        return DWBitmap(width: w, height: h, pixels: Data(pixels))!
    }()

    static var qoi: Data { try! QOICodec().encode(bitmap, quality: nil) }

    private func withServer(_ body: (DWWebImageManager, LoopbackHTTPServer) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwqoi-\(UUID().uuidString)")
        let center = NotificationCenter()
        let manager = DWWebImageManager(
            cache: DWWebImageCache(rootDirectory: root, notificationCenter: center), notificationCenter: center,
            removeExpiredAtStart: false)
        let server = try LoopbackHTTPServer()
        defer {
            manager.invalidate()
            server.shutdown()
            try? FileManager.default.removeItem(at: root)
        }
        try await body(manager, server)
    }

    func testTheFormatsFactsComeFromTheRegistry() throws {
        let qoi = QOICodec.format
        XCTAssertEqual(DWImageFormat(name: "QOI"), qoi)
        XCTAssertEqual(qoi.mimeType, "image/qoi")
        XCTAssertEqual(qoi.fileExtension, "qoi")
        XCTAssertEqual(qoi.names, ["qoi"])
        XCTAssertTrue(qoi.isWritable)
        XCTAssertTrue(DWImageFormat.conversionTargets.contains(qoi))
        XCTAssertEqual(DWImageFormat(conversionTargetNamed: "qoi"), qoi)
        XCTAssertTrue(DWImageFormat.allCases.contains(qoi))
        XCTAssertEqual(DWImageFormat(rawValue: "PNG"), .png)
        let coded = try JSONEncoder().encode([qoi, .jpeg])
        XCTAssertEqual(String(decoding: coded, as: UTF8.self), #"["qoi","jpeg"]"#)
        XCTAssertEqual(try JSONDecoder().decode([DWImageFormat].self, from: coded), [qoi, .jpeg])
    }

    func testAQOIIsFetchedDecodedVerifiedAndResized() async throws {
        try await withServer { manager, server in
            let qoi = Self.qoi
            server.setRoute("/a.qoi", .ok(qoi))
            server.setRoute("/cut.qoi", .ok(qoi.prefix(qoi.count - 30)))
            let image = try await manager.image(withURL: server.url("/a.qoi"))
            XCTAssertEqual(image.format, QOICodec.format)
            XCTAssertEqual([image.pixelWidth, image.pixelHeight, image.frameCount], [40, 24, 1])
            XCTAssertEqual(try image.bitmap(), Self.bitmap, "QOI is lossless")
            XCTAssertNoThrow(try image.verifyDecodes())

            // A cut file: its header reads (the pipeline delivers it, as a cut PNG), --verify refuses it.
            let cut = try await manager.image(withURL: server.url("/cut.qoi"))
            XCTAssertEqual(cut.format, QOICodec.format)
            XCTAssertThrowsError(try cut.verifyDecodes()) { error in
                XCTAssertEqual((error as? DWWebImageError)?.code, .notAnImage, "\(error)")
            }
            XCTAssertThrowsError(try DWResize(width: 10, height: 10).process(cut))

            // Resized, it stays QOI (an encoder is registered); converted, it leaves and comes back.
            let small = try DWResize(width: 20, height: 20).process(image)
            XCTAssertEqual(small.format, QOICodec.format)
            XCTAssertEqual([small.pixelWidth, small.pixelHeight], [20, 12])
            XCTAssertEqual(try small.bitmap().width, 20)
            let png = try DWConvert(format: .png).process(image)
            XCTAssertEqual(png.format, .png)
            XCTAssertEqual(try png.bitmap(), Self.bitmap)
            let back = try DWConvert(format: QOICodec.format).process(png)
            XCTAssertEqual(back.format, QOICodec.format)
            XCTAssertEqual(try back.bitmap(), Self.bitmap)
        }
    }

    func testLimitsAreCheckedOnTheHeaderBeforeDecoding() throws {
        let image = try DWImage(data: Self.qoi)
        var limits = DWProcessingLimits()
        limits.maxPixelCount = 100
        let before = QOICodec.decodeCount
        XCTAssertThrowsError(
            try DWImageProcessing.withLimits(limits) { () throws(DWWebImageError) in
                try image.verifyDecodes()
            }
        ) { XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge, "\($0)") }
        XCTAssertThrowsError(try DWImage(data: Self.qoi, maxPixelCount: 100)) {
            XCTAssertEqual(($0 as? DWWebImageError)?.code, .tooLarge, "\($0)")
        }
        XCTAssertEqual(QOICodec.decodeCount, before, "nothing decoded")
    }

    func testASecondBitmapOfADeliveredImageComesFromTheDecodedTier() async throws {
        try await withServer { manager, server in
            server.setRoute("/tier.qoi", .ok(Self.qoi))
            let url = server.url("/tier.qoi")
            let image = try await manager.image(withURL: url)
            let before = QOICodec.decodeCount
            XCTAssertNil(manager.cache.decodedBitmap(forKey: url))
            XCTAssertEqual(try image.bitmap(), Self.bitmap)
            XCTAssertEqual(QOICodec.decodeCount, before + 1)
            XCTAssertEqual(manager.cache.decodedBitmap(forKey: url), Self.bitmap)
            // The same image again, and the memory hit of a second request: no decode.
            XCTAssertEqual(try image.bitmap(), Self.bitmap)
            let again = try await manager.image(withURL: url)
            XCTAssertEqual(again.source, .memory)
            XCTAssertEqual(try again.bitmap(), Self.bitmap)
            XCTAssertEqual(QOICodec.decodeCount, before + 1, "the second and third bitmap() decode nothing")
            let stats = manager.cache.decodedStatistics
            XCTAssertEqual([stats.hits, stats.misses, stats.entryCount], [2, 1, 1])
            XCTAssertEqual(stats.totalCost, 40 * 4 * 24)

            // An image made by hand has no tier: it decodes every time.
            let loose = try DWImage(data: Self.qoi)
            _ = try loose.bitmap()
            _ = try loose.bitmap()
            XCTAssertEqual(QOICodec.decodeCount, before + 3)

            // removeCache(byKey:) drops the decoded entry; a zero limit keeps nothing.
            manager.cache.removeCache(byKey: url)
            XCTAssertNil(manager.cache.decodedBitmap(forKey: url))
            manager.cache.decodedCostLimit = 0
            manager.cache.storeDecodedBitmap(Self.bitmap, forKey: url)
            XCTAssertNil(manager.cache.decodedBitmap(forKey: url))
            manager.cache.decodedCostLimit = 1 << 20
            manager.cache.decodedCountLimit = 1
            manager.cache.storeDecodedBitmap(Self.bitmap, forKey: "a")
            manager.cache.storeDecodedBitmap(Self.bitmap, forKey: "b")
            XCTAssertNil(manager.cache.decodedBitmap(forKey: "a"), "the least recently used goes past the count")
            XCTAssertNotNil(manager.cache.decodedBitmap(forKey: "b"))
        }
    }
}
