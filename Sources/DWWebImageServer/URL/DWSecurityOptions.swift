// DWSecurityOptions: imgproxy's per-request security options (msr, msfs, maf, mafr; mrd lives in the transform),
// allowed only with --allow-security-options (imgproxy's IMGPROXY_ALLOW_SECURITY_OPTIONS).
import DWWebImage

/// The limits one URL sets for itself, as imgproxy's `security.Options` (v3.31): each replaces the server's value
/// for this request; nil keeps the server's. `max_result_dimension` is ``DWTransform/maxResultDimension`` (it changes
/// the geometry). A plain value; ``check(_:)`` runs on any thread.
struct DWSecurityOptions: Sendable, Hashable {
    /// `msr` (megapixels × 10⁶): the source's width × height (× frames processed, for an animation without `mafr`).
    var maxSrcResolution: Int?
    /// `msfs`: the source's size in bytes (≤ 0: no limit, as imgproxy).
    var maxSrcFileSize: Int?
    /// `maf`: frames of an animation processed (the first N, as `--max-animation-frames`).
    var maxAnimationFrames: Int?
    /// `mafr` (megapixels × 10⁶): each frame's width × height, for an animation (0: off, `msr` counts every frame).
    var maxAnimationFrameResolution: Int?

    /// None set.
    init() {}

    /// Whether the URL set none.
    var isEmpty: Bool { self == DWSecurityOptions() }

    /// `sec(msr=…,msfs=…,maf=…,mafr=…)`, the values set (a cache key part: `maf` changes the frames written).
    var identifier: String {
        let parts = [
            ("msr", maxSrcResolution), ("msfs", maxSrcFileSize), ("maf", maxAnimationFrames),
            ("mafr", maxAnimationFrameResolution)
        ].compactMap { name, value in value.map { "\(name)=\($0)" } }
        return "sec(\(parts.joined(separator: ",")))"
    }

    /// imgproxy's checks of the source against the limits set, from its header (before any decode): 10005 (422)
    /// when the file is over `msfs`, or the pixels over `msr` / a frame over `mafr`. `processedFrames`: the frames
    /// that will be processed (1 unless the result keeps an animation).
    func check(_ image: DWImage, processedFrames: Int) throws(DWWebImageError) {
        if let limit = maxSrcFileSize, limit > 0, image.data.count > limit {
            throw .sourceTooBig("file", "msfs:\(limit)", size: Int64(image.data.count), limit: Int64(limit))
        }
        let area = image.pixelWidth.multipliedReportingOverflow(by: image.pixelHeight)
        let frames = max(1, processedFrames)
        if frames > 1, let limit = maxAnimationFrameResolution, limit > 0 {
            if area.overflow || area.partialValue > limit {
                throw .sourceTooBig(
                    "frame resolution", "mafr", size: area.overflow ? .max : Int64(area.partialValue),
                    limit: Int64(limit))
            }
        } else if let limit = maxSrcResolution {
            let total = area.partialValue.multipliedReportingOverflow(by: frames)
            if area.overflow || total.overflow || total.partialValue > limit {
                throw .sourceTooBig(
                    "resolution", "msr", size: total.overflow || area.overflow ? .max : Int64(total.partialValue),
                    limit: Int64(limit))
            }
        }
    }
}

extension DWOptionParser {
    /// `msr`, `msfs`, `maf`, `mafr`, `mrd` by imgproxy's rules (v3.31 `applyMax…Option`): refused with imgproxy's 403
    /// unless the server allows them (a known option that is forbidden, not a malformed one); then one argument each
    /// — `msr` a positive number of megapixels, `mafr` any number of megapixels, `maf` a positive integer, `msfs` and
    /// `mrd` integers (≤ 0: no limit).
    func security(_ r: ArgReader, _ o: inout DWImgproxyOptions) throws(ParseError) {
        guard presets.allowSecurityOptions else {
            throw ParseError("security processing options are not allowed ('\(r.name)')", status: 403)
        }
        try r.max(1)
        switch r.name {
        case "max_src_resolution", "msr":
            o.security.maxSrcResolution = megapixels(try r.positiveDouble(0))
        case "max_src_file_size", "msfs": o.security.maxSrcFileSize = try r.int(0)
        case "max_animation_frames", "maf": o.security.maxAnimationFrames = try r.intIn(0, 1...Int(Int32.max))
        case "max_animation_frame_resolution", "mafr":
            o.security.maxAnimationFrameResolution = megapixels(try r.double(0))
        default: o.transform.maxResultDimension = max(0, min(try r.int(0), Int(Int32.max)))
        }
    }

    /// Go's `int(x * 1000000)` (ArgReader's numbers are below 10⁹ in magnitude, so it fits).
    private func megapixels(_ value: Double) -> Int { Int((value * 1_000_000).rounded(.towardZero)) }
}
