// DWImgproxyOptions: what one URL's processing options ask for — the transform plus how to answer.
import DWImageTransform
import DWWebImage

/// The parsed options of one request: the ``DWTransform`` (what happens to the pixels and the encoding) and the
/// options that change only the response (`exp`, `fn`, `att`, `raw`). A plain value.
struct DWImgproxyOptions: Sendable, Equatable {
    /// The pixels and encoding.
    var transform = DWTransform()
    /// `exp`: a Unix time after which the URL answers 404 (checked when parsed); nil: never.
    var expires: Int64?
    /// `fn`: the file name for `Content-Disposition` (without extension; the output format's is added).
    var filename: String?
    /// `att`: `Content-Disposition: attachment` instead of `inline`.
    var returnAttachment = false
    /// `raw`: the source's bytes as they came, no processing (and no extension-as-format).
    var raw = false
    /// `tag`: a name a CDN or Varnish can purge this answer by (`Surrogate-Key`, `xkey`, `Cache-Tag`, beside the
    /// source's hash); letters, digits, `_` and `-`, at most 64. Not part of the cache key: it changes no byte.
    var tag: String?
    /// Presets applied, in order (`default` first when configured).
    var presets: [String] = []
    /// The security options the URL set (`msr`, `msfs`, `maf`, `mafr`; `mrd` is in ``transform``), when the server
    /// allows them.
    var security = DWSecurityOptions()

    /// No options.
    init() {}
}

/// The server-side settings the option parser reads: presets, `--only-presets` and `--allow-security-options`.
public struct DWPresets: Sendable, Equatable {
    /// Name → its option segments (`rs:fill:300:300`, `q:70`…), as `--preset NAME=OPTIONS` gave them.
    public var presets: [String: [String]] = [:]
    /// The option segments every imgproxy URL starts from, before the `default` preset (`--default-options`, the
    /// form imgproxy's `IMGPROXY_STRIP_METADATA`, `IMGPROXY_RETURN_ATTACHMENT`… take).
    public var base: [String] = []
    /// The option names a URL may use, as it writes them (`w`, `width`…: each spelling listed; `pr` to name
    /// presets); empty: all. Presets' own options are not checked (`--allowed-processing-option`, imgproxy's
    /// `IMGPROXY_ALLOWED_PROCESSING_OPTIONS`).
    public var allowedOptions: Set<String> = []
    /// URLs may name only presets: the options part is one segment of preset names joined by ":".
    public var onlyPresets = false
    /// imgproxy's `IMGPROXY_ALLOW_SECURITY_OPTIONS` (`--allow-security-options`): URLs may set `msr`, `msfs`, `maf`,
    /// `mafr` and `mrd`; off (the default), any of them is a 403, as imgproxy answers.
    public var allowSecurityOptions = false

    /// No presets.
    public init() {}

    /// Throws imgproxy's 404 for a URL's option `segment` whose name ``allowedOptions`` does not list.
    func checkAllowed(_ segment: Substring) throws(DWProxyURL.ParseError) {
        guard !allowedOptions.isEmpty else { return }
        let name = String(segment.prefix { $0 != ":" })
        guard allowedOptions.contains(name) else {
            throw DWProxyURL.ParseError("forbidden processing option \(name)", status: 404, note: "bad-url")
        }
    }

    /// Adds `OPT/OPT/...` to ``base``; false when malformed.
    public mutating func addBase(_ options: String) -> Bool {
        let segments = options.split(separator: "/").map(String.init)
        guard !segments.isEmpty, segments.allSatisfy({ $0.contains(":") }) else { return false }
        base += segments
        return true
    }

    /// Parses `NAME=OPT/OPT/...` (imgproxy's `IMGPROXY_PRESETS` item); nil when malformed.
    public mutating func add(_ definition: String) -> Bool {
        guard let eq = definition.firstIndex(of: "="), eq != definition.startIndex else { return false }
        let name = String(definition[..<eq])
        let options = definition[definition.index(after: eq)...].split(separator: "/").map(String.init)
        guard !options.isEmpty, options.allSatisfy({ $0.contains(":") }) else { return false }
        presets[name] = options
        return true
    }
}
