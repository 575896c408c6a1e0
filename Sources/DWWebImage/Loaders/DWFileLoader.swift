// DWFileLoader: file:// URLs and absolute paths, read in chunks (a built-in DWImageLoader).
import Foundation

/// Loads `file://` URLs (`file:///path`, `file://localhost/path`, percent-encoded) and absolute paths
/// (`/path`). Only regular files: a directory, FIFO or device is 10002. A missing or unreadable file is 10003
/// naming the system's reason. The file is read in 256 KiB chunks (cancellation is noticed between them).
public struct DWFileLoader: DWImageLoader {
    /// A file loader.
    public init() {}

    /// `file:` URLs and paths starting with one `/` (`//host/x` is a protocol-relative URL, not a path).
    public func canLoad(_ url: String) -> Bool {
        (url.hasPrefix("/") && !url.hasPrefix("//")) || url.hasASCIIPrefixIgnoringCase("file:")
    }

    /// Reads the file into `body`.
    public func load(_ url: String, into body: DWImageLoaderBody) async throws {
        let path = try Self.path(of: url)
        var info = stat()
        guard stat(path, &info) == 0 else { throw Self.systemError(url, path) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw DWWebImageError(.invalidURL, "\(path) is not a regular file", url: url)
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.systemError(url, path) }
        defer { close(fd) }
        body.expect(length: Int64(info.st_size))
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            try Task.checkCancellation()
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw Self.systemError(url, path)
            }
            if n == 0 { return }
            try body.append(Data(buffer[0..<n]))
        }
    }

    /// The file system path of a `file:` URL or an absolute path.
    static func path(of url: String) throws(DWWebImageError) -> String {
        if url.hasPrefix("/") && !url.hasPrefix("//") { return url }
        guard let components = URLComponents(string: url), components.scheme?.lowercased() == "file" else {
            throw .invalidURL(url, "malformed file URL")
        }
        let host = components.host ?? ""
        guard host.isEmpty || host.lowercased() == "localhost" else {
            throw .invalidURL(url, "file URL names another host (\(host))")
        }
        let path = components.path
        guard path.hasPrefix("/") else {
            throw .invalidURL(url, "file URL without a path")
        }
        return path
    }

    private static func systemError(_ url: String, _ path: String) -> DWWebImageError {
        .file("read", path, errno: errno, url: url)
    }
}
