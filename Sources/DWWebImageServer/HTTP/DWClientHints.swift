// DWClientHints: imgproxy's IMGPROXY_ENABLE_CLIENT_HINTS — the request's `Sec-CH-DPR`/`DPR` and
// `Sec-CH-Width`/`Width` headers as default `dpr` and `width` options, under the URL's own.
import DWWebImage
import Hummingbird
import HTTPTypes

/// A request's client hints, read as imgproxy reads them: the first of `Sec-CH-DPR` and `DPR` that parses as a number
/// above 0 and at most 8 is the default `dpr`; the first of `Sec-CH-Width` and `Width` that parses as an integer
/// above 0, divided by that `dpr` and rounded, the default `width` (the hint is in device pixels, `width` in CSS
/// pixels). They sit under the `default` preset and the URL's options, which override them. A plain value.
struct DWClientHints: Hashable, Sendable {
    /// imgproxy's `maxClientHintDPR`.
    static let maxDPR = 8.0
    /// The headers an answer varies by when hints are on, in imgproxy's order.
    static let vary = "Sec-CH-DPR, DPR, Sec-CH-Width, Width"

    /// The hinted device pixel ratio, nil when no header gives a usable one.
    var dpr: Double?
    /// The hinted width in device pixels, nil when no header gives a usable one.
    var width: Int?

    /// The hints `headers` carry.
    init(_ headers: HTTPFields) {
        for name in ["Sec-CH-DPR", "DPR"] {
            guard let text = HTTPField.Name(name).flatMap({ headers[$0] }), !text.isEmpty else { continue }
            if let value = Double(text), value > 0, value <= Self.maxDPR {
                dpr = value
                break
            }
        }
        for name in ["Sec-CH-Width", "Width"] {
            guard let text = HTTPField.Name(name).flatMap({ headers[$0] }), !text.isEmpty else { continue }
            if let value = Int(text), value > 0 {
                width = value
                break
            }
        }
    }

    /// The options a URL starts from: `dpr` and `width` (imgproxy's `imath.Shrink`: width / dpr, rounded).
    var defaults: DWImgproxyOptions {
        var options = DWImgproxyOptions()
        if let dpr { options.transform.dpr = dpr }
        if let width { options.transform.width = Int((Double(width) / (dpr ?? 1)).rounded()) }
        return options
    }

    /// What the hints add to a plan's memo key ("" for none).
    var key: String { "\(dpr.map { "\($0)" } ?? "")x\(width.map { "\($0)" } ?? "")" }
}

extension DWImageServer {
    /// The options a request's URL starts from: its client hints when `--enable-client-hints` is on, else none.
    func startingOptions(for request: Request) -> DWImgproxyOptions {
        configuration.imgproxy.clientHints ? DWClientHints(request.headers).defaults : DWImgproxyOptions()
    }

    /// What a request's plan depends on besides its target: `Accept`, and its client hints when they are on.
    func planKey(for request: Request) -> String? {
        let accept = request.headers[.accept]
        guard configuration.imgproxy.clientHints else { return accept }
        return "\(accept ?? "")\n\(DWClientHints(request.headers).key)"
    }
}
