// KernelCopy: a file's bytes copied into another by the kernel (copy_file_range, else sendfile), never through
// user memory.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `copy_file_range(2)`, looked up at run time (Swift does not import the glibc declaration, and older C libraries
/// lack it); nil where the C library has none.
private typealias CopyFileRange =
    @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int
private let copyFileRange: CopyFileRange? = dlsym(nil, "copy_file_range").map {
    unsafeBitCast($0, to: CopyFileRange.self)
}

/// Copies `count` bytes of `source` from `offset` to the current position of `destination` in the kernel:
/// `copy_file_range` (which shares extents where the file system can reflink, and copies in the page cache
/// elsewhere), else — across file systems it refuses, or where it is missing — `sendfile`. Returns 0 or the errno
/// of the failed call; nothing is copied through user memory. Runs on the caller's thread.
/// `allowCopyFileRange: false` goes straight to `sendfile` (default: unless `DWFILEIO_SENDFILE=1`, so tests and
/// benchmarks can take the cross-file-system path on one file system).
public func copyInKernel(
    from source: Int32, offset: Int, to destination: Int32, count: Int,
    allowCopyFileRange: Bool = !kernelCopyForcesSendfile
) -> Int32 {
    var inOffset = Int64(offset)
    var left = count
    if let copyFileRange, allowCopyFileRange {
        while left > 0 {
            let n = copyFileRange(source, &inOffset, destination, nil, left, 0)
            if n > 0 {
                left -= n
                continue
            }
            if n == 0 { return EIO }  // the source ended early
            if errno == EINTR { continue }
            // EXDEV (file systems that will not copy between them), EINVAL, ENOSYS, EOPNOTSUPP: sendfile instead.
            guard errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP else { return errno }
            break
        }
    }
    var sendOffset = off_t(inOffset)
    while left > 0 {
        let n = sendfile(destination, source, &sendOffset, left)
        if n > 0 {
            left -= n
            continue
        }
        if n == 0 { return EIO }
        if errno == EINTR { continue }
        return errno
    }
    return 0
}

/// `DWFILEIO_SENDFILE=1`: skip `copy_file_range`.
public let kernelCopyForcesSendfile = getenv("DWFILEIO_SENDFILE").map { String(cString: $0) == "1" } ?? false
