// DiskEntryCodec: the self-validating on-disk entry format (header, key, validators, payload, checksums).
import Foundation
internal import CChecksum
internal import CZlib

/// Encodes and validates disk entries. Layout (integers little-endian):
///
/// ```
/// 0   "DWC1"               magic
/// 4   u16 version (4)      6  u16 flags (bit 0: payload is gzip; its trailer carries the original CRC and size)
/// 8   f64 storedAt (Unix seconds)
/// 16  u64 payload length   24 u32 payload checksum
/// 28  u32 key length       32 u16 etag length   34 u16 last-modified length   36 u16 content-type length
/// 38  u16 cache-control length (version 3; 0 before)   40 u32 checksum of bytes 0..<40 and the strings that follow
/// 44  key, etag, last-modified, content-type, cache-control (UTF-8), then the payload
/// ```
///
/// From version 4 the cache-control string is followed, when the response had an Expires, by a NUL and the
/// Expires value (a NUL cannot occur in a header value), so the layout stays the same.///
/// The checksum is CRC-32C from version 2 (the SSE4.2 instruction: ~3× zlib's CRC-32, which took 9 µs of a
/// 20 µs hit on a 26 KB entry) and zlib's CRC-32 in version 1. Versions 1 and 2 are still read: they wrote 0 in
/// bytes 38–39, which version 3 reads as an empty Cache-Control.
///
/// No fsync is paid per entry: a write is an unnamed `O_TMPFILE` linked into place whole (a temp file renamed
/// where the file system has no `O_TMPFILE`), and a reader that finds a torn,
/// truncated or bit-flipped file (after a crash, say) sees a mismatch here and treats it as a miss.
enum DiskEntryCodec {
    static let magic: [UInt8] = Array("DWC1".utf8)

    /// Whether `data` begins with ``magic`` (its first four bytes compared in place: `starts(with:)` walked two
    /// sequences through iterators, ~860 instructions a cache write).
    static func startsWithMagic(_ data: Data) -> Bool {
        guard data.count >= 4 else { return false }
        return data.withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) } == UInt32(littleEndian: 0x3143_5744)
    }
    /// The version written; 1, 2, 3 and 4 are read.
    static let version: UInt16 = 4
    static let fixedHeaderSize = 44

    /// A decoded, validated entry.
    struct Entry {
        var key: String
        var metadata: DWCacheEntryMetadata
        /// The image bytes (inflated when the entry was stored gzipped).
        var payload: Data
        /// Whether the entry was stored gzipped.
        var compressed = false
        /// Whether the file is the payload alone, its header in an attribute (see BodyOnlyEntry.swift).
        var bodyOnly = false
        /// A body-only entry's file, as ``read(path:touches:)`` opened it.
        var file: DWCacheEntryFile?
    }

    /// Flag bit: the payload is a gzip stream.
    static let gzipFlag: UInt16 = 1

    /// Everything before the payload: write it, then the payload itself, so a large body is never copied.
    static func encodeHeader(
        key: String, payload: Data, metadata: DWCacheEntryMetadata, release: Bool = false
    ) -> [UInt8] {
        encodeHeader(
            key: key, payloadLength: UInt64(payload.count),
            payloadCRC: windowedChecksum(of: payload, release: release), flags: 0,
            metadata: metadata)
    }

    /// The header for a payload of `payloadLength` stored bytes whose CRC-32C is `payloadCRC`. Bytes in an array:
    /// one allocation, written in place (a `Data` of the size costs ~2 k instructions more, per entry).
    static func encodeHeader(
        key: String, payloadLength: UInt64, payloadCRC: UInt32, flags: UInt16,
        metadata: DWCacheEntryMetadata
    ) -> [UInt8] {
        var key = key
        var strings = [
            metadata.etag ?? "", metadata.lastModified ?? "", metadata.contentType ?? "",
            (metadata.cacheControl ?? "") + (metadata.expires.map { "\u{0}" + $0 } ?? "")
        ]
        // Written in place into one buffer of the final size (field-by-field Data appends cost ~20k instructions
        // an entry): fixed header, then the key, then the strings (each at most 4 KiB).
        let lengths = strings.map { min($0.utf8.count, 4096) }
        let keyLength = key.utf8.count
        let storedAt = metadata.storedAt.timeIntervalSince1970.bitPattern  // the closure captures no metadata copy
        let total = fixedHeaderSize + keyLength + lengths.reduce(0, +)
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let p = UnsafeMutableRawBufferPointer(buffer)
            p.initializeMemory(as: UInt8.self, repeating: 0)
            p.copyBytes(from: magic)
            p.storeBytes(of: version.littleEndian, toByteOffset: 4, as: UInt16.self)
            p.storeBytes(of: flags.littleEndian, toByteOffset: 6, as: UInt16.self)
            p.storeBytes(of: storedAt.littleEndian, toByteOffset: 8, as: UInt64.self)
            p.storeBytes(of: payloadLength.littleEndian, toByteOffset: 16, as: UInt64.self)
            p.storeBytes(of: payloadCRC.littleEndian, toByteOffset: 24, as: UInt32.self)
            p.storeBytes(of: UInt32(keyLength).littleEndian, toByteOffset: 28, as: UInt32.self)
            for (i, length) in lengths.enumerated() {
                p.storeBytes(of: UInt16(length).littleEndian, toByteOffset: 32 + 2 * i, as: UInt16.self)
            }
            var offset = fixedHeaderSize
            key.withUTF8 { k in
                UnsafeMutableRawBufferPointer(rebasing: p[offset..<offset + keyLength]).copyMemory(
                    from: UnsafeRawBufferPointer(k))
            }
            offset += keyLength
            for i in strings.indices {
                let length = lengths[i]
                strings[i].withUTF8 { u in
                    UnsafeMutableRawBufferPointer(rebasing: p[offset..<offset + length])
                        .copyMemory(from: UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(u)[..<length]))
                }
                offset += length
            }
            // The header CRC covers the fixed fields before it, the key and the strings.
            var crc = Checksum.crc32c.update(0, UnsafeRawBufferPointer(rebasing: p[..<40]))
            crc = Checksum.crc32c.update(crc, UnsafeRawBufferPointer(rebasing: p[fixedHeaderSize...]))
            p.storeBytes(of: crc.littleEndian, toByteOffset: 40, as: UInt32.self)
            initialized = total
        }
    }

    /// What the header says, validated (magic, version, lengths against the file size, header CRC).
    struct Header {
        var key: String
        var metadata: DWCacheEntryMetadata
        var flags: UInt16
        var payloadLength: Int
        var payloadCRC: UInt32
        /// Where the payload starts: the fixed header plus the strings.
        var payloadOffset: Int
        /// How this entry's version checksums.
        var checksum: Checksum
    }

    /// The length of the strings that follow a fixed header, or nil if `fixed` is not one of ours.
    static func stringsLength(_ fixed: UnsafeRawBufferPointer) -> Int? {
        stringLengths(fixed).map { $0.0 + $0.1 + $0.2 + $0.3 + $0.4 }
    }

    /// The lengths of the five strings that follow a fixed header (key, ETag, Last-Modified, Content-Type,
    /// Cache-Control), in order, or nil if `fixed` is not one of ours.
    private static func stringLengths(_ fixed: UnsafeRawBufferPointer) -> (Int, Int, Int, Int, Int)? {
        let b = Bytes(fixed)
        guard b.count >= fixedHeaderSize, b.matches(0, magic), let v = b.u16le(4), Checksum(version: v) != nil,
            let keyLength = b.u32le(28), let etagLength = b.u16le(32), let lmLength = b.u16le(34),
            let ctLength = b.u16le(36), let ccLength = b.u16le(38)
        else { return nil }
        return (Int(keyLength), Int(etagLength), Int(lmLength), Int(ctLength), Int(ccLength))
    }

    /// Parses the header at the start of `raw` (which must hold the fixed part and the strings) of a file of
    /// `fileSize` bytes.
    static func parseHeader(_ raw: UnsafeRawBufferPointer, fileSize: Int) -> Header? {
        let b = Bytes(raw)
        guard let (key, etag, lastModified, type, cacheControl) = stringLengths(raw), let flags = b.u16le(6),
            let storedBits = b.u64le(8), let payloadLength = b.u64le(16), let payloadCRC = b.u32le(24),
            let headerCRC = b.u32le(40), let checksum = b.u16le(4).flatMap(Checksum.init(version:)),
            case let stringsTotal = key + etag + lastModified + type + cacheControl,
            b.has(fixedHeaderSize, stringsTotal),
            payloadLength <= UInt64(Int.max - fixedHeaderSize - stringsTotal),
            fileSize == fixedHeaderSize + stringsTotal + Int(payloadLength)
        else { return nil }
        var crc = checksum.update(0, UnsafeRawBufferPointer(rebasing: raw[0..<40]))
        crc = checksum.update(
            crc, UnsafeRawBufferPointer(rebasing: raw[fixedHeaderSize..<fixedHeaderSize + stringsTotal]))
        guard crc == headerCRC else { return nil }
        var strings: [String] = []
        var offset = fixedHeaderSize
        for length in [key, etag, lastModified, type, cacheControl] {
            strings.append(
                String(decoding: UnsafeRawBufferPointer(rebasing: raw[offset..<offset + length]), as: UTF8.self))
            offset += length
        }
        var metadata = DWCacheEntryMetadata(
            storedAt: Date(timeIntervalSince1970: Double(bitPattern: storedBits)),
            etag: strings[1].isEmpty ? nil : strings[1],
            lastModified: strings[2].isEmpty ? nil : strings[2],
            contentType: strings[3].isEmpty ? nil : strings[3],
            cacheControl: nil)
        let control = strings[4].split(separator: "\u{0}", maxSplits: 1, omittingEmptySubsequences: false)
        if let first = control.first, !first.isEmpty { metadata.cacheControl = String(first) }
        if control.count > 1, !control[1].isEmpty { metadata.expires = String(control[1]) }
        return Header(
            key: strings[0], metadata: metadata, flags: flags, payloadLength: Int(payloadLength),
            payloadCRC: payloadCRC, payloadOffset: offset, checksum: checksum)
    }

    /// Checks `payload` (the stored bytes) against the header's checksum — window by window, so a large mapped
    /// payload is never resident at once — and inflates a gzip payload (whose trailer zlib checks).
    /// `mapped`: the payload was mapped here, so nobody else has it yet and passed windows may be released.
    static func finish(_ header: Header, payload: Data, mapped: Bool = false) -> Entry? {
        guard payload.count == header.payloadLength,
            windowedChecksum(of: payload, using: header.checksum, release: mapped) == header.payloadCRC
        else { return nil }
        if header.flags & gzipFlag != 0 {
            guard let inflated = Gzip.decompress(payload, release: mapped) else { return nil }
            return Entry(key: header.key, metadata: header.metadata, payload: inflated, compressed: true)
        }
        return Entry(key: header.key, metadata: header.metadata, payload: payload)
    }

    /// Decodes a whole entry held in memory; nil when anything is off (magic, version, lengths, either CRC).
    static func decode(_ file: Data) -> Entry? {
        guard let header = file.withUnsafeBytes({ parseHeader($0, fileSize: $0.count) }) else { return nil }
        return finish(header, payload: file.subdata(in: header.payloadOffset..<file.count))
    }

    /// What reading an entry file found.
    enum ReadResult {
        /// No such file (or it cannot be opened).
        case absent
        /// A file that is not a valid entry: torn, truncated, bit-flipped, or not ours.
        case invalid
        case entry(Entry)
    }

    /// Reads and validates the entry at `path` with plain syscalls. A small file is read with one `pread` into a
    /// buffer the payload then owns (no second copy); a large one has its header read and its payload mapped (see
    /// ``FileBytes``).
    /// With `touches`, a valid entry is marked as just read (its atime, through the open descriptor: no second
    /// path lookup) unless this process did so within the last minute; LRU eviction orders by it.
    static func read(path: String, touches: ReadTouches? = nil) -> ReadResult {
        guard let file = OpenedEntry(path: path) else { return .absent }
        return read(file, touches: touches)
    }

    /// ``read(path:touches:)`` of a file already opened by ``OpenedEntry/init(path:)``.
    static func read(_ file: OpenedEntry, touches: ReadTouches? = nil) -> ReadResult {
        let (fd, path) = (file.fd, file.path)
        guard var entry = read(fd: fd) else { return .invalid }
        // One expiry clock, DW's: the file's modification time (so `touch`, `find -mtime` and rsync mean what
        // users expect), the same clock the sweep and the statistics read; the header's time is only a record.
        var st = stat()
        guard fstat(fd, &st) == 0 else { return .invalid }
        entry.metadata.storedAt = Date(
            timeIntervalSince1970: TimeInterval(st.st_mtim.tv_sec)
                + TimeInterval(st.st_mtim.tv_nsec) / 1e9)
        if entry.bodyOnly { entry.file = DWCacheEntryFile(path: path, stat: st) }
        if let touches, touches.shouldTouch(path) { DiskBudget.touch(fd) }
        return .entry(entry)
    }

    /// Linux's O_NOATIME (not imported into Swift): the kernel leaves the atime alone and skips its relatime
    /// check on every read. Only the file's owner may ask; others get EPERM and open without it.
    #if os(Linux) && (arch(x86_64) || arch(arm64))
    static let noAtime: Int32 = 0o1_000_000
    #else
    static let noAtime: Int32 = 0
    #endif

    /// The key in the header of the entry open at `fd` (read from its start), without its payload: from the file for
    /// a whole entry, from the attribute for a body-only one (the key follows the header's fixed part in both); nil
    /// when it is not an entry.
    static func readKey(fd: Int32) -> String? {
        var head = [UInt8](repeating: 0, count: fixedHeaderSize)
        let whole = pread(fd, &head, head.count, 0) == head.count && Array(head[0..<4]) == magic
        guard let header = whole ? head : attributeHeader(fd), header.count >= fixedHeaderSize,
            Array(header[0..<4]) == magic
        else { return nil }
        let keyLength = header.withUnsafeBytes { Int($0.littleEndianUInt32(at: 28)) }  // the fixed header's key length
        guard keyLength > 0, keyLength < 1 << 20 else { return nil }
        if !whole {
            let end = fixedHeaderSize + keyLength
            return end <= header.count ? String(decoding: header[fixedHeaderSize..<end], as: UTF8.self) : nil
        }
        var key = [UInt8](repeating: 0, count: keyLength)
        guard pread(fd, &key, keyLength, off_t(fixedHeaderSize)) == keyLength else { return nil }
        return String(decoding: key, as: UTF8.self)
    }

    /// How much a read asks for first. An entry that fits (most web images do) costs one `pread`: a short read is
    /// the end of the file, and the header says how long the file must be (the caller's one `fstat` reads the
    /// expiry clock, not the size). The buffer is then
    /// shrunk in place to the entry and handed to the payload, so nothing is copied twice or held spare.
    static let firstReadSize = 64 << 10

    private static func read(fd: Int32) -> Entry? {
        guard var buffer = malloc(firstReadSize) else { return nil }
        var n: Int
        repeat { n = pread(fd, buffer, firstReadSize, 0) } while n < 0 && errno == EINTR
        guard n >= 0 else { free(buffer); return nil }
        // Not our header at the start: a body-only entry (whose header is an attribute), or nothing of ours.
        guard n >= magic.count, memcmp(buffer, magic, magic.count) == 0 else {
            return readBodyOnly(fd: fd, buffer: buffer, read: n)
        }
        if n >= fixedHeaderSize && n < firstReadSize,
            let header = parseHeader(UnsafeRawBufferPointer(start: buffer, count: n), fileSize: n),
            let owned = realloc(buffer, n)
        {
            return entry(header, inMallocked: owned)
        }
        // Longer than the first read — or, should a regular file ever read short before its end, a header that
        // disagrees with what was read: the size from fstat decides, and what was read is kept.
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size >= fixedHeaderSize else { free(buffer); return nil }
        let size = Int(st.st_size)
        if size >= FileBytes.mapThreshold {
            free(buffer)
            return readMapped(fd: fd, size: size)
        }
        guard let grown = realloc(buffer, size) else { free(buffer); return nil }
        buffer = grown
        let have = min(n, size)
        guard preadFully(fd, buffer + have, size - have, at: have),
            let header = parseHeader(UnsafeRawBufferPointer(start: buffer, count: size), fileSize: size)
        else {
            free(buffer)
            return nil
        }
        return entry(header, inMallocked: buffer)
    }

    /// The entry whose whole file is in `buffer` (from `malloc`; the payload takes ownership of it).
    private static func entry(_ header: Header, inMallocked buffer: UnsafeMutableRawPointer) -> Entry? {
        let payload = Data(
            bytesNoCopy: buffer + header.payloadOffset, count: header.payloadLength,
            deallocator: .custom { _, _ in free(buffer) })
        return finish(header, payload: payload)
    }

    /// An entry of ``FileBytes/mapThreshold`` bytes or more: its header read, its payload mapped (see ``FileBytes``).
    private static func readMapped(fd: Int32, size: Int) -> Entry? {
        var fixed = [UInt8](repeating: 0, count: fixedHeaderSize)
        guard fixed.withUnsafeMutableBytes({ preadFully(fd, $0.baseAddress!, fixedHeaderSize, at: 0) }),
            let stringsTotal = fixed.withUnsafeBytes({ stringsLength($0) }),
            stringsTotal <= size - fixedHeaderSize
        else { return nil }
        var head = [UInt8](repeating: 0, count: fixedHeaderSize + stringsTotal)
        guard head.withUnsafeMutableBytes({ preadFully(fd, $0.baseAddress!, $0.count, at: 0) }),
            let header = head.withUnsafeBytes({ parseHeader($0, fileSize: size) }),
            let payload = FileBytes.map(fd: fd, length: size, from: header.payloadOffset)
        else { return nil }
        return finish(header, payload: payload, mapped: true)
    }

    /// Reads exactly `count` bytes at `offset` into `buffer` (retrying short reads and EINTR); false at end of file or
    /// on an error.
    static func preadFully(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int, at offset: Int) -> Bool {
        var done = 0
        while done < count {
            let n = pread(fd, buffer + done, count - done, off_t(offset + done))
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { return false }
            done += n
        }
        return true
    }

    /// `checksum` (by default the one written entries carry) of `data`, window by window (see ``FileBytes`` for
    /// `release`).
    static func windowedChecksum(of data: Data, using checksum: Checksum = .crc32c, release: Bool = false) -> UInt32 {
        var crc = UInt32(0)
        FileBytes.forEachWindow(of: data, release: release) { window in
            crc = checksum.update(crc, window)
            return true
        }
        return crc
    }

    /// The checksums entries have carried: zlib's CRC-32 (version 1) and CRC-32C (versions 2 to 4).
    enum Checksum {
        case crc32
        case crc32c

        init?(version: UInt16) {
            switch version {
            case 1: self = .crc32
            case 2, 3, 4: self = .crc32c
            default: return nil
            }
        }

        /// Continues `crc` over `raw` (0 to start).
        func update(_ crc: UInt32, _ raw: UnsafeRawBufferPointer) -> UInt32 {
            guard let base = raw.baseAddress, raw.count > 0 else { return crc }
            switch self {
            case .crc32c:
                return dw_crc32c(crc, base, raw.count)
            case .crc32:
                var c = UInt(crc)
                var offset = 0
                while offset < raw.count {  // in slices that fit zlib's uInt length
                    let n = min(raw.count - offset, 1 << 30)
                    c = CZlib.crc32(c, base.advanced(by: offset).assumingMemoryBound(to: Bytef.self), uInt(n))
                    offset += n
                }
                return UInt32(truncatingIfNeeded: c)
            }
        }
    }
}
