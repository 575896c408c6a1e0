// Large bodies: .auto leaves incompressible data alone, big entries are mapped and checked window by window,
// and a full pass over a mapped body does not make it resident.
import DWTestServer
import Foundation
import XCTest

@testable import DWWebImage

final class LargeEntryTests: TemporaryRootTestCase {
    override var rootPrefix: String { "dwlarge" }

    /// A BMP header over `bytes` of pixel data: noise (incompressible) or a gradient (compressible).
    private func bmp(bytes: Int, noise: Bool) -> Data {
        let width = 1024, rowSize = width * 3
        let height = bytes / rowSize
        var out = SampleImages.bmp(width: width, height: 1).prefix(54)
        out.replaceSubrange(
            18..<26,
            with: Data([
                UInt8(width & 0xFF), UInt8(width >> 8), 0, 0,
                UInt8(height & 0xFF), UInt8((height >> 8) & 0xFF), UInt8(height >> 16), 0
            ]))
        var rng = SplitMix(seed: 42)
        var pixels = [UInt8](repeating: 0, count: rowSize * height)
        for i in pixels.indices {
            pixels[i] = noise ? UInt8(truncatingIfNeeded: rng.next()) : UInt8(truncatingIfNeeded: i / 3000)
        }
        out.append(contentsOf: pixels)
        return Data(out)
    }

    private func flags(_ cache: DWWebImageCache, _ key: String) throws -> UInt16 {
        let handle = try FileHandle(forReadingFrom: cache.fileURL(forKey: key))
        defer { try? handle.close() }
        let head = try XCTUnwrap(handle.read(upToCount: 8))
        return UInt16(head[6]) | UInt16(head[7]) << 8
    }

    func testAutoStoresIncompressibleBMPAsItIsAndCompressesAGradient() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        let noise = bmp(bytes: 300_000, noise: true)
        let gradient = bmp(bytes: 300_000, noise: false)
        XCTAssertLessThan(DWCacheCompression.sampleSaving(noise), 0.10)
        XCTAssertGreaterThan(DWCacheCompression.sampleSaving(gradient), 0.10)
        try cache.store(noise, forKey: "noise", policy: [.disk])
        try cache.store(gradient, forKey: "gradient", policy: [.disk])
        XCTAssertEqual(try flags(cache, "noise") & 1, 0, "deflate would not shrink it: stored as is")
        XCTAssertEqual(try flags(cache, "gradient") & 1, 1)
        XCTAssertEqual(DWWebImageCache(rootDirectory: root, memoryCountLimit: 0).objCache(forKey: "noise"), noise)
        XCTAssertEqual(DWWebImageCache(rootDirectory: root, memoryCountLimit: 0).objCache(forKey: "gradient"), gradient)
    }

    func testLargeEntriesRoundTripThroughAMappingAndAFlippedByteIsStillAMiss() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        let big = bmp(bytes: 20 << 20, noise: true)  // over FileBytes.mapThreshold: read through a mapping
        let packed = bmp(bytes: 20 << 20, noise: false)  // gzip entry, inflated from a mapping
        try cache.store(big, forKey: "big", policy: [.disk])
        try cache.store(packed, forKey: "packed", policy: [.disk])
        XCTAssertEqual(try flags(cache, "packed") & 1, 1)
        let fresh = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        XCTAssertEqual(fresh.objCache(forKey: "big"), big)
        XCTAssertEqual(fresh.objCache(forKey: "packed"), packed)
        for key in ["big", "packed"] {
            let path = cache.fileURL(forKey: key).path
            let fd = open(path, O_RDWR)
            var byte: UInt8 = 0
            let offset = off_t(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int) / 2
            XCTAssertEqual(pread(fd, &byte, 1, offset), 1)
            byte ^= 0x10
            XCTAssertEqual(pwrite(fd, &byte, 1, offset), 1)
            close(fd)
            XCTAssertNil(fresh.objCache(forKey: key), "\(key): a flipped byte in the middle is a miss")
            XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(key): and the entry is removed")
        }
    }

    func testAPassOverAMappedBodyDoesNotMakeItResident() throws {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let path = root.appendingPathComponent("blob").path
        let size = 96 << 20
        let fd = open(path, O_RDWR | O_CREAT, 0o644)
        defer { close(fd) }
        XCTAssertEqual(ftruncate(fd, off_t(size)), 0)
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        for i in 0..<(size >> 20) {
            chunk[0] = UInt8(truncatingIfNeeded: i)
            XCTAssertEqual(pwrite(fd, chunk, chunk.count, off_t(i << 20)), chunk.count)
        }
        let data = try XCTUnwrap(FileBytes.map(fd: fd, length: size))
        let before = residentBytes()
        var peak = before
        var sum = 0
        FileBytes.forEachWindow(of: data, release: true) { window in
            for i in stride(from: 0, to: window.count, by: 4096) { sum &+= Int(window[i]) }
            peak = max(peak, residentBytes())
            return true
        }
        XCTAssertEqual(sum, (0..<(size >> 20)).reduce(0) { $0 + ($1 & 0xFF) })
        XCTAssertLessThan(peak - before, 32 << 20, "a 96 MiB pass kept at most a window or two resident")
        data.withUnsafeBytes { raw in for i in stride(from: 0, to: raw.count, by: 4096) { sum &+= Int(raw[i]) } }
        XCTAssertGreaterThan(residentBytes() - before, 64 << 20, "control: touching it all at once does")
    }

    func testMappedBytesHandedOutCanBeMutatedAndStoredWithoutRevertingOrCrashing() throws {
        let cache = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        let big = bmp(bytes: 8 << 20, noise: true)  // over the map threshold: objCache hands out a mapping
        try cache.store(big, forKey: "big", policy: [.disk])
        var bytes = try XCTUnwrap(cache.objCache(forKey: "big"))  // uniquely ours: Data mutates it in place
        let middle = bytes.count / 2
        bytes[middle] ^= 0xFF  // a read-only mapping would make this SIGSEGV
        XCTAssertEqual(bytes[middle], big[middle] ^ 0xFF)
        try cache.store(bytes, forKey: "edited", policy: [.disk])  // its passes must not drop the edited page
        XCTAssertEqual(bytes[middle], big[middle] ^ 0xFF, "the caller's bytes are unchanged by the store")
        let fresh = DWWebImageCache(rootDirectory: root, memoryCountLimit: 0)
        XCTAssertEqual(fresh.objCache(forKey: "edited"), bytes, "stored as edited, with a matching CRC")
        XCTAssertEqual(fresh.objCache(forKey: "big"), big, "the original entry is untouched")
    }

    /// Resident set size from /proc/self/statm (pages × page size).
    private func residentBytes() -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        return (fields.count > 1 ? Int(fields[1]) ?? 0 : 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
