// Gzip: zlib's deflate/inflate with the gzip wrapper, streamed, for cache entries (ImageX's cacheDataZip).
import Foundation
internal import CZlib

/// How disk entries are stored.
public enum DWCacheCompression: String, Sendable, CaseIterable {
    /// As served.
    case none
    /// Always gzip.
    case gzip
    /// Gzip only what shrinks: formats stored uncompressed (BMP, TIFF); JPEG, PNG, GIF, WebP, HEIC and AVIF are
    /// already compressed and are stored as they are, at no cost (default).
    case auto

    /// Whether `payload` should be gzipped under this setting.
    func applies(to payload: Data) -> Bool {
        switch self {
        case .none: return false
        case .gzip: return true
        case .auto:
            guard payload.count >= 4 else { return false }
            let b = [UInt8](payload.prefix(4))
            let bmp = b[0] == 0x42 && b[1] == 0x4D
            let tiff = (b[0] == 0x49 && b[1] == 0x49 && b[2] == 0x2A && b[3] == 0) || (b[0] == 0x4D && b[1] == 0x4D && b[2] == 0 && b[3] == 0x2A)
            return bmp || tiff
        }
    }
}

enum Gzip {
    private static let chunk = 64 * 1024

    /// Deflates `data` (gzip wrapper) straight into `fd`, 64 KiB at a time; returns the bytes written and their
    /// CRC-32, or nil (with errno set when a write failed).
    /// Level 1 (zlib's fastest): on BMP it keeps most of the gain of level 6 at a fraction of the time, which
    /// matters for large bodies (level 6 took 3.4 s for a 64 MiB BMP here).
    static func compress(_ data: Data, into fd: Int32, level: Int32 = 1) -> (length: Int64, crc: UInt32)? {
        var stream = z_stream()
        guard deflateInit2_(&stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: chunk)
        var written: Int64 = 0
        var crc = UInt(0)
        let ok = data.withUnsafeBytes { raw -> Bool in
            var offset = 0
            var status = Z_OK
            repeat {
                let n = min(raw.count - offset, 1 << 30)
                stream.next_in = UnsafeMutablePointer(mutating: raw.baseAddress?.advanced(by: offset).assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(n)
                offset += n
                let flush = offset >= raw.count ? Z_FINISH : Z_NO_FLUSH
                repeat {
                    let produced = out.withUnsafeMutableBufferPointer { buffer -> Int in
                        stream.next_out = buffer.baseAddress
                        stream.avail_out = uInt(chunk)
                        status = deflate(&stream, flush)
                        return chunk - Int(stream.avail_out)
                    }
                    guard status != Z_STREAM_ERROR else { return false }
                    if produced > 0 {
                        crc = out.withUnsafeBufferPointer { CZlib.crc32(crc, $0.baseAddress, uInt(produced)) }
                        var done = 0
                        while done < produced {
                            let w = out.withUnsafeBufferPointer { write(fd, $0.baseAddress! + done, produced - done) }
                            if w < 0 {
                                if errno == EINTR { continue }
                                return false
                            }
                            done += w
                        }
                        written += Int64(produced)
                    }
                } while stream.avail_out == 0
            } while offset < raw.count
            return status == Z_STREAM_END
        }
        return ok ? (written, UInt32(truncatingIfNeeded: crc)) : nil
    }

    /// Inflates a gzip stream whole; nil unless it ends cleanly and its trailer's CRC-32 and length match
    /// (zlib checks both). At most `limit` bytes are allocated, sized from the trailer.
    static func decompress(_ stored: Data, limit: Int = 1 << 30) -> Data? {
        stored.withUnsafeBytes { decompress($0, limit: limit) }
    }

    /// Same, straight from the stored bytes (no copy of the compressed payload).
    static func decompress(_ stored: UnsafeRawBufferPointer, limit: Int = 1 << 30) -> Data? {
        guard stored.count >= 18 else { return nil }
        let tail = [UInt8](stored[(stored.count - 4)...])
        let size = Int(tail[0]) | Int(tail[1]) << 8 | Int(tail[2]) << 16 | Int(tail[3]) << 24
        guard size <= limit else { return nil }
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var out = Data(count: max(size, 1))  // one spare byte: an empty body still has a buffer to point at
        let status = out.withUnsafeMutableBytes { output -> Int32 in
            stream.next_in = UnsafeMutablePointer(mutating: stored.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(stored.count)
            stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(size)
            return inflate(&stream, Z_FINISH)
        }
        guard status == Z_STREAM_END, Int(stream.total_out) == size, stream.avail_in == 0 else { return nil }
        if size == 0 { return Data() }
        return out
    }
}
