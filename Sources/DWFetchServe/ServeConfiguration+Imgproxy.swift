// ServeConfiguration+Imgproxy: `dwfetch serve`'s imgproxy flags (DWFetchCLI/ServeImgproxyOptions.swift) mapped onto
// DWImgproxySettings, reading the watermark and fallback files at start-up.
import ArgumentParser
import DWFetchCLI
import DWWebImage
import DWWebImageProcessing
import DWWebImageServer
import Foundation

extension DWImgproxySettings {
    /// The settings `options` ask for; a malformed preset or quality, or a file that is not an image, is a
    /// ValidationError (exit 2). Runs on the main thread before the server starts.
    init(_ options: ServeImgproxyOptions) throws {
        self.init()
        for preset in options.presets where !presets.add(preset) {
            throw ValidationError("--preset expects NAME=OPT/OPT, got \"\(preset)\"")
        }
        for base in options.defaultOptions where !presets.addBase(base) {
            throw ValidationError("--default-options expects OPT/OPT, got \"\(base)\"")
        }
        presets.allowedOptions = Set(options.allowedProcessingOptions)
        presets.onlyPresets = options.onlyPresets
        presets.allowSecurityOptions = options.allowSecurityOptions
        for (on, format) in [(options.autoWebP, DWImageFormat.webp), (options.autoAVIF, .avif), (options.autoJXL, .jxl)]
        where on {
            acceptFormats.auto.insert(format)
        }
        for (on, format) in [
            (options.enforceWebP, DWImageFormat.webp), (options.enforceAVIF, .avif), (options.enforceJXL, .jxl)
        ]
        where on {
            acceptFormats.enforce.insert(format)
        }
        if let text = options.formatQuality {
            guard let parsed = Self.parseFormatQuality(text) else {
                throw ValidationError("--format-quality expects FMT=Q[,FMT=Q] with Q 1-100")
            }
            formatQuality = parsed
        }
        guard options.watermarkOpacity > 0, options.watermarkOpacity <= 1 else {
            throw ValidationError("--watermark-opacity is above 0 and at most 1, not \(options.watermarkOpacity)")
        }
        watermarkOpacity = options.watermarkOpacity
        if let quality = options.quality {
            guard (1...100).contains(quality) else { throw ValidationError("--quality is 1-100, not \(quality)") }
            self.quality = quality
        }
        // The data wins over the file, as imgproxy reads IMGPROXY_WATERMARK_DATA before IMGPROXY_WATERMARK_PATH.
        watermark =
            try options.watermarkData.map { try Self.image(base64: $0, flag: "--watermark-data") }
            ?? options.watermark.map { try Self.image(at: $0, flag: "--watermark") }
        fallbackImage =
            try options.fallbackImageData.map { try Self.image(base64: $0, flag: "--fallback-image-data") }
            ?? options.fallbackImage.map { try Self.image(at: $0, flag: "--fallback-image") }
        clientHints = options.enableClientHints
        encoder.jpegProgressive = options.jpegProgressive
        encoder.pngInterlaced = options.pngInterlaced
        encoder.pngQuantize = options.pngQuantize
        encoder.pngQuantizationColors = options.pngQuantizationColors
        (encoder.webpEffort, encoder.avifSpeed, encoder.jxlEffort) = (
            options.webpEffort, options.avifSpeed, options.jxlEffort
        )
        sources.baseURL = options.baseURL ?? ""
        sources.allowedSources = options.allowedSources
        sources.replacements = options.urlReplacements.compactMap(DWSourceRules.Replacement.init(parsing:))
        fallbackStatus = options.fallbackStatus
        if let maxAge = options.fallbackMaxAge { fallbackMaxAge = maxAge }  // else the settings' 60 s
        guard let preferred = DWPreferredFormats(parsing: options.preferredFormats) else {
            throw ValidationError("--preferred-formats expects formats like jpeg,png,gif")
        }
        preferredFormats = preferred
        (alwaysRasterizeSVG, sanitizeSVG) = (options.alwaysRasterizeSVG, options.sanitizeSVG)
        localRoot = options.localRoot.map { URL(fileURLWithPath: $0, isDirectory: true).resolvingSymlinksInPath() }
    }

    private static func image(base64 text: String, flag: String) throws -> DWImage {
        guard let data = ServeEnvironment.decodeBase64(text), let image = try? DWImage(data: data) else {
            throw ValidationError("\(flag) is not a base64-encoded image")
        }
        return image
    }

    private static func image(at path: String, flag: String) throws -> DWImage {
        guard let data = FileManager.default.contents(atPath: path), let image = try? DWImage(data: data) else {
            throw ValidationError("\(flag): \(path) is not a readable image")
        }
        return image
    }
}
