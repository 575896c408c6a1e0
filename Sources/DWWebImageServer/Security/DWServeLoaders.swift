// The server's two loaders, its pipeline's only ones (no `file://`, no `data:`): imgproxy's `local:///path` sources
// read under `--local-root` (opened without following any symlink, with no check separate from the open), and the
// fallback image.
internal import COpenBeneath
import DWWebImage
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Loads `local:///path` from under ``root`` as a ``DWImageLoader``, so the pipeline caches, coalesces and processes
/// local files like remote sources, and its `maxBodySize` (`--max-size`) applies: a larger file fails with 10005 from
/// its size (422), before a byte of it is read.
///
/// The file is opened relative to a descriptor of the root with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
/// (where the kernel or a seccomp filter lacks it, `openat` with `O_NOFOLLOW` one component at a time), then
/// `fstat` on that descriptor must say a regular file, and the bytes are read from it. No symlink is followed (one
/// inside the root included), nothing outside the root is reached, and a directory swapped for a symlink while a
/// request runs cannot redirect the read: there is no check separate from the open. Every refusal —
/// no root, `.` or `..`, a symlink, a NUL, a missing file, a directory, a FIFO — is 404.
///
/// The loader lives in the server, not the library: `local://` and its root are imgproxy's and serve's, while the
/// library's ``DWFileLoader`` reads any absolute path for an app that trusts its own URLs; and the C shim it needs is a
/// dependency of the server only. Loads run in the pipeline's loader task; ``readWhole(_:maxBytes:)`` on the caller's.
struct DWLocalFileLoader: DWImageLoader {
    /// The scheme of the sources this loader takes.
    static let scheme = "local://"
    /// The directory sources are read under; nil: every `local://` source is 404.
    let root: URL?
    /// Whether to try `openat2` first (tests turn it off to run the `O_NOFOLLOW` walk old kernels get).
    var triesOpenat2 = true

    func canLoad(_ url: String) -> Bool { url.hasPrefix(Self.scheme) }

    func load(_ url: String, into body: DWImageLoaderBody) async throws {
        let (fd, size) = try open(url)
        defer { close(fd) }
        body.expect(length: size)
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            try Task.checkCancellation()
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Self.notFound }
            if n == 0 { return }
            try body.append(Data(buffer[0..<n]))
        }
    }

    /// The whole file `url` names, at most `maxBytes` (10005 beyond: from its size, or while reading one that grows).
    /// Runs on the caller's thread.
    func readWhole(_ url: String, maxBytes: Int64) throws(DWWebImageError) -> Data {
        let (fd, size) = try open(url)
        defer { close(fd) }
        guard size <= maxBytes else { throw Self.tooLarge(size, maxBytes) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n >= 0 else { throw Self.notFound }
            if n == 0 { return data }
            data.append(contentsOf: buffer[0..<n])
            guard Int64(data.count) <= maxBytes else { throw Self.tooLarge(Int64(data.count), maxBytes) }
        }
    }

    /// The open descriptor of the regular file `url` names under the root, and its size; 404 otherwise. Opened
    /// read-only and non-blocking (a FIFO never blocks the open; it is refused by `fstat`).
    func open(_ url: String) throws(DWWebImageError) -> (fd: Int32, size: Int64) {
        guard let root else { throw .missing("local:// sources are not enabled") }
        guard let components = Self.components(of: url) else { throw Self.notFound }
        let directory = Glibc.open(root.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw Self.notFound }
        defer { close(directory) }
        let flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK
        var fd = triesOpenat2 ? Self.openBeneath(components, under: directory, flags: flags) : nil
        if fd == nil { fd = Self.openWalking(components, under: directory, flags: flags) }
        guard let fd, fd >= 0 else { throw Self.notFound }
        var info = stat()
        guard fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw Self.notFound
        }
        return (fd, Int64(info.st_size))
    }

    /// openat2 with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS: the descriptor, -1 when it refused, nil when the kernel
    /// has no openat2 (ENOSYS, or EPERM from a container's seccomp filter).
    static func openBeneath(_ components: [String], under directory: Int32, flags: Int32) -> Int32? {
        let path = components.joined(separator: "/")
        for _ in 0..<4 {
            let fd = dw_openat2_beneath(directory, path, flags)
            if fd >= 0 { return fd }
            switch errno {
            case EAGAIN, EINTR: continue  // a rename raced the walk: the kernel asks for a retry
            case ENOSYS, EPERM: return nil
            default: return -1
            }
        }
        return -1
    }

    /// Each directory component opened with `O_NOFOLLOW | O_DIRECTORY` relative to the previous one, then the file
    /// with `O_NOFOLLOW`: a symlink anywhere fails the open (ELOOP or ENOTDIR). The file's descriptor, or nil.
    static func openWalking(_ components: [String], under root: Int32, flags: Int32) -> Int32? {
        var directory = root
        defer { if directory != root { close(directory) } }
        for (index, name) in components.enumerated() {
            if index == components.count - 1 {
                let fd = openat(directory, name, flags | O_NOFOLLOW)
                return fd >= 0 ? fd : nil
            }
            let next = openat(directory, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard next >= 0 else { return nil }
            if directory != root { close(directory) }
            directory = next
        }
        return nil
    }

    /// The path after `local://`, percent-decoded once, as components; nil unless it is a plain walk down: it starts
    /// with `/`, names something, and holds no `.`, `..` or NUL.
    static func components(of url: String) -> [String]? {
        let path = url.dropFirst(scheme.count)
        guard path.hasPrefix("/"), let decoded = String(path).removingPercentEncoding else { return nil }
        let components = decoded.split(separator: "/").map(String.init)
        guard !components.isEmpty,
            !components.contains(where: { $0 == "." || $0 == ".." || $0.utf8.contains(0) })
        else { return nil }
        return components
    }

    static let notFound = DWWebImageError.missing("local file is outside --local-root or missing")

    private static func tooLarge(_ size: Int64, _ limit: Int64) -> DWWebImageError {
        .overLimit("local file of \(size) bytes", limit: limit, size: size)
    }
}

/// The fallback image (`--fallback-image`) as a source the pipeline loads from memory, under a name no URL can spell
/// (``DWProxyURL`` admits only `http(s)`, `s3` and `local`): its variants are made on the pipeline's transform
/// workers, coalesced, and kept in the memory cache per plan identifier, so a failing request whose plan was answered
/// before costs no render. Loads run in the pipeline's loader task.
struct DWFallbackLoader: DWImageLoader {
    /// The name the fallback is loaded under: `dwfallback:` and a digest of its bytes.
    let source: String
    private let data: Data

    init(image: DWImage) {
        data = image.data
        source = "dwfallback:" + DWDigest.sha256Hex(image.data, bytes: 12)
    }

    func canLoad(_ url: String) -> Bool { url == source }

    func load(_ url: String, into body: DWImageLoaderBody) async throws {
        body.expect(length: Int64(data.count))
        try body.append(data)
    }
}
