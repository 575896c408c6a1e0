// libFuzzer entry point over what `dwfetch serve` does with a request path before any fetch: the imgproxy URL
// grammar (DWProxyURL: options, presets, `plain/` and base64url sources, extensions, `exp:`), the signature check,
// the result limits, and the request's variant plan rendered on tiny images (a quarter of them also as a server with
// `--encode-budget` renders a plan whose format `Accept` picks: the gate's checks and its recorder, AVIF encodes
// included; this release build is CI's only run of that path optimised); for `/info/…` paths, the info options and
// the JSON answer on the same images. The oracle is the server's promise: a bad URL is
// refused, never a crash, and no URL yields a result past the result limits.
// Built by fuzz/build.sh url (SwiftPM, fuzz/Package.swift) against the library's real modules.
import Foundation
@testable import DWWebImage
@testable import DWWebImageProcessing
@testable import DWWebImageServer

/// One server, as `dwfetch serve` builds it with its defaults (no watermark, no local root; libvips started once).
/// Nothing listens: the target calls the steps a request goes through.
private let server: DWImageServer = {
    var configuration = DWServeConfiguration()
    configuration.cacheDirectory = URL(fileURLWithPath: NSTemporaryDirectory())
        .appendingPathComponent("dw-url-fuzzer")  // one folder for every run: with the disk cache off it stays empty
    configuration.diskCache = false
    return DWImageServer(configuration: configuration)
}()

/// The same server with an encode budget far over what a tiny image costs (every encode admitted, every one
/// recorded) and `Accept` asking for AVIF then WebP: a URL naming no format renders through the encode gate.
private let budgeted: DWImageServer = {
    var configuration = server.configuration
    configuration.encodeBudget.budget = 60_000
    return DWImageServer(configuration: configuration)
}()
private let negotiated: DWAcceptBucket = {
    var bucket = DWAcceptBucket()
    bucket.preferred = [.avif, .webp]
    return bucket
}()

/// A default preset and a named one, with the URL's own security options allowed, so `pr:` and the `default`
/// preset's merging and the security options' parsing are all reached.
private let presets: DWPresets = {
    var presets = DWPresets()
    _ = presets.add("default=q:85/g:sm")
    _ = presets.add("thumb=rs:fill:64:64/q:70/ex:1")
    presets.allowSecurityOptions = true
    return presets
}()

/// imgproxy's documented example key and salt.
private let signer = DWURLSigner(
    keyHex: "943b421c9eb07c830af81030552c86009268de4e532ba2ee2eab8247c6da0881",
    saltHex: "520f986b998545b4785e0defbc4f3c1203f22de2374a3d53cb7a7fe9fea309c5")!

/// Sources small enough that any transform of them is quick: a 12 × 8 PNG with alpha, the same as a JPEG, a
/// two-frame 6 × 4 GIF, and a 64 × 48 HEIC with EXIF.
private let sources: [DWImage] = {
    let png = Data(base64Encoded: "iVBORw0KGgoAAAANSUhEUgAAAAwAAAAICAYAAADN5B7xAAAAJUlEQVR4nGNkYGD4L8LAxUAEbhRh4GJgYZDjYmBgIB6PaiAGAwDzKAcCRd/LEAAAAABJRU5ErkJggg==")!
    let gif = Data(base64Encoded: "R0lGODlhBgAEAIEAAP8AAAAAAAAAAAAAACH/C05FVFNDQVBFMi4wAwEAAAAh+QQABQAAACwAAAAABgAEAAAICwABCBxIsKDBgQEBACH5BAEFAAEALAAAAAAGAAQAgQD/AAAAAAAAAAAAAAgLAAEIHEiwoMGBAQEAOw==")!
    let still = try! DWImage(data: png, maxPixelCount: 1 << 20)
    let jpeg = try! DWConvert(format: .jpeg).process(still)
    let animated = try! DWImage(data: gif, maxPixelCount: 1 << 20)
    precondition(animated.frameCount == 2, "the GIF seed lost a frame")
    // A 64 × 48 HEIC with a 186-byte EXIF block (the processing tests' fixture): the metadata options' paths.
    let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/DWWebImageProcessingTests/Fixtures/q.heic")
    let heic = try! DWImage(data: try! Data(contentsOf: fixture), maxPixelCount: 1 << 20)
    return [still, jpeg, animated, heic]
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ start: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let start, size > 0, size <= 4096 else { return 0 }
    let target = String(decoding: UnsafeBufferPointer(start: start, count: size), as: UTF8.self)
    if target.hasPrefix("/info/") {
        fuzzInfo(String(target.dropFirst("/info".count)))
        return 0
    }
    if let (signature, path) = try? DWProxyURL.split(target: target) {
        _ = signer.isValid(signature: signature, for: path)
    }
    guard let url = try? DWProxyURL(target: target, presets: presets, now: 1_700_000_000) else { return 0 }
    _ = url.sourceHost
    let limits = server.configuration.resultLimits
    guard let plan = server.plan(for: url) else { return 0 }  // raw:1: the source's bytes, nothing rendered
    var plans = [plan]
    if size % 4 == 0, let gated = budgeted.plan(for: url, bucket: negotiated), gated.encodeGate != nil {
        plans.append(gated)
    }
    for plan in plans { render(plan, target: target, limits: limits) }
    return 0
}

/// `plan` rendered on each tiny source: the header checks refuse (the server's 4xx) before any decode; what renders
/// must fit the limits.
private func render(_ plan: DWVariantPlan, target: String, limits: DWResultLimits) {
    for source in sources {
        guard let result = try? plan.process(source) else { continue }
        precondition(
            result.pixelWidth <= limits.maxDimension && result.pixelHeight <= limits.maxDimension
                && result.pixelWidth * result.pixelHeight <= limits.maxPixels,
            "\(target) made a \(result.pixelWidth)×\(result.pixelHeight) result past the limits")
    }
}

/// `/info/…`: its options and source parsed as the server parses them, then the JSON answer (BlurHash, dominant and
/// average colours included) for each tiny source, which must be valid JSON.
private func fuzzInfo(_ inner: String) {
    guard let (signature, signedPath) = try? DWProxyURL.split(target: inner) else { return }
    _ = signer.isValid(signature: signature, for: signedPath)
    guard let (options, _) = try? DWImageServer.infoRequest(signature: signature, signedPath: signedPath) else {
        return
    }
    for source in sources {
        guard let json = try? DWImageServer.infoJSON(source, options) else { continue }
        precondition((try? JSONSerialization.jsonObject(with: json)) != nil, "/info\(inner) answered invalid JSON")
    }
}

