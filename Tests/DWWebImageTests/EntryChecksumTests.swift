// Entry checksums: CRC-32C in both implementations, version-1 entries (zlib CRC-32) still read, and the
// version-4 header keeping Expires beside Cache-Control.
import CChecksum
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class EntryChecksumTests: XCTestCase {
    func testCRC32CMatchesTheStandardCheckValueAndTheTablesAgreeWithTheHardware() {
        let check = Array("123456789".utf8)
        XCTAssertEqual(dw_crc32c(0, check, check.count), 0xE306_9283)
        XCTAssertEqual(dw_crc32c_tables(0, check, check.count), 0xE306_9283)
        var rng = SplitMix(seed: 7)
        for length in [
            0, 1, 7, 8, 9, 63, 767, 768, 769, 1_000, 4096, 24_575, 24_576, 24_577, 25_344, 25_345, 100_003, 1_048_583
        ] {  // around 3 × 256 B and 3 × 8 KiB blocks
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
            let whole = dw_crc32c(0, bytes, bytes.count)
            XCTAssertEqual(whole, dw_crc32c_tables(0, bytes, bytes.count), "length \(length)")
            let cut = length / 3
            let chained = bytes.withUnsafeBytes { raw in
                dw_crc32c(dw_crc32c(0, raw.baseAddress, cut), raw.baseAddress.map { $0 + cut }, length - cut)
            }
            XCTAssertEqual(chained, whole, "chaining, length \(length)")
        }
    }

    /// Expires rides in the cache-control slot after a NUL (version 4): both, either or neither read back.
    func testExpiresIsKeptBesideCacheControl() throws {
        let expires = "Wed, 21 Oct 2037 07:28:00 GMT"
        for (control, date) in [("max-age=60", expires), (nil, expires), ("max-age=60", nil), (nil, nil)]
            as [(String?, String?)]
        {
            let metadata = DWCacheEntryMetadata(etag: "\"e\"", cacheControl: control, expires: date)
            let payload = Data("payload".utf8)
            let entry = try XCTUnwrap(
                DiskEntryCodec.decode(
                    Data(DiskEntryCodec.encodeHeader(key: "k", payload: payload, metadata: metadata)) + payload))
            XCTAssertEqual(entry.metadata.cacheControl, control)
            XCTAssertEqual(entry.metadata.expires, date)
            XCTAssertEqual(entry.metadata.etag, "\"e\"")
            XCTAssertEqual(entry.payload, payload)
        }
    }

    func testAVersionOneEntryIsStillReadAndAFlippedByteInItIsStillAMiss() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("dwv1-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        let png = SampleImages.png(approximateSize: 20_000, seed: 3)
        try cache.store(png, forKey: "old", metadata: DWCacheEntryMetadata(etag: "\"e1\""), policy: [.disk])
        let url = cache.fileURL(forKey: "old")
        // Rewrite the entry as version 1 wrote it: zlib's CRC-32 for the header and the payload.
        var file = try Data(contentsOf: url)
        XCTAssertEqual(file[4], 4, "new entries are version 4")
        file[4] = 1
        let strings =
            Int(file[28]) | Int(file[29]) << 8 | Int(file[30]) << 16 | Int(file[31]) << 24
            + (1...3).reduce(0) { $0 + (Int(file[30 + 2 * $1]) | Int(file[31 + 2 * $1]) << 8) }  // etag, LM, type
        let payloadStart = DiskEntryCodec.fixedHeaderSize + strings
        let v1 = DiskEntryCodec.Checksum.crc32
        let payloadCRC = file.withUnsafeBytes { v1.update(0, UnsafeRawBufferPointer(rebasing: $0[payloadStart...])) }
        withUnsafeBytes(of: payloadCRC.littleEndian) { file.replaceSubrange(24..<28, with: $0) }
        var headerCRC = file.withUnsafeBytes { v1.update(0, UnsafeRawBufferPointer(rebasing: $0[0..<40])) }
        headerCRC = file.withUnsafeBytes {
            v1.update(headerCRC, UnsafeRawBufferPointer(rebasing: $0[44..<payloadStart]))
        }
        withUnsafeBytes(of: headerCRC.littleEndian) { file.replaceSubrange(40..<44, with: $0) }
        try file.write(to: url)
        XCTAssertEqual(DWWebImageCache(rootDirectory: root, memoryCountLimit: 0).objCache(forKey: "old"), png)
        file[payloadStart + 100] ^= 1
        try file.write(to: url)
        XCTAssertNil(DWWebImageCache(rootDirectory: root, memoryCountLimit: 0).objCache(forKey: "old"))
    }
}
