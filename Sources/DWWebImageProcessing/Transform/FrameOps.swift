// FrameOps: the libvips operations imgproxy's pipeline is made of, on one frame each (sRGB 8-bit, 3 or 4 bands; with
// `ph:1` RGB16 or grey16).
internal import CVips
import DWWebImage
import Foundation

/// One-frame operations; each returns a new lazy libvips image. Called on the processing thread.
enum FrameOps {
    static func rotate(_ frame: VImage, _ angle: Int) throws(DWWebImageError) -> VImage {
        let angle = ((angle % 360) + 360) % 360
        guard angle != 0 else { return frame }
        return try Vips.make("cannot rotate") { cvips_rot(frame.pointer, Int32(angle), $0) }
    }

    static func flip(_ frame: VImage, horizontal: Bool, vertical: Bool) throws(DWWebImageError) -> VImage {
        var image = frame
        if horizontal {
            let source = image
            image = try Vips.make("cannot flip") { cvips_flip(source.pointer, 1, $0) }
        }
        if vertical {
            let source = image
            image = try Vips.make("cannot flip") { cvips_flip(source.pointer, 0, $0) }
        }
        return image
    }

    static func crop(_ frame: VImage, x: Int, y: Int, width: Int, height: Int) throws(DWWebImageError) -> VImage {
        guard x != 0 || y != 0 || width != frame.width || height != frame.height else { return frame }
        return try Vips.make("cannot crop") {
            cvips_extract_area(frame.pointer, Int32(x), Int32(y), Int32(width), Int32(height), $0)
        }
    }

    static func smartCrop(_ frame: VImage, width: Int, height: Int) throws(DWWebImageError) -> VImage {
        let memory = try Vips.make("cannot compute the image") { cvips_copy_memory(frame.pointer, $0) }
        return try Vips.make("cannot smart-crop") {
            cvips_smartcrop_attention(memory.pointer, Int32(width), Int32(height), $0)
        }
    }

    /// A resize by independent factors; images with alpha are resized premultiplied.
    static func resize(_ frame: VImage, _ hScale: Double, _ vScale: Double) throws(DWWebImageError) -> VImage {
        let format = cvips_band_format(frame.pointer)  // 8 bits, or 16 for a `ph:1` frame: kept
        guard frame.hasAlpha else {
            let resized = try Vips.make("cannot resize") { cvips_resize(frame.pointer, hScale, vScale, $0) }
            return try Vips.make("cannot resize") { cvips_cast(resized.pointer, format, $0) }
        }
        let premultiplied = try Vips.make("cannot resize") { cvips_premultiply(frame.pointer, $0) }
        let resized = try Vips.make("cannot resize") { cvips_resize(premultiplied.pointer, hScale, vScale, $0) }
        let straight = try Vips.make("cannot resize") { cvips_unpremultiply(resized.pointer, $0) }
        return try Vips.make("cannot resize") { cvips_cast(straight.pointer, format, $0) }
    }

    /// What an 8-bit value is multiplied by for `frame`'s band format: 1, or 257 for a 16-bit (`ph:1`) frame.
    static func depthScale(_ frame: VImage) -> Double { frame.isUChar ? 1 : 257 }

    /// The frame at (x, y) of a width × height canvas of `background` (transparent when nil: alpha is added).
    static func embed(_ frame: VImage, x: Int, y: Int, width: Int, height: Int, background: DWColor?)
        throws(DWWebImageError) -> VImage
    {
        var image = frame
        var fill: [Double]
        if let background {
            image = try colourFor(background, image)
            fill = [Double(background.red), Double(background.green), Double(background.blue)]
            if isGrey(image) { fill = [fill[0]] }
            if image.hasAlpha { fill.append(255) }
            fill = fill.map { $0 * depthScale(frame) }
        } else {
            if !image.hasAlpha { image = try addAlpha(image) }
            fill = Array(repeating: 0, count: image.bands)
        }
        let source = image, count = Int32(fill.count)
        return try Vips.make("cannot extend") {
            cvips_embed(source.pointer, Int32(x), Int32(y), Int32(width), Int32(height), &fill, count, $0)
        }
    }

    /// A grey16 frame as RGB16 when `color` is not a grey (imgproxy's `vips_guard_colorspace`), else `frame`.
    static func colourFor(_ color: DWColor, _ frame: VImage) throws(DWWebImageError) -> VImage {
        guard isGrey(frame), color.red != color.green || color.red != color.blue else { return frame }
        let rgb = try Vips.make("cannot convert to 16-bit RGB") {
            cvips_colourspace(frame.pointer, VipsInterpretation.rgb16, $0)
        }
        return try Vips.make("cannot convert to 16-bit RGB") { cvips_cast(rgb.pointer, VipsBandFormat.ushort, $0) }
    }

    static func addAlpha(_ frame: VImage) throws(DWWebImageError) -> VImage {
        frame.hasAlpha
            ? frame
            : try Vips.make("cannot add alpha") {
                cvips_bandjoin_const1(frame.pointer, 255 * depthScale(frame), $0)
            }
    }

    static func flatten(_ frame: VImage, _ color: DWColor) throws(DWWebImageError) -> VImage {
        guard frame.hasAlpha else { return frame }
        let scale = depthScale(frame), image = try colourFor(color, frame)
        return try Vips.make("cannot flatten") {
            cvips_flatten(
                image.pointer, Double(color.red) * scale, Double(color.green) * scale,
                Double(color.blue) * scale, $0)
        }
    }

    /// The box that is not border (pixels within `threshold` of `color`, or of the top-left pixel's colour), as
    /// imgproxy's `vips_trim`: an image with alpha is first flattened onto magenta (#ff00ff), so a transparent border
    /// is trimmed as one colour and white content next to it is not.
    static func trimBox(_ frame: VImage, _ trim: DWTrim) throws(DWWebImageError) -> (
        x: Int, y: Int, width: Int, height: Int
    ) {
        // imgproxy finds the box on an 8-bit sRGB copy of a 16-bit image and crops the original.
        let eight = frame.isUChar ? frame : try Decoder.normalize(frame, autorotate: false)
        let opaque = try flatten(eight, DWColor(red: 255, green: 0, blue: 255))
        let memory = try Vips.make("cannot trim") { cvips_copy_memory(opaque.pointer, $0) }
        var background: [Double]
        if let color = trim.color {
            background = [Double(color.red), Double(color.green), Double(color.blue)]
        } else {
            let corner = try Vips.make("cannot trim") { cvips_extract_area(memory.pointer, 0, 0, 1, 1, $0) }
            var length = 0
            guard let pixel = cvips_write_to_memory(corner.pointer, &length) else { throw Vips.error("cannot trim") }
            defer { cvips_free(pixel) }
            let bytes = UnsafeRawBufferPointer(start: pixel, count: length)
            background = bytes.prefix(3).map { Double($0) }
        }
        var left: Int32 = 0, top: Int32 = 0, width: Int32 = 0, height: Int32 = 0
        let count = Int32(background.count)
        guard cvips_find_trim(memory.pointer, trim.threshold, &background, count, &left, &top, &width, &height) == 0
        else {
            throw Vips.error("cannot trim")
        }
        var box = (x: Int(left), y: Int(top), width: Int(width), height: Int(height))
        guard box.width > 0, box.height > 0 else { return (0, 0, frame.width, frame.height) }  // all border: keep it
        if trim.equalHorizontal {
            let side = min(box.x, frame.width - box.x - box.width)
            box.x = side
            box.width = frame.width - 2 * side
        }
        if trim.equalVertical {
            let side = min(box.y, frame.height - box.y - box.height)
            box.y = side
            box.height = frame.height - 2 * side
        }
        return box
    }

    /// `a·x + b` per band, kept at the frame's depth, 8 or 16 bits (the alpha band, if any, unchanged).
    static func linear(_ frame: VImage, _ a: [Double], _ b: [Double]) throws(DWWebImageError) -> VImage {
        var a = a, b = b
        if frame.hasAlpha {
            a.append(1)
            b.append(0)
        }
        let count = Int32(a.count)
        guard !frame.isUChar else {
            return try Vips.make("cannot adjust") { cvips_linear_uchar(frame.pointer, &a, &b, count, $0) }
        }
        let format = cvips_band_format(frame.pointer)
        let result = try Vips.make("cannot adjust") { cvips_linear(frame.pointer, &a, &b, count, $0) }
        return try Vips.make("cannot adjust") { cvips_cast(result.pointer, format, $0) }
    }

    /// A 16-bit grey frame (VipsInterpretation grey16: `ph:1` keeps grey sources grey, as imgproxy does).
    static func isGrey(_ frame: VImage) -> Bool { cvips_interpretation(frame.pointer) == 26 }

    /// The bands that are colour (not alpha): 1 for grey, 3 for RGB.
    static func colourBands(_ frame: VImage) -> Int { frame.hasAlpha ? frame.bands - 1 : frame.bands }
}
