// DWThumborSettings: how `dwfetch serve` answers thumbor's URL dialect (its flags, docs/thumbor.md).
import DWImageTransform

/// The thumbor dialect's server settings. The dialect is on only with a key or with `--thumbor-allow-unsafe`; off,
/// every path is an imgproxy path. A plain value, read on any thread.
public struct DWThumborSettings: Sendable {
    /// `--thumbor-key` (repeatable, for rotation) and `THUMBOR_SECURITY_KEY`: any of them may sign a URL.
    public var signers: [DWThumborSigner] = []
    /// `--thumbor-allow-unsafe` (thumbor's `ALLOW_UNSAFE_URL`): `/unsafe/…` is served; off (default) it is a 403.
    public var allowUnsafe = false
    /// `--thumbor-respect-orientation` (thumbor's `RESPECT_ORIENTATION`): apply the EXIF orientation; off by default,
    /// as in thumbor.
    public var respectOrientation = false
    /// `--thumbor-preserve-exif` (thumbor's `PRESERVE_EXIF_INFO`): keep the metadata; off by default, as in thumbor.
    public var preserveEXIF = false
    /// `--watermark-allow-host` (repeatable; `*.example.com` also allows its subdomains): the only hosts thumbor's
    /// `watermark()` fetches from; empty (default): the filter is refused (400).
    public var watermarkHosts: [String] = []

    /// The dialect off.
    public init() {}

    /// Whether thumbor paths are recognised at all (a key, or unsafe URLs allowed).
    public var isEnabled: Bool { !signers.isEmpty || allowUnsafe }
}
