// DiskEntryWriter: the bytes of one cache entry file — header and payload, as they are or gzipped — written to a
// descriptor. Naming, publishing and the disk budget are the cache's (DWWebImageCache+DiskWrite.swift).
import DWFileIO
import Foundation

/// Writes one entry (``DiskEntryCodec``'s header, then the payload) into an open, empty file.
///
/// Thread safety: a value used by one thread, on the thread that writes (the cache's write queue, or a caller of
/// ``DWWebImageCache/store(_:forKey:metadata:policy:)``).
struct DiskEntryWriter {
    /// A failed `write(2)`-family call: its `errno`.
    struct Failure: Error {
        let value: Int32
    }

    /// A written entry: its size on disk, and whether it is body-only (its header in an attribute).
    struct Written {
        let size: Int64
        var bodyOnly = false
    }

    let data: Data
    let key: String
    let metadata: DWCacheEntryMetadata
    let compression: DWCacheCompression
    /// Whether full passes may drop windows of a mapped `data` (see ``FileBytes``).
    let release: Bool
    /// Whether to try a body-only entry (see ``DWWebImageCache/Configuration/bodyOnlyEntries``).
    let bodyOnly: Bool
    /// Whether the payload is gzipped (the sample promised it shrinks, or `.gzip` asks for it).
    let compress: Bool
    /// The header written first: the final one, or for a gzipped payload a placeholder of the final length that is
    /// rewritten once the stored length and CRC are known.
    private let header: [UInt8]

    /// `format`: `data`'s image format when the caller knows it (a downloaded image's), else it is sniffed.
    init(
        data: Data, key: String, metadata: DWCacheEntryMetadata, compression: DWCacheCompression, release: Bool,
        bodyOnly: Bool = false, format: DWImageFormat? = nil
    ) {
        self.data = data
        self.key = key
        self.metadata = metadata
        self.compression = compression
        self.release = release
        compress = compression.applies(to: data, format: format)
        // A payload that starts like an entry header is kept in the header's own file (readers look for the
        // header at the start first).
        self.bodyOnly = bodyOnly && !compress && !DiskEntryCodec.startsWithMagic(data)
        header =
            compress
            ? DiskEntryCodec.encodeHeader(
                key: key, payloadLength: 0, payloadCRC: 0, flags: DiskEntryCodec.gzipFlag,
                metadata: metadata)
            : DiskEntryCodec.encodeHeader(key: key, payload: data, metadata: metadata, release: release)
    }

    /// The entry's size when it is stored as it is (known before writing); nil for a gzipped one.
    var plainSize: Int64? { compress ? nil : Int64(header.count + data.count) }

    /// Writes header and payload to `fd`; the entry's size on disk, or the `errno` of the write that failed.
    /// A body-only entry stores the header as `fd`'s attribute and then the payload alone; where the file system
    /// keeps no user attributes (or not one this long) it falls back to the header in the file.
    func write(to fd: Int32) -> Result<Written, Failure> {
        if bodyOnly && DiskEntryCodec.setAttributeHeader(header, on: fd) == 0 {
            if let code = writePayload(to: fd) { return .failure(Failure(value: code)) }
            return .success(Written(size: Int64(data.count), bodyOnly: true))
        }
        return writeWithHeader(to: fd).map { Written(size: $0) }
    }

    /// Header, then payload, in the file.
    private func writeWithHeader(to fd: Int32) -> Result<Int64, Failure> {
        var stored = false
        if !compress && data.count < FileBytes.mapThreshold {
            switch writeSmall(to: fd) {
            case .success(let done): stored = done
            case .failure(let failure): return .failure(failure)
            }
        }
        if stored { return .success(Int64(header.count + data.count)) }
        if let code = Self.writeAll(header, to: fd) { return .failure(Failure(value: code)) }
        if compress { return writeCompressed(to: fd) }
        if let code = writePayload(to: fd) { return .failure(Failure(value: code)) }
        return .success(Int64(header.count + data.count))
    }

    /// The usual small entry: header and payload in one writev. False after a short write (the file is emptied
    /// again, to start over the slow way).
    private func writeSmall(to fd: Int32) -> Result<Bool, Failure> {
        let total = header.count + data.count
        let n = header.withUnsafeBytes { h in
            data.withUnsafeBytes { p -> Int in
                var parts = [
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: h.baseAddress), iov_len: h.count),
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: p.baseAddress), iov_len: p.count)
                ]
                return writev(fd, &parts, p.count > 0 ? 2 : 1)
            }
        }
        if n == total { return .success(true) }
        if n < 0 && errno != EINTR { return .failure(Failure(value: errno)) }
        if ftruncate(fd, 0) != 0 || lseek(fd, 0, SEEK_SET) != 0 { return .failure(Failure(value: errno)) }
        return .success(false)
    }

    /// After the placeholder header: the payload gzipped as it streams through zlib, then the header rewritten
    /// with the stored length and CRC; or, when gzip did not shrink it (and `.auto` chose it), the entry
    /// rewritten as it is.
    private func writeCompressed(to fd: Int32) -> Result<Int64, Failure> {
        guard let (length, crc) = Gzip.compress(data, into: fd, release: release) else {
            return .failure(Failure(value: errno == 0 ? EIO : errno))
        }
        if length < Int64(data.count) || compression == .gzip {
            let final = DiskEntryCodec.encodeHeader(
                key: key, payloadLength: UInt64(length), payloadCRC: crc,
                flags: DiskEntryCodec.gzipFlag, metadata: metadata)
            let rewritten = final.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
            if rewritten != final.count { return .failure(Failure(value: errno == 0 ? EIO : errno)) }
            return .success(Int64(final.count) + length)
        }
        guard ftruncate(fd, 0) == 0, lseek(fd, 0, SEEK_SET) == 0 else {
            return .failure(Failure(value: errno == 0 ? EIO : errno))
        }
        // The sample promised more than the whole gave: store it as it is after all.
        let plain = DiskEntryCodec.encodeHeader(key: key, payload: data, metadata: metadata, release: release)
        if let code = Self.writeAll(plain, to: fd) { return .failure(Failure(value: code)) }
        if let code = writePayload(to: fd) { return .failure(Failure(value: code)) }
        return .success(Int64(plain.count + data.count))
    }

    /// The payload as it is, window by window (no concatenated copy of a large body); nil or the failing errno.
    private func writePayload(to fd: Int32) -> Int32? {
        var failure: Int32?
        FileBytes.forEachWindow(of: data, release: release) { window in
            let code = writeFully(fd, window)
            if code != 0 { failure = code }
            return code == 0
        }
        return failure
    }

    /// All of `bytes`; nil or the failing errno.
    private static func writeAll(_ bytes: [UInt8], to fd: Int32) -> Int32? {
        let code = bytes.withUnsafeBytes { writeFully(fd, $0) }
        return code == 0 ? nil : code
    }
}
