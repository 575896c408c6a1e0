// DWThumborMeta: thumbor's `/meta/` answer — the operations thumbor's transformer would run, as its JSON engine
// lists them.
import DWImageTransform
import Foundation

/// thumbor's `meta` JSON for one request: the crop and resize operations and flips worked out with thumbor's own
/// arithmetic (its transformer.py) from the source's size and the path, the target, the focal point of the
/// alignment, and as `source` the size of the answer `serve` renders (thumbor's JSON engine reports its image as it
/// is at the end). A plain value, computed on any thread.
struct DWThumborMeta: Sendable, Equatable {
    let path: DWThumborPath
    /// `stretch()` among the filters: no crop to the box's aspect ratio.
    let stretch: Bool
    /// `autojpg()` without `format()`: thumbor lists `auto_png_to_jpg_conversion` when it converts.
    var autoJPG = false

    /// The JSON for a source of `source` pixels whose rendered answer is `output` pixels with `frames` frames;
    /// `converted`: ``autoJPG`` turned a PNG source into JPEG.
    func json(
        source: (width: Int, height: Int), output: (width: Int, height: Int), frames: Int,
        converted: Bool = false
    ) -> String {
        var (width, height) = (Double(source.width), Double(source.height))
        var operations: [[String: Any]] = []
        if let c = path.crop {
            let left = min(max(Double(c.left), 0), width), right = min(max(Double(c.right), 0), width)
            let top = min(max(Double(c.top), 0), height), bottom = min(max(Double(c.bottom), 0), height)
            if left < right && top < bottom {
                operations.append(["type": "crop", "left": left, "top": top, "right": right, "bottom": bottom])
                (width, height) = (right - left, bottom - top)
            }
        }
        let focus = (x: width * Self.share(path.halign), y: height * Self.share(path.valign))
        var target = targetSize(width, height)
        if path.fitIn {
            target = fitIn(width, height, target, &operations)
        } else {
            if !stretch { autoCrop(&width, &height, target, focus, &operations) }
            if target.width != width || target.height != height {
                operations.append(["type": "resize", "width": max(target.width, 1), "height": max(target.height, 1)])
            }
        }
        if path.flipHorizontal { operations.append(["type": "flip_horizontally"]) }
        if path.flipVertical { operations.append(["type": "flip_vertically"]) }
        if converted { operations.append(["type": "auto_png_to_jpg_conversion"]) }  // asked last, at the encoding
        var last = (width: Double(output.width), height: Double(output.height))
        for op in operations {
            if op["type"] as? String == "crop", let l = op["left"] as? Double, let r = op["right"] as? Double,
                let t = op["top"] as? Double, let b = op["bottom"] as? Double
            {
                last = (r - l, b - t)
            }
            if op["type"] as? String == "resize", let w = op["width"] as? Double, let h = op["height"] as? Double {
                last = (w, h)
            }
        }
        let meta: [String: Any] = [
            "thumbor": [
                "source": [
                    "url": Self.quoted(path.image), "width": output.width, "height": output.height,
                    "frameCount": frames
                ] as [String: Any],
                "operations": operations,
                "target": ["width": last.width, "height": last.height],
                "focal_points": [["x": focus.x, "y": focus.y, "z": 1.0, "height": 1, "width": 1, "origin": "alignment"]]
            ] as [String: Any]
        ]
        let data =
            (try? JSONSerialization.data(withJSONObject: meta, options: [.sortedKeys, .withoutEscapingSlashes]))
            ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    private static func share(_ align: String) -> Double {
        ["left": 0, "top": 0, "right": 1, "bottom": 1][align] ?? 0.5
    }

    /// thumbor's `_calculate_target_dimensions` on a `width` × `height` image.
    private func targetSize(_ width: Double, _ height: Double) -> (width: Double, height: Double) {
        func pixels(_ side: DWThumborPath.Side, _ own: Double) -> Double? {
            switch side {
            case .orig: own
            case .pixels(let n): n == 0 ? nil : Double(n)
            }
        }
        let w = pixels(path.width, width), h = pixels(path.height, height)
        if w == nil && h == nil { return (width, height) }
        return (
            w ?? ((h ?? 0) * width / height).rounded(.toNearestOrEven),
            h ?? ((w ?? 0) * height / width).rounded(.toNearestOrEven)
        )
    }

    /// thumbor's `fit_in_resize`: the resize it appends (none when the image already fits, unless `full`).
    private func fitIn(
        _ width: Double, _ height: Double, _ box: (width: Double, height: Double),
        _ operations: inout [[String: Any]]
    ) -> (width: Double, height: Double) {
        var box = box
        if path.adaptive, (width < height && box.width > box.height) || (width > height && box.width < box.height) {
            box = (box.height, box.width)
        }
        let sign = path.full ? -1.0 : 1.0
        if !path.full && box.width >= width && box.height >= height { return box }
        let size: (Double, Double) =
            width / box.width * sign >= height / box.height * sign
            ? (box.width, (height * box.width / width + 1e-5).rounded(.toNearestOrEven))
            : ((width * box.height / height + 1e-5).rounded(.toNearestOrEven), box.height)
        operations.append(["type": "resize", "width": size.0, "height": size.1])
        return size
    }

    /// thumbor's `auto_crop`: the crop to the box's aspect ratio around the focal point.
    private func autoCrop(
        _ width: inout Double, _ height: inout Double, _ box: (width: Double, height: Double),
        _ focus: (x: Double, y: Double), _ operations: inout [[String: Any]]
    ) {
        let boxHeight = box.height == 0 ? 1 : box.height, boxWidth = box.width == 0 ? 1 : box.width
        func ratio(_ a: Double, _ b: Double) -> Double { (a / b * 100).rounded(.toNearestOrEven) / 100 }
        guard ratio(width, height) != ratio(boxWidth, boxHeight) else { return }
        let (fx, fy) = (focus.x.rounded(.down), focus.y.rounded(.down))
        let cropWidth: Double, cropHeight: Double
        if box.width / width > box.height / height {
            (cropWidth, cropHeight) = (width, (width * box.height / boxWidth).rounded(.toNearestOrEven))
        } else {
            (cropWidth, cropHeight) = ((box.width * height / boxHeight).rounded(.up), height)
        }
        let left = min(max(fx - cropWidth / 2, 0), width - cropWidth).rounded(.toNearestOrEven)
        let top = min(max(fy - cropHeight / 2, 0), height - cropHeight).rounded(.toNearestOrEven)
        let right = min(left + cropWidth, width), bottom = min(top + cropHeight, height)
        operations.append(["type": "crop", "left": left, "top": top, "right": right, "bottom": bottom])
        (width, height) = (right - left, bottom - top)
    }

    /// The image part as thumbor quotes it into `source.url` (Python's `quote`: all but letters, digits, `_.-~/`).
    static func quoted(_ image: String) -> String {
        let decoded = DWURLBytes.percentDecoded(Substring(image)) ?? image
        var allowed = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
        allowed.insert(charactersIn: "_.-~/")
        return decoded.addingPercentEncoding(withAllowedCharacters: allowed) ?? decoded
    }
}
