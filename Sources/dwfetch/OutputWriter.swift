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
    static func assign(_ urls: [String], extensionFromFormat: Bool = false) -> [String: String] {
        var taken = Set<String>()
        var names: [String: String] = [:]
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
            names[url] = candidate
        }
        return names
    }

    static func baseName(_ url: String) -> String {
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

    init(directory: String) { self.directory = directory }

    /// Creates the directory; returns an error text if it cannot.
    func prepare() -> String? {
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

    /// Removes temp files this process left (after Ctrl-C).
    func removeTemporaryFiles() {
        let prefix = "\(Self.tempPrefix)\(getpid())-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(prefix) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}
