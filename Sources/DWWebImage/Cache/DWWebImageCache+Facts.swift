// DWWebImageCache + facts: what a cached image is (format, size, frames), read from its first bytes only.
import Foundation

extension DWWebImageCache {
    /// The facts of the image stored under `key`, from its first ``DWWebImageManager/factsHeadSize`` bytes only:
    /// the rest of the payload is neither read nor checksummed nor decoded, and the entry is not marked as read.
    /// Memory first, then disk, fresh or stale alike; nil when no tier holds `key` or its first bytes do not tell.
    /// A gzip-stored entry is read whole (its first bytes are not the image's). Runs on the caller's thread: one
    /// `open`, an attribute or header read and one `pread`.
    public func facts(forKey key: String) -> DWImageFacts? {
        let policy = cachePolicy
        let limit = DWWebImageManager.factsHeadSize
        if policy.contains(.memory), let entry = memory.object(forKey: key) {
            let data = entry.data
            return DWImageFacts(
                head: Data(data.prefix(limit)), byteCount: Int64(data.count), isComplete: data.count <= limit)
        }
        guard policy.contains(.disk) else { return nil }
        let fd = open(filePath(forKey: key), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let (offset, length) = DiskEntryCodec.imageRange(fd: fd, key: key) else {
            // Not ours, another key's, or stored compressed: the whole entry, checked, if it is `key`'s.
            return objCache(forKey: key).flatMap { data in
                DWImageFacts(
                    head: Data(data.prefix(limit)), byteCount: Int64(data.count), isComplete: data.count <= limit)
            }
        }
        var head = Data(count: min(length, limit))
        let read = head.withUnsafeMutableBytes { DiskEntryCodec.preadFully(fd, $0.baseAddress!, $0.count, at: offset) }
        guard read else { return nil }
        return DWImageFacts(head: head, byteCount: Int64(length), isComplete: head.count == length)
    }
}

extension DiskEntryCodec {
    /// Where the image of `key`'s entry open at `fd` lies in the file — its offset and length — read from the
    /// header alone (checked: magic, lengths, header CRC; the payload's checksum is not): a whole entry's header
    /// starts the file, a body-only entry's is its attribute and the file is the image. Nil when the entry is not
    /// ours, is another key's, or stores the image gzip-compressed.
    static func imageRange(fd: Int32, key: String) -> (offset: Int, length: Int)? {
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        let size = Int(st.st_size)
        var fixed = [UInt8](repeating: 0, count: fixedHeaderSize)
        let whole = pread(fd, &fixed, fixed.count, 0) == fixed.count && Array(fixed[0..<magic.count]) == magic
        let header: Header?
        if whole {
            guard let strings = fixed.withUnsafeBytes({ stringsLength($0) }), strings < 1 << 20 else { return nil }
            var raw = [UInt8](repeating: 0, count: fixedHeaderSize + strings)
            guard raw.withUnsafeMutableBytes({ preadFully(fd, $0.baseAddress!, $0.count, at: 0) }) else { return nil }
            header = raw.withUnsafeBytes { parseHeader($0, fileSize: size) }
        } else {
            guard let raw = attributeHeader(fd) else { return nil }
            header = raw.withUnsafeBytes { parseHeader($0, fileSize: $0.count + size) }
        }
        guard let header, header.key == key, header.flags & gzipFlag == 0 else { return nil }
        return (whole ? header.payloadOffset : 0, header.payloadLength)
    }
}
