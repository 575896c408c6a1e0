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
            while taken.contains(candidate.lowercased()) {
                n += 1
                candidate = numbered(base, n)
            }
            taken.insert(candidate.lowercased())
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
        var safe = String(last.unicodeScalars.map { scalar -> Character in
            (scalar.value < 0x20 || scalar == "/" || scalar == "\\" || scalar.value == 0x7F) ? "_" : Character(scalar)
        })
        while safe.hasPrefix(".") { safe.removeFirst() }
        if safe.utf8.count > 200 { safe = String(safe.prefix(100)) }
        return safe.isEmpty ? "image" : safe
    }

    /// `baseName` for the usual URL — printable ASCII without `%` or `\\` — on bytes (the general path's
    /// Foundation string calls cost tens of microseconds a URL); nil for anything else.
    private static func asciiBaseName(_ url: String) -> String? {
        var bytes = Array(url.utf8)
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x25 && $0 != 0x5C }) else { return nil }
        var start = 0
        if let scheme = (0..<max(0, bytes.count - 2)).first(where: { bytes[$0] == 0x3A && bytes[$0 + 1] == 0x2F && bytes[$0 + 2] == 0x2F }) {
            start = scheme + 3
        }
        let end = bytes[start...].firstIndex(where: { $0 == 0x3F || $0 == 0x23 }) ?? bytes.count
        guard let slash = bytes[start..<end].lastIndex(of: 0x2F) else { return "image" }
        var first = slash + 1
        while first < end, bytes[first] == 0x2E { first += 1 }  // no leading dots
        bytes = Array(bytes[first..<end])
        if bytes.count > 200 { bytes = Array(bytes.prefix(100)) }
        return bytes.isEmpty ? "image" : String(decoding: bytes, as: UTF8.self)
    }

    private static func numbered(_ name: String, _ n: Int) -> String {
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return "\(name[..<dot])-\(n)\(name[dot...])"
        }
        return "\(name)-\(n)"
    }
}

/// Writes files into the output directory atomically.
final class OutputWriter: Sendable {
    let directory: String
    private static let tempPrefix = ".dwfetch-tmp-"
    private static let tempCounter = DWLock(0)

    /// `-o s3://bucket/prefix`: where objects go, and the client that PUTs them.
    let store: (client: DWS3Client, prefix: DWS3Location)?

    init(directory: String, s3: DWS3Configuration = .fromEnvironment()) {
        self.directory = directory
        store = DWS3Location(directory).map { (DWS3Client(configuration: s3, timeout: 60), $0) }
    }

    /// Creates the directory; returns an error text if it cannot.
    func prepare() -> String? {
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
    /// a window at a time (a large mapped body never becomes resident at once); returns the path.
    func write(_ image: DWImage, name: String) throws -> String {
        if let store { return try Self.put(image, name: name, store: store) }
        let final = directory.hasSuffix("/") ? directory + name : directory + "/" + name
        // pid + a per-process counter: unique without UUID() (which reads /dev/urandom every time).
        let tempName = { Self.tempPrefix + "\(getpid())-\(Self.tempCounter.withLock { n -> Int in n += 1; return n })" }
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

    /// PUTs the image as `prefix/name` (its SHA-256 in x-amz-content-sha256, signed by libcurl); returns its s3 URL.
    private static func put(_ image: DWImage, name: String, store: (client: DWS3Client, prefix: DWS3Location))
        throws -> String {
        let location = store.prefix.appending(name)
        try store.client.put(location, data: image.data, contentType: image.format.mimeType ?? "application/octet-stream")
        return location.url
    }

    /// Removes temp files this process left (after Ctrl-C).
    func removeTemporaryFiles() {
        if store != nil { return }
        let prefix = "\(Self.tempPrefix)\(getpid())-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}
