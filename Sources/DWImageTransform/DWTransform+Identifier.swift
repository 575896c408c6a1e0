// DWTransform's identifier: the fields that differ from imgproxy's defaults, in imgproxy's option syntax.
import DWWebImage
import Foundation

extension DWTransform {
    /// The non-default fields as imgproxy options, in a fixed order, "/"-separated (`rt:fill/w:200/h:100/g:no`):
    /// equal transforms give equal identifiers, and any field that changes the output changes it. Never holds `|`.
    public var identifier: String {
        geometryParts.joined(separator: "/") + (geometryParts.isEmpty || pixelParts.isEmpty ? "" : "/")
            + pixelParts.joined(separator: "/")
    }

    private var geometryParts: [String] {
        let d = DWTransform()
        var parts: [String] = []
        if resizingType != d.resizingType { parts.append("rt:\(resizingType.rawValue)") }
        if width != 0 { parts.append("w:\(width)") }
        if height != 0 { parts.append("h:\(height)") }
        if minWidth != 0 { parts.append("mw:\(minWidth)") }
        if minHeight != 0 { parts.append("mh:\(minHeight)") }
        if zoomX != 1 || zoomY != 1 { parts.append("z:\(Self.number(zoomX)):\(Self.number(zoomY))") }
        if dpr != 1 { parts.append("dpr:\(Self.number(dpr))") }
        if enlarge { parts.append("el:1") }
        if let extend { parts.append("ex:1:\(extend.gravity)") }
        if let extendAspectRatio { parts.append("exar:1:\(extendAspectRatio.gravity)") }
        if gravity != d.gravity { parts.append("g:\(gravity)") }
        if cropWidth != 0 || cropHeight != 0 {
            parts.append(
                "c:\(Self.number(cropWidth)):\(Self.number(cropHeight))" + (cropGravity.map { ":\($0)" } ?? ""))
        }
        if let trim {
            parts.append(
                "t:\(Self.number(trim.threshold)):\(trim.color?.hexDigits ?? ""):"
                    + "\(trim.equalHorizontal ? 1 : 0):\(trim.equalVertical ? 1 : 0)"
                    + (trim.thumborCorner.map { ":thumbor-\($0.rawValue)" } ?? ""))
        }
        if !padding.isEmpty { parts.append("pd:\(padding.top):\(padding.right):\(padding.bottom):\(padding.left)") }
        if !autoRotate { parts.append("ar:0") }
        if rotate != 0 { parts.append("rot:\(rotate)") }
        if flipHorizontal || flipVertical { parts.append("fl:\(flipHorizontal ? 1 : 0):\(flipVertical ? 1 : 0)") }
        if adaptiveBox { parts.append("adaptive:1") }  // thumbor's, no imgproxy option
        if coverUncropped { parts.append("cover:1") }  // thumbor's full-fit-in, no imgproxy option
        if let focalPoint { parts.append("focal:\(Self.number(focalPoint.x)):\(Self.number(focalPoint.y))") }
        return parts
    }

    private var pixelParts: [String] {
        var parts: [String] = []
        if let background { parts.append("bg:\(background.hexDigits)") }
        if blur != 0 { parts.append("bl:\(Self.number(blur))") }
        if sharpen != 0 { parts.append("sh:\(Self.number(sharpen))") }
        if pixelate > 1 { parts.append("pix:\(pixelate)") }
        if brightness != 0 || contrast != 1 || saturation != 1 {
            parts.append("a:\(brightness):\(Self.number(contrast)):\(Self.number(saturation))")
        }
        if let monochrome { parts.append("mc:\(Self.number(monochrome.intensity)):\(monochrome.color.hexDigits)") }
        if let watermark {
            parts.append(
                "wm:\(Self.number(watermark.opacity)):\(watermark.position.kind.rawValue):"
                    + "\(Self.number(watermark.position.x)):\(Self.number(watermark.position.y)):"
                    + Self.number(watermark.scale)
            )
        }
        if !pixelFilters.isEmpty { parts.append("pf:" + pixelFilters.map(\.identifier).joined(separator: ",")) }
        if grayscale { parts.append("grayscale") }
        if let tint { parts.append("tint:" + tint.map(Self.number).joined(separator: ":")) }
        if let roundCorners { parts.append("round:\(Self.number(roundCorners))") }
        if let format { parts.append("f:\(format.rawValue)") }
        if pngToJPEG { parts.append("autojpg:1") }  // thumbor's, no imgproxy option
        if let quality { parts.append("q:\(quality)") }
        if !formatQuality.isEmpty {
            parts.append(
                "fq:"
                    + formatQuality.sorted { $0.key.rawValue < $1.key.rawValue }
                    .map { "\($0.key.rawValue):\($0.value)" }.joined(separator: ":"))
        }
        if maxBytes != 0 { parts.append("mb:\(maxBytes)") }
        if neverLarger { parts.append("nl:1") }
        if let loopCount { parts.append("lp:\(loopCount)") }
        if !stripMetadata { parts.append("sm:0") }
        if !keepCopyright { parts.append("kcr:0") }
        if !stripColorProfile { parts.append("scp:0") }
        if enforceThumbnail { parts.append("eth:1") }
        if preserveHDR { parts.append("ph:1") }
        if !skipProcessing.isEmpty {
            parts.append("skp:" + skipProcessing.map(\.rawValue).sorted().joined(separator: ":"))
        }
        if !cacheBuster.isEmpty { parts.append("cb:" + cacheBuster.replacingOccurrences(of: "|", with: "%7C")) }
        if maxAnimationFrames != 0 { parts.append("maf:\(maxAnimationFrames)") }
        if maxResultDimension > 0 { parts.append("mrd:\(maxResultDimension)") }
        return parts
    }

    /// A number as the identifier writes it: integers without ".0", others as Swift prints them.
    static func number(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }
}
