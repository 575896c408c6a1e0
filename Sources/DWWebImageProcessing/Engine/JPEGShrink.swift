// JPEGShrink: the DCT scale a JPEG thumbnail decodes at.

/// libjpeg decodes at 1/2, 1/4 or 1/8 of the size for a fraction of the work of a full decode (it skips most of the
/// inverse DCT). `vips_thumbnail_buffer` (libvips 8.14) keeps a factor of two for its Lanczos step: a 2048×1536
/// JPEG fitted into 512×512 is decoded at 1024×768 and then halved, about twice the CPU of decoding at 512×384
/// directly (19 ms against 10 ms an image here). Pillow's `draft`, thumbor's and imgproxy's JPEG path take the
/// largest scale that keeps the image at least the target size, and so does this: the DCT scaling is a proper
/// low-pass, so the result is as close to a Lanczos reference as libvips' two-step path (bench/serve/cold checks
/// the PSNR). Pure arithmetic, any thread.
enum JPEGShrink {
    /// The shrink factor (1, 2, 4 or 8) for decoding `header`'s image into a `width` × `height` box.
    /// `size`: a ``VipsSize``; `crop`: a ``VipsInteresting`` (not none: the box is covered).
    static func factor(header: VImage, width: Int, height: Int, size: Int32, crop: Int32) -> Int {
        let swapped = (5...8).contains(header.int("orientation") ?? 1)
        let sourceWidth = Double(swapped ? header.height : header.width)
        let sourceHeight = Double(swapped ? header.width : header.height)
        return factor(
            sourceWidth: sourceWidth, sourceHeight: sourceHeight, width: width, height: height,
            size: size, crop: crop)
    }

    /// The same from the upright source size.
    static func factor(
        sourceWidth: Double, sourceHeight: Double, width: Int, height: Int, size: Int32,
        crop: Int32
    ) -> Int {
        guard sourceWidth > 0, sourceHeight > 0, width > 0, height > 0 else { return 1 }
        let horizontal = Double(width) / sourceWidth
        let vertical = Double(height) / sourceHeight
        // fit: the smaller scale decides; fill (crop) and force: both sides must stay at least the box's.
        let scale =
            (crop != VipsInteresting.none || size == VipsSize.force)
            ? max(horizontal, vertical) : min(horizontal, vertical)
        guard scale < 1 else { return 1 }
        var shrink = 8
        // libjpeg's scaled size is ceil(side / shrink): at least side / shrink, so this keeps the box covered.
        while shrink > 1 && Double(shrink) * scale > 1 { shrink /= 2 }
        return shrink
    }
}
