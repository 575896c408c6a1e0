// `dwfetch serve`'s imgproxy-compatibility flags, grouped so Serve.swift only embeds them.
import ArgumentParser
import DWWebImage
import DWWebImageServer
import Foundation

struct ServeImgproxyOptions: ParsableArguments {
    @Option(name: .customLong("preset"), help: ArgumentHelp(
        "A named option set, NAME=OPT/OPT (repeatable); 'default' applies to every request.", valueName: "NAME=OPTIONS"))
    var presets: [String] = []
    @Flag(name: .customLong("only-presets"), help: "URLs name only presets (pr1:pr2) in place of options.")
    var onlyPresets = false
    @Option(name: .customLong("format-quality"), help: ArgumentHelp(
        "Default quality per format, e.g. webp=79,avif=63 (imgproxy's defaults already).", valueName: "FMT=Q,..."))
    var formatQuality: String?
    @Option(help: ArgumentHelp("The image wm: draws.", valueName: "FILE")) var watermark: String?
    @Option(name: .customLong("local-root"), help: ArgumentHelp(
        "Serve local:///path sources from under DIR (nothing outside it).", valueName: "DIR"))
    var localRoot: String?
    @Option(name: .customLong("fallback-image"), help: ArgumentHelp(
        "Served (processed like the source) when a source cannot be had.", valueName: "FILE"))
    var fallbackImage: String?
    @Option(name: .customLong("fallback-status"), help: ArgumentHelp("Status of the fallback image.", valueName: "CODE"))
    var fallbackStatus = 200
    @Option(name: .customLong("fallback-max-age"), help: ArgumentHelp(
        "Cache-Control max-age of the fallback image (default: --max-age).", valueName: "SEC"))
    var fallbackMaxAge: Int?

    func validate() throws {
        var check = DWPresets()
        for preset in presets where !check.add(preset) { throw ValidationError("--preset expects NAME=OPT/OPT, got \"\(preset)\"") }
        if let formatQuality, DWImgproxySettings.parseFormatQuality(formatQuality) == nil {
            throw ValidationError("--format-quality expects FMT=Q[,FMT=Q] with Q 1-100")
        }
        guard (100...599).contains(fallbackStatus) else { throw ValidationError("--fallback-status must be 100-599") }
        if let fallbackMaxAge, fallbackMaxAge < 0 { throw ValidationError("--fallback-max-age must be 0 or more") }
    }

    /// The settings, reading the watermark and fallback files now (a file that is not an image stops serve).
    func settings() throws -> DWImgproxySettings {
        var settings = DWImgproxySettings()
        for preset in presets { _ = settings.presets.add(preset) }
        settings.presets.onlyPresets = onlyPresets
        settings.formatQuality = formatQuality.flatMap(DWImgproxySettings.parseFormatQuality) ?? [:]
        settings.watermark = try watermark.map { try Self.image(at: $0, flag: "--watermark") }
        settings.fallbackImage = try fallbackImage.map { try Self.image(at: $0, flag: "--fallback-image") }
        settings.fallbackStatus = fallbackStatus
        settings.fallbackMaxAge = fallbackMaxAge
        if let localRoot {
            settings.localRoot = URL(fileURLWithPath: localRoot, isDirectory: true).resolvingSymlinksInPath()
        }
        return settings
    }

    private static func image(at path: String, flag: String) throws -> DWImage {
        guard let data = FileManager.default.contents(atPath: path), let image = try? DWImage(data: data) else {
            throw ValidationError("\(flag): \(path) is not a readable image")
        }
        return image
    }
}
