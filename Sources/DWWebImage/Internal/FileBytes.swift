// FileBytes: large bodies as read-only file mappings that hold memory only while a window of them is being read.
import DWLocking
import Foundation

/// Large image bodies (a finished partial file, a big cache entry) are handed out as `Data` over a private
/// `mmap` of their file instead of a heap copy. A mapped page counts towards the process's resident memory once
/// touched, so every full pass the pipeline makes over such bytes (CRC-32C, the cache write, gzip, `dwfetch -o`,
/// SHA-256) goes through ``forEachWindow(of:release:_:)``: 8 MiB at a time, after which the window can be dropped
/// with `madvise(MADV_DONTNEED)`: a later read faults the page in again from the file. A 64 MiB download thus
/// costs a few MiB of memory, not 64.
///
/// The mapping is writable and private: `Data` mutates a uniquely referenced buffer in place, and a read-only
/// mapping would turn `var d = image.data; d[0] = 1` into SIGSEGV; a private write stays in this process. A page
/// written that way would be *reverted* by `MADV_DONTNEED`, so windows are released only when the caller
/// vouches (`release: true`) that nobody outside the library has held the bytes uniquely since they were mapped:
/// bytes still inside the pipeline, or inside a ``DWImage`` the pipeline made (an image holds its bytes, so
/// every other holder's write copies them first). Bytes a caller hands in (`store(_:forKey:)`,
/// `DWImage(data:)`) are read without releasing.
///
/// The files behind mappings are only ever unlinked or replaced by rename while mapped, never truncated in place
/// (which would turn a read into SIGBUS). Thread safety: the registry of live mappings is one lock.
enum FileBytes {
    /// Bytes per window of a full pass.
    static let window = 8 << 20
    /// Below this, files are read into memory: a mapping costs more than it saves for small ones.
    static let mapThreshold = 4 << 20

    /// Live mappings: base address → length. Consulted so only our own mappings are ever advised away.
    private static let regions = DWLock([UInt: Int]())

    /// Maps the first `length` bytes of `fd` and returns the bytes from `offset` as zero-based `Data` that keeps
    /// the mapping alive; nil if `mmap` fails. The descriptor may be closed afterwards.
    static func map(fd: Int32, length: Int, from offset: Int = 0) -> Data? {
        guard length > 0, offset >= 0, offset <= length,
            let base = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0), base != MAP_FAILED
        else {
            return nil
        }
        let key = UInt(bitPattern: base)
        regions.withLock { $0[key] = length }
        guard offset < length else {
            unmap(base, length)
            return Data()
        }
        return Data(
            bytesNoCopy: base + offset, count: length - offset,
            deallocator: .custom { _, _ in
                unmap(base, length)
            })
    }

    private static func unmap(_ base: UnsafeMutableRawPointer, _ length: Int) {
        regions.withLock { _ = $0.removeValue(forKey: UInt(bitPattern: base)) }
        munmap(base, length)
    }

    /// Calls `body` with consecutive windows of `data` (the whole of it when small); stops early when `body`
    /// returns false, and returns false then. With `release`, windows of a mapping made here are dropped after
    /// use (see the type's notes for when that is safe), when `data` is at least ``mapThreshold`` bytes: what is
    /// smaller is kept however it is held (and the registry is not consulted, once or twice per downloaded image).
    @discardableResult
    static func forEachWindow(
        of data: Data, release: Bool,
        _ body: (UnsafeRawBufferPointer) throws -> Bool
    ) rethrows -> Bool {
        try data.withUnsafeBytes { raw -> Bool in
            guard let start = raw.baseAddress, raw.count > 0 else { return try body(raw) }
            let mapping =
                release && raw.count >= mapThreshold
                ? region(containing: UInt(bitPattern: start), count: raw.count) : nil
            var offset = 0
            while offset < raw.count {
                let n = min(window, raw.count - offset)
                let slice = UnsafeRawBufferPointer(start: start + offset, count: n)
                let goOn = try body(slice)
                if let mapping { dropPages(of: slice, within: mapping) }
                guard goOn else { return false }
                offset += n
            }
            return true
        }
    }

    /// Whether `bytes` lie inside one of the mappings made here.
    static func isMapping(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let start = bytes.baseAddress else { return false }
        return region(containing: UInt(bitPattern: start), count: bytes.count) != nil
    }

    /// Drops the whole pages inside `bytes`, which must lie in one of the mappings made here and must not have
    /// been written (see the type's notes); a no-op otherwise.
    static func drop(_ bytes: UnsafeRawBufferPointer) {
        guard let start = bytes.baseAddress, bytes.count > 0,
            let mapping = region(containing: UInt(bitPattern: start), count: bytes.count)
        else { return }
        dropPages(of: bytes, within: mapping)
    }

    private static func region(containing address: UInt, count: Int) -> (base: UInt, length: Int)? {
        regions.withLock { regions in
            for (base, length) in regions where address >= base && address + UInt(count) <= base + UInt(length) {
                return (base, length)
            }
            return nil
        }
    }

    /// Drops the pages that lie wholly inside `slice` (the one at either edge may still be in use by a neighbour
    /// or by the caller) from memory.
    private static func dropPages(of slice: UnsafeRawBufferPointer, within mapping: (base: UInt, length: Int)) {
        let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
        let start = UInt(bitPattern: slice.baseAddress!)
        let first = max(mapping.base, (start + page - 1) & ~(page - 1))
        let end = min(mapping.base + UInt(mapping.length), (start + UInt(slice.count)) & ~(page - 1))
        guard end > first, let pointer = UnsafeMutableRawPointer(bitPattern: first) else { return }
        madvise(pointer, Int(end - first), MADV_DONTNEED)
    }
}
