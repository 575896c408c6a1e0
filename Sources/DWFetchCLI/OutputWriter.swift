// OutputWriter and OutputNames: -o DIR — deterministic unique names, atomic writes (O_TMPFILE, else temp + rename).
import DWFileIO
import DWLocking
import DWWebImage
import Foundation

/// Names for `-o`: the URL's last path component (percent-decoded, made safe), "image" when empty, and
/// `name-1.ext`, `name-2.ext`… for clashes, assigned in input order (so the same command gives the same names).
/// With `extensionFromFormat` (processed images) the names come without an extension — `cat.png` → `cat` — made
/// unique as such, and the writer appends the output format's own.
enum OutputNames {
    /// One name per URL, in the order of `urls` (an array, not a dictionary by URL: a run over many URLs keeps it
    /// whole, and names of up to 15 bytes live inside the array's elements).
    static func assign(_ urls: [String], extensionFromFormat: Bool = false) -> [String] {
        var taken = Set<String>()
        var names: [String] = []
        names.reserveCapacity(urls.count)
        for url in urls {
            var base = baseName(url)
            if extensionFromFormat, let dot = base.lastIndex(of: "."), dot != base.startIndex {
                base = String(base[..<dot])
            }
            var candidate = base
            var n = 0
            while !taken.insert(candidate.lowercased()).inserted {  // one lowercasing and one lookup a name
                n += 1
                candidate = numbered(base, n)
            }
            names.append(candidate)
        }
        return names
    }

    static func baseName(_ url: String) -> String {
        if let name = asciiBaseName(url) { return name }
        var path = url
        if let schemeEnd = path.range(of: "://") { path = String(path[schemeEnd.upperBound...]) }
        if let cut = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = String(path[..<cut]) }
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        var last = components.count > 1 ? String(components.last!) : ""
        last = last.removingPercentEncoding ?? last
        var safe = String(
            last.unicodeScalars.map { scalar -> Character in
                (scalar.value < 0x20 || scalar == "/" || scalar == "\\" || scalar.value == 0x7F)
                    ? "_" : Character(scalar)
            })
        while safe.hasPrefix(".") { safe.removeFirst() }
        if safe.utf8.count > 200 { safe = String(safe.prefix(100)) }
        return safe.isEmpty ? "image" : safe
    }

    /// `baseName` for the usual URL — printable ASCII without `%` or `\\` — on bytes (the general path's
    /// Foundation string calls cost tens of microseconds a URL); nil for anything else.
    private static func asciiBaseName(_ url: String) -> String? {
        // The string's own bytes when it has them contiguous (a native string always does): no copy.
        url.utf8.withContiguousStorageIfAvailable { asciiBaseName(bytes: $0) } ?? asciiBaseName(bytes: Array(url.utf8))
    }

    private static func asciiBaseName<Bytes: RandomAccessCollection<UInt8>>(bytes: Bytes) -> String?
    where Bytes.Index == Int {
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x25 && $0 != 0x5C }) else { return nil }
        var start = 0
        if let scheme = (0..<max(0, bytes.count - 2)).first(where: {
            bytes[$0] == 0x3A && bytes[$0 + 1] == 0x2F && bytes[$0 + 2] == 0x2F
        }) {
            start = scheme + 3
        }
        let end = bytes[start...].firstIndex(where: { $0 == 0x3F || $0 == 0x23 }) ?? bytes.count
        guard let slash = bytes[start..<end].lastIndex(of: 0x2F) else { return "image" }
        var first = slash + 1
        while first < end, bytes[first] == 0x2E { first += 1 }  // no leading dots
        let name = end - first > 200 ? bytes[first..<first + 100] : bytes[first..<end]
        return name.isEmpty ? "image" : String(decoding: name, as: UTF8.self)
    }

    private static func numbered(_ name: String, _ n: Int) -> String {
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot])-\(n)\(name[dot...])"
        }
        return "\(name)-\(n)"
    }
}

/// Writes files into the output directory atomically.
package final class OutputWriter: Sendable {
    let directory: String
    /// `directory` and a slash, made once: each output's path is this and its name (one string made an image).
    private let directoryPrefix: String
    private static let tempPrefix = ".dwfetch-tmp-"
    private static let tempCounter = DWLock(0)

    /// `-o s3://bucket/prefix`: where objects go, and the client that PUTs them.
    let store: (client: DWS3Client, prefix: DWS3Location)?

    package init(directory: String, s3: DWS3Configuration = .fromEnvironment()) {
        self.directory = directory
        directoryPrefix = directory.hasSuffix("/") ? directory : directory + "/"
        store = DWS3Location(directory).map { (DWS3Client(configuration: s3, timeout: 60), $0) }
    }

    /// Creates the directory; returns an error text if it cannot.
    package func prepare() -> String? {
        if store != nil { return nil }  // a bucket prefix needs no creating
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            return nil
        } catch {
            return "cannot create \(directory): \(error.localizedDescription)"
        }
    }

    /// Writes `image`'s bytes to `directory/name` so that the name appears only with the whole file behind it
    /// (``AtomicFile``: unnamed until linked, else temp + rename; no fsync, which a bulk download does not need),
    /// a window at a time (a large mapped body never becomes resident at once); returns the path. An image read from
    /// or written to a body-only cache entry is not written again: see ``publish(_:as:fallbackName:)``.
    package func write(_ image: DWImage, name: String) throws -> String {
        if let store { return try Self.put(image, name: name, store: store) }
        let final = directoryPrefix + name
        // pid + a per-process counter: unique without UUID() (which reads /dev/urandom every time).
        let tempName = { Self.tempPrefix + "\(getpid())-\(Self.tempCounter.withLock { n -> Int in n += 1; return n })" }
        if let entry = image.entryFile, entry.size == image.data.count,
            publish(entry, as: final, fallbackName: tempName)
        {
            return final
        }
        guard var file = AtomicFile.create(in: directory, fallbackName: tempName) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        var failure: Int32 = 0
        image.forEachDataWindow { window in
            if failure == 0 { failure = file.write(window) }
        }
        if failure != 0 {
            file.discard()
            throw POSIXError(POSIXErrorCode(rawValue: failure) ?? .EIO)
        }
        let code = file.publish(as: final, fallbackName: tempName)
        if code != 0 { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
        return final
    }

    /// How an output is made from a body-only cache entry. `DWFETCH_OUTPUT_FROM_ENTRY`: `link` (default: a hard
    /// link, else a kernel copy), `copy` (always a kernel copy), `off` (write the bytes, as without a cache).
    enum EntryUse: String { case link, copy, off }
    static let entryUse =
        getenv("DWFETCH_OUTPUT_FROM_ENTRY").flatMap { EntryUse(rawValue: String(cString: $0)) } ?? .link

    /// Makes `final` from the cache entry `entry` without the bytes passing through this process: a hard link (the
    /// output and the entry are one file, stored once) when both are on one file system, the entry is not a
    /// private file and is below ``largeEntry``; else a kernel copy (``copyInKernel(from:offset:to:count:)``).
    /// Either way from the file itself when the cache kept it open, else only while `entry.path` still names the
    /// file that was validated (device and inode), or it is left alone. False when neither worked: the caller writes
    /// the bytes.
    private func publish(_ entry: DWCacheEntryFile, as final: String, fallbackName: () -> String) -> Bool {
        switch Self.entryUse {
        case .off: return false
        case .link:
            if entry.mode & 0o044 != 0, entry.size < Self.largeEntry, link(entry, as: final, fallbackName: fallbackName)
            {
                return true
            }
            return copy(entry, as: final, fallbackName: fallbackName)
        case .copy: return copy(entry, as: final, fallbackName: fallbackName)
        }
    }

    /// Entries this large are copied, not linked: the library maps large entries when it reads them, and a mapped
    /// file must never be truncated in place, which a user may do to an output file.
    static let largeEntry = 4 << 20

    /// `final` as a hard link to `entry` (replacing what is there through a temp name and `rename`).
    private func link(_ entry: DWCacheEntryFile, as final: String, fallbackName: () -> String) -> Bool {
        switch entry.identity {
        case .open(let file): return link(open: file.fd, as: final, fallbackName: fallbackName)
        case .inode(let device, let inode):
            return link(path: entry.path, device: device, inode: inode, as: final, fallbackName: fallbackName)
        }
    }

    /// `final` as a link to the file open as `fd`: no path to check again (`ENOENT`: it was evicted since).
    private func link(open fd: Int32, as final: String, fallbackName: () -> String) -> Bool {
        if AtomicFile.link(fd, as: final) == 0 { return true }
        guard errno == EEXIST else { return false }
        var file = stat()
        var there = stat()
        // Already this very file (a run again into the same directory): rename would do nothing and leave the temp
        // name behind.
        if fstat(fd, &file) == 0, lstat(final, &there) == 0, file.st_dev == there.st_dev, file.st_ino == there.st_ino {
            return true
        }
        let target = directory + "/" + fallbackName()
        guard AtomicFile.link(fd, as: target) == 0 else { return false }
        if rename(target, final) != 0 {
            unlink(target)
            return false
        }
        return true
    }

    /// `final` as a link to the file at `path`, only while `path` still names `device` and `inode`.
    private func link(
        path: String, device: UInt64, inode: UInt64, as final: String, fallbackName: () -> String
    ) -> Bool {
        var target = final
        var st = stat()
        if Glibc.link(path, final) != 0 {
            guard errno == EEXIST else { return false }  // EXDEV, EPERM, EMLINK…: a copy instead
            // Already this very file (a run again into the same directory): see link(open:as:fallbackName:).
            if lstat(final, &st) == 0, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode {
                return true
            }
            target = directory + "/" + fallbackName()
            guard Glibc.link(path, target) == 0 else { return false }
        }
        guard lstat(target, &st) == 0, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode else {
            unlink(target)  // the entry was replaced since: not the bytes this run holds
            return false
        }
        if target != final && rename(target, final) != 0 {
            unlink(target)
            return false
        }
        return true
    }

    /// `final` as a kernel copy of `entry`: from the kept file, or from `entry.path` while it names the same file.
    private func copy(_ entry: DWCacheEntryFile, as final: String, fallbackName: () -> String) -> Bool {
        switch entry.identity {
        case .open(let file):
            return copy(from: file.fd, count: entry.size, as: final, fallbackName: fallbackName)
        case .inode(let device, let inode):
            let source = open(entry.path, O_RDONLY | O_CLOEXEC)
            guard source >= 0 else { return false }
            defer { close(source) }
            var st = stat()
            guard fstat(source, &st) == 0, UInt64(st.st_dev) == device, UInt64(st.st_ino) == inode,
                Int(st.st_size) == entry.size
            else { return false }
            return copy(from: source, count: entry.size, as: final, fallbackName: fallbackName)
        }
    }

    /// `final` as a kernel copy of the first `count` bytes of `source`.
    private func copy(from source: Int32, count: Int, as final: String, fallbackName: () -> String) -> Bool {
        guard var file = AtomicFile.create(in: directory, fallbackName: fallbackName) else { return false }
        guard copyInKernel(from: source, offset: 0, to: file.fd, count: count) == 0 else {
            file.discard()
            return false
        }
        return file.publish(as: final, fallbackName: fallbackName) == 0
    }

    /// PUTs the image as `prefix/name` (its SHA-256 in x-amz-content-sha256, signed by libcurl); returns its s3 URL.
    private static func put(_ image: DWImage, name: String, store: (client: DWS3Client, prefix: DWS3Location))
        throws -> String
    {
        let location = store.prefix.appending(name)
        try store.client.put(
            location, data: image.data, contentType: image.format.mimeType ?? "application/octet-stream")
        return location.url
    }

    /// Removes temp files this process left (after Ctrl-C).
    func removeTemporaryFiles() {
        if store != nil { return }
        let prefix = "\(Self.tempPrefix)\(getpid())-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix)
        {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}
