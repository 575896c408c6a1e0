// Decoder + the untrusted loaders: a JPEG 2000 codestream's SIZ checked before libvips' jp2kload (OpenJPEG) sees the
// bytes and the size libvips reports held to it before any pixel is decoded; a PFM's samples held to be finite.
import DWWebImage
import Foundation

extension Decoder {
    /// Before jp2kload opens `data`: its SIZ (the codestream's own size, which a JP2 file's `ihdr` must match) within
    /// `limits`, and at most 65535 tiles (a tile-part's index is 16 bits; OpenJPEG allocates per tile when it reads
    /// the header). 10005 over the pixel limit, 10000 for anything malformed. Runs on the caller's thread.
    static func checkJPEG2000(_ data: Data, limits: DWProcessingLimits) throws(DWWebImageError) -> JPEG2000SIZ {
        let siz = try JPEG2000SIZ.read(data)
        try checkArea(siz.width, siz.height, limits: limits)
        guard siz.tileCount <= 65535 else {
            throw DWWebImageError(.notAnImage, "JPEG 2000 codestream has \(siz.tileCount) tiles (at most 65535)")
        }
        if let declared = JPEG2000SIZ.declaredSize(data), declared != [siz.width, siz.height] {
            throw DWWebImageError(
                .notAnImage,
                "JPEG 2000 header box says \(declared[0])×\(declared[1]), its codestream \(siz.width)×\(siz.height)")
        }
        return siz
    }

    /// After jp2kload read the header (no pixels yet): libvips 8.14 takes the first component's size as the image's,
    /// so a codestream whose first component is subsampled (XRsiz or YRsiz over 1) opens smaller than it is and its
    /// decode reads past OpenJPEG's buffers (valgrind: an invalid read in jp2kload; a different result on each run).
    /// Such a file is refused here, 10000, before anything is decoded.
    static func checkJPEG2000Opened(_ image: VImage, siz: JPEG2000SIZ) throws(DWWebImageError) {
        guard image.width != siz.width || image.height != siz.height else { return }
        let factors = siz.subsampling.map { "\($0.x)×\($0.y)" }.joined(separator: ", ")
        throw DWWebImageError(
            .notAnImage,
            "JPEG 2000 is \(siz.width)×\(siz.height) but decodes as \(image.width)×\(image.height) (component "
                + "subsampling \(factors)): libvips cannot decode it")
    }

    /// A PFM whose samples include NaN or an infinity has no colour to show (libvips' ppmload passes them on, and
    /// what they become in 8 bits is undefined): 10000 before it is opened. Any other data passes.
    static func checkFiniteSamples(_ data: Data) throws(DWWebImageError) {
        guard let index = PFMSamples.firstNonFinite(data) else { return }
        throw DWWebImageError(.notAnImage, "PFM sample \(index) is not a finite number (NaN or infinity)")
    }
}

extension Decoder {
    /// Before fitsload sees `data`: its header (``FITSHeader``: BITPIX valid, two or three axes that count, the
    /// image in the primary header or the first extension) and NAXIS1 × NAXIS2 × NAXIS3 within the pixel limit
    /// (10005, nothing allocated), and the data unit its header declares present (10000 when the file is cut
    /// short). Runs on the caller's thread.
    static func checkFITS(_ data: Data, limits: DWProcessingLimits) throws(DWWebImageError) -> FITSHeader {
        let header = try FITSHeader.read(data)
        try checkArea(header.width, header.height, limits: limits)
        let samples = (header.width * header.height).multipliedReportingOverflow(by: header.bands)
        if samples.overflow || samples.partialValue > limits.maxPixelCount {
            throw .overLimit(
                "FITS image of \(header.width)×\(header.height)×\(header.bands) samples",
                limit: Int64(limits.maxPixelCount), unit: " pixels",
                size: samples.overflow ? .max : Int64(samples.partialValue))
        }
        let end = header.dataStart.addingReportingOverflow(header.dataBytes)
        guard !end.overflow, end.partialValue <= data.count else {
            throw DWWebImageError(
                .notAnImage,
                "FITS data ends at byte \(data.count); its header declares \(header.dataBytes) bytes from byte "
                    + "\(header.dataStart)")
        }
        return header
    }

    /// After fitsload decoded the image: the size it read must be the header's (cfitsio took the same HDU).
    static func checkFITSOpened(_ image: VImage, header: FITSHeader) throws(DWWebImageError) {
        guard image.width != header.width || image.height != header.height else { return }
        throw DWWebImageError(
            .notAnImage,
            "FITS header says \(header.width)×\(header.height) but fitsload read \(image.width)×\(image.height)")
    }
}
