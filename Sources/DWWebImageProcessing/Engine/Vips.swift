// Vips: libvips started once per process, its errors turned into DWWebImageError, and VImage (one owned reference).
internal import CVips
import DWWebImage
import Foundation

/// The process-wide libvips runtime.
enum Vips {
    /// Starts libvips the first time it is read (a Swift `static let` is initialised exactly once, thread-safely),
    /// then blocks its untrusted loaders (ImageMagick, PDF, SVG, FITS…: not image formats of the web) except JPEG XL's
    /// (libvips 8.14 flags libjxl untrusted; imgproxy reads and writes JPEG XL through it all the same: a server that
    /// does not want libjxl on its sources leaves `jxl` out of ``DWProcessingLimits/sourceFormats``, `dwfetch serve
    /// --source-formats`), turns off its operation cache (every transform reads new bytes; a server would only pay
    /// memory for it), drops its GLib warnings, and sets the threads per transform.
    ///
    /// libvips' plugin modules: `vips_init` loads every module in its module directory — on Debian ImageMagick,
    /// poppler (PDF), OpenSlide, JPEG XL and HEIF. All but HEIF and JPEG XL are untrusted loaders we block anyway,
    /// and loading them costs ~170 ms and ~7 MB per process and maps their code into ours. Unless `VIPSHOME` is set
    /// by the user, libvips is started with `VIPSHOME` pointing nowhere (no module is found) and only `vips-heif.so`
    /// and `vips-jxl.so` are loaded from beside libvips afterwards.
    static let started: Bool = {
        let ownModules = getenv("VIPSHOME") == nil
        if ownModules { setenv("VIPSHOME", "/nonexistent/dwwebimage-load-no-vips-modules", 1) }
        let status = cvips_init("dwwebimage")
        if ownModules { unsetenv("VIPSHOME") }
        guard status == 0 else { return false }
        if ownModules { loadModules(["heif", "jxl"]) }
        cvips_block_untrusted(1)
        cvips_operation_block_set("VipsForeignLoadJxl", 0)
        cvips_operation_block_set("VipsForeignSaveJxl", 0)
        // Netpbm (DWImageFormat.pnm): a small parser libvips counts as untrusted; `dwfetch serve` leaves the format
        // out of its default source formats (DWServeConfiguration.defaultSourceFormats).
        cvips_operation_block_set("VipsForeignLoadPpm", 0)
        // JPEG 2000 (DWImageFormat.jp2, OpenJPEG): the same; its codestream is checked first (Decoder+Untrusted.swift).
        cvips_operation_block_set("VipsForeignLoadJp2k", 0)
        // FITS (DWImageFormat.fits, cfitsio): the same; only the file loader, given a private temporary file after
        // its header was checked (Decoder+Untrusted.swift). fitsload_source stays blocked.
        cvips_operation_block_set("VipsForeignLoadFitsFile", 0)
        // svgload_buffer stays blocked here: only the SVG helper process unblocks it (DWSVGRenderer.runHelper)
        cvips_silence_warnings()
        cvips_cache_set(0, 0, 0)
        cvips_concurrency_set(Int32(DWImageProcessing.threadsPerTransform))
        return true
    }()

    /// `<dir of libvips.so>/vips-modules-<major.minor>/vips-<name>.so` for each name, if it is there.
    private static func loadModules(_ names: [String]) {
        guard let library = cvips_library_path() else { return }
        defer { cvips_free(library) }
        let directory = (String(cString: library) as NSString).deletingLastPathComponent
        let version = String(cString: cvips_version()).split(separator: ".").prefix(2).joined(separator: ".")
        for name in names {
            let module = "\(directory)/vips-modules-\(version)/vips-\(name).so"
            if FileManager.default.fileExists(atPath: module) { _ = cvips_load_module(module) }
        }
    }

    /// Starts libvips if needed (and registers the WebP and APNG frame sources); 10000 if it cannot start (its
    /// reason in the message).
    static func start() throws(DWWebImageError) {
        DWImageProcessing.registerAnimationDecoders()  // any use of the engine can play WebP and APNG
        guard started else { throw error("cannot start libvips") }
    }

    /// libvips' reason for the last failure, taken out of its (process-wide) error buffer, which is left empty.
    static func takeErrorText() -> String {
        guard let text = cvips_error_take() else { return "" }
        defer { cvips_free(text) }
        return String(cString: text).trimmingCharacters(in: .whitespacesAndNewlines)
            .split(separator: "\n").prefix(3).joined(separator: "; ")
    }

    /// A 10000 error: `what` failed, with libvips' reason.
    static func error(_ what: String) -> DWWebImageError {
        .failed(what, reason: takeErrorText())
    }

    /// Runs one libvips call that produces an image (`body` gets the out-pointer and returns libvips' status).
    /// Inside a stopped ``DWWorkCancellation/current`` it throws 10007 instead (before the call, and in place of
    /// libvips' "killed" failure).
    static func make(_ what: String, _ body: (UnsafeMutablePointer<OpaquePointer?>) -> Int32)
        throws(DWWebImageError) -> VImage
    {
        try checkStopped()
        // warnings earlier calls left (libjpeg's "extraneous bytes") are not this reason
        cvips_free(cvips_error_take())
        var out: OpaquePointer?
        guard body(&out) == 0, let out else {
            if let out { cvips_unref(out) }
            try checkStopped()
            throw error(what)
        }
        return VImage(out)
    }

    /// Throws 10007 when the work this thread runs for has been stopped (``DWWorkCancellation/current``).
    static func checkStopped() throws(DWWebImageError) {
        guard let cancellation = DWWorkCancellation.current, cancellation.isCancelled else { return }
        cvips_free(cvips_error_take())
        throw DWWorkCancellation.stopped
    }
}

/// One reference to a `VipsImage`, released when this object goes.
///
/// `@unchecked Sendable` holds because a libvips image is immutable once built (metadata is only set on a private
/// copy, before anyone else sees it), its reference count is atomic, and libvips evaluates one image from several
/// threads by design.
///
/// Made inside a transform (``DWWorkCancellation/current`` set), it registers a hook that sets libvips' kill flag
/// on its image when the transform is stopped, so an evaluation running now fails at its next region; the hook is
/// removed before the reference is released.
final class VImage: @unchecked Sendable {
    let pointer: OpaquePointer
    private let killHook: (cancellation: DWWorkCancellation, id: UInt64)?

    init(_ pointer: OpaquePointer) {
        self.pointer = pointer
        guard let cancellation = DWWorkCancellation.current else {
            killHook = nil
            return
        }
        let address = Int(bitPattern: pointer)  // a plain number: the hook only runs while this object holds it
        let id = cancellation.register {
            if let image = OpaquePointer(bitPattern: address) { cvips_set_kill(image, 1) }
        }
        killHook = id.map { (cancellation, $0) }
    }

    deinit {
        if let killHook { killHook.cancellation.unregister(killHook.id) }
        cvips_unref(pointer)
    }

    var width: Int { Int(cvips_width(pointer)) }
    var height: Int { Int(cvips_height(pointer)) }
    var bands: Int { Int(cvips_bands(pointer)) }
    var hasAlpha: Bool { cvips_has_alpha(pointer) != 0 }
    var hasICCProfile: Bool { cvips_has_icc(pointer) != 0 }
    var isUChar: Bool { cvips_band_format(pointer) == VipsBandFormat.uchar }
    /// Whether the interpretation is sRGB.
    var isSRGB: Bool { cvips_interpretation(pointer) == VipsInterpretation.sRGB }
    /// Whether the interpretation is B_W (8-bit grey).
    var isGrey: Bool { cvips_interpretation(pointer) == VipsInterpretation.bw }
    /// An integer header field, if present.
    func int(_ name: String) -> Int? {
        var value: Int32 = 0
        return cvips_get_int(pointer, name, &value) == 0 ? Int(value) : nil
    }
    /// The number of pixels per band-plane (width × height), without overflow.
    var area: Int { width.multipliedReportingOverflow(by: height).partialValue }
}
