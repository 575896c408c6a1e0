// Gzip: zlib's deflate/inflate with the gzip wrapper, streamed, for cache entries (ImageX's cacheDataZip).
import DWFileIO
import Foundation
internal import CZlib

/// How disk entries are stored.
public enum DWCacheCompression: String, Sendable, CaseIterable {
    /// As served.
    case none
    /// Always gzip.
    case gzip
    /// Gzip only what shrinks (default): formats that are already compressed (JPEG, PNG, GIF, WebP, HEIC, AVIF)
    /// are stored as they are at no cost; anything else (BMP, TIFF, ICO, SVG, unknown) is gzipped when deflating a
    /// sample of it — three 32 KiB slices from its start, middle and end — saves at least 10%, and is stored
    /// as it was if the whole did not shrink after all.
    case auto

    /// Whether `payload` should be gzipped under this setting; `format`: the payload's, when already known (else it
    /// is sniffed).
    func applies(to payload: Data, format: DWImageFormat? = nil) -> Bool {
        switch self {
        case .none: return false
        case .gzip: return true
        case .auto:
            guard payload.count >= 64, !(format ?? ImageSniffer.format(of: payload)).isCompressed else { return false }
            return Self.sampleSaving(payload) >= 0.10
        }
    }

    /// The fraction deflate (level 1) saves on a sample of `payload`: up to three 32 KiB slices.
    static func sampleSaving(_ payload: Data) -> Double {
        let slice = 32 * 1024
        let starts = payload.count <= 3 * slice ? [0] : [0, payload.count / 2 - slice / 2, payload.count - slice]
        var input = 0
        var output = 0
        payload.withUnsafeBytes { raw in
            for start in starts {
                let n = min(slice, raw.count - start)
                var bound = compressBound(uLong(n))
                var out = [UInt8](repeating: 0, count: Int(bound))
                let status = out.withUnsafeMutableBufferPointer {
                    compress2(
                        $0.baseAddress, &bound,
                        raw.baseAddress!.advanced(by: start).assumingMemoryBound(to: Bytef.self),
                        uLong(n), 1)
                }
                input += n
                output += status == Z_OK ? Int(bound) : n
            }
        }
        return input == 0 ? 0 : 1 - Double(output) / Double(input)
    }
}

enum Gzip {
    private static let chunk = 64 * 1024

    /// Deflates `data` (gzip wrapper) straight into `fd`, 64 KiB at a time; returns the bytes written and their
    /// checksum (the entry format's CRC-32C of the stored bytes), or nil (with errno set when a write failed).
    /// Level 1 (zlib's fastest): on BMP it keeps most of the gain of level 6 at a fraction of the time, which
    /// matters for large bodies (level 6 took 3.4 s for a 64 MiB BMP here).
    static func compress(
        _ data: Data, into fd: Int32, level: Int32 = 1,
        release: Bool = false
    ) -> (length: Int64, crc: UInt32)? {
        var stream = z_stream()
        guard
            deflateInit2_(
                &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
                Int32(MemoryLayout<z_stream>.size)) == Z_OK
        else { return nil }
        defer { deflateEnd(&stream) }
        var out = [UInt8](repeating: 0, count: chunk)
        var written: Int64 = 0
        var crc = UInt32(0)
        var status = Z_OK
        var failed = false
        // Drains whatever deflate produces for the input it holds, with `flush`; false on a write error.
        func pump(_ flush: Int32) -> Bool {
            repeat {
                let produced = out.withUnsafeMutableBufferPointer { buffer -> Int in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = uInt(chunk)
                    status = deflate(&stream, flush)
                    return chunk - Int(stream.avail_out)
                }
                guard status != Z_STREAM_ERROR else { return false }
                if produced > 0 {
                    let ok = out.withUnsafeBytes { buffer -> Bool in
                        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<produced])
                        crc = DiskEntryCodec.Checksum.crc32c.update(crc, bytes)
                        return writeFully(fd, bytes) == 0
                    }
                    guard ok else { return false }
                    written += Int64(produced)
                }
            } while stream.avail_out == 0
            return true
        }
        FileBytes.forEachWindow(of: data, release: release) { window in
            stream.next_in = UnsafeMutablePointer(mutating: window.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(window.count)
            failed = !pump(Z_NO_FLUSH)
            return !failed
        }
        stream.next_in = nil
        stream.avail_in = 0
        let ok = !failed && pump(Z_FINISH) && status == Z_STREAM_END
        return ok ? (written, crc) : nil
    }

    /// Inflates a gzip stream whole; nil unless it ends cleanly and its trailer's CRC-32 and length match
    /// (zlib checks both). At most `limit` bytes are allocated, sized from the trailer. The stored bytes are fed
    /// window by window (a mapped entry is never resident at once; see ``FileBytes``).
    static func decompress(_ stored: Data, limit: Int = 1 << 30, release: Bool = false) -> Data? {
        guard stored.count >= 18 else { return nil }
        let size = Int([UInt8](stored.suffix(4)).withUnsafeBytes { $0.littleEndianUInt32(at: 0) })
        guard size <= limit else { return nil }
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            return nil
        }
        defer { inflateEnd(&stream) }
        var out = Data(count: max(size, 1))  // one spare byte: an empty body still has a buffer to point at
        var status = Z_OK
        let complete = out.withUnsafeMutableBytes { output -> Bool in
            stream.next_out = output.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_out = uInt(size)
            return FileBytes.forEachWindow(of: stored, release: release) { window in
                guard status == Z_OK else { return false }  // the stream ended before the stored bytes did
                stream.next_in = UnsafeMutablePointer(mutating: window.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(window.count)
                status = inflate(&stream, Z_NO_FLUSH)
                guard status == Z_OK || status == Z_STREAM_END else { return false }
                return stream.avail_in == 0
            }
        }
        guard complete, status == Z_STREAM_END, Int(stream.total_out) == size else { return nil }
        if size == 0 { return Data() }
        return out
    }
}
