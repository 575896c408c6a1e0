// DWEncodeGate: an encode budget for the formats a request's Accept picked (a server's `--encode-budget`): the
// render asks before an expensive encode, and every encode reports what it cost.
import DWWebImage

/// What a ``DWVariantPlan`` asks before it encodes a result in a format the request's `Accept` picked
/// (``DWOutputRule/preferred(_:negotiated:)``, the URL naming no format), and what it tells after each encode.
/// A plain value of closures, called on the rendering thread; they must be quick and thread-safe.
public struct DWEncodeGate: Sendable {
    /// The formats the gate weighs (a server's AVIF and JPEG XL); any other encode is never asked about.
    public let formats: Set<DWImageFormat>
    /// Whether a result of this format and this many pixels may be encoded now, given the format the answer would
    /// be in instead (the next one `Accept` allows; nil: the preferred formats' choice); false makes the render
    /// throw ``deferral(_:)`` before it decodes anything. nil: every encode may run (the gate only learns).
    public let admits: (@Sendable (_ format: DWImageFormat, _ instead: DWImageFormat?, _ pixels: Int) -> Bool)?
    /// Told after each still result's encode (every format): the format written, its pixels and the encode's time.
    public let record: @Sendable (DWImageFormat, Int, Duration) -> Void
    /// Where a still result in one of ``formats`` is saved: nil (default) on the rendering thread; else in the encode
    /// helper at `SCHED_IDLE` (``DWIdleEncoder``), and this is told, on the rendering thread, the scheduling the
    /// helper ran under (`idle`, `nice` where SCHED_IDLE was refused, `normal` where both were).
    public let helperReport: (@Sendable (_ policy: String) -> Void)?

    /// A gate over `formats`.
    public init(
        formats: Set<DWImageFormat>, admits: (@Sendable (DWImageFormat, DWImageFormat?, Int) -> Bool)?,
        record: @escaping @Sendable (DWImageFormat, Int, Duration) -> Void,
        helperReport: (@Sendable (String) -> Void)? = nil
    ) {
        (self.formats, self.admits, self.record, self.helperReport) = (formats, admits, record, helperReport)
    }

    /// The same gate, learning only (every encode admitted): for the encode a deferral put off.
    public var learningOnly: DWEncodeGate {
        DWEncodeGate(formats: formats, admits: nil, record: record, helperReport: helperReport)
    }

    /// The same gate, saving its formats in the encode helper at `SCHED_IDLE` (``helperReport``), `report` told each
    /// helper's scheduling: for a put-off encode, so that it only takes CPU nothing else wants. The canvas is still
    /// drawn on the rendering thread; the time learned is the helper's saver's own: its wall time, or its CPU time
    /// when that is less (at SCHED_IDLE on a busy machine the wall time is mostly waiting).
    public func inIdleHelper(report: @escaping @Sendable (_ policy: String) -> Void) -> DWEncodeGate {
        DWEncodeGate(formats: formats, admits: admits, record: record, helperReport: report)
    }

    /// The error a render throws when ``admits`` refuses `format` (10005; its message names the format, and the
    /// error carries it for ``deferredFormat(_:)``).
    public static func deferral(_ format: DWImageFormat) -> DWWebImageError {
        var error = DWWebImageError(.tooLarge, "encode deferred over the budget: " + format.rawValue)
        error.deferredFormat = format
        return error
    }

    /// The format `error` put off, when it is a ``deferral(_:)``; nil for any other error.
    public static func deferredFormat(_ error: DWWebImageError) -> DWImageFormat? { error.deferredFormat }

    /// The encode's reporter while a gated plan renders (read by the encoder on the rendering thread). A class, not
    /// the closure itself: a task-local of an optional function type crashed release builds on a worker thread
    /// (`swift_task_localValuePush` read its type's value witnesses at address -8, a null type metadata).
    @TaskLocal static var recorder: Recorder?

    /// An encode's reporter (``record``), boxed for the task-local.
    final class Recorder: Sendable {
        let record: @Sendable (DWImageFormat, Int, Duration) -> Void
        /// The gate's formats and ``DWEncodeGate/helperReport``: the encodes saved in the helper.
        let formats: Set<DWImageFormat>
        let helperReport: (@Sendable (String) -> Void)?
        init(_ gate: DWEncodeGate) { (record, formats, helperReport) = (gate.record, gate.formats, gate.helperReport) }
    }
}

extension DWVariantPlan {
    /// The same plan (same ``identifier``: same cache key) with `output` for its output rule when given, and `gate`
    /// as its ``encodeGate``; a plan whose output rule changes gets the identifier of that rule.
    public func with(output: DWOutputRule? = nil, encodeGate gate: DWEncodeGate?) -> DWVariantPlan {
        copy(output: output ?? self.output, watermark: watermark, encodeGate: gate)
    }

    /// Throws ``DWEncodeGate/deferral(_:)`` when the gate refuses the format `source`'s result is negotiated to (a
    /// still result the `Accept` bucket gives a weighed format, the URL naming none), from the header's size
    /// (``DWTransform/resultSize(sourceWidth:sourceHeight:)``, either orientation: the larger).
    func checkEncodeGate(_ source: DWImage) throws(DWWebImageError) {
        guard let gate = encodeGate, let admits = gate.admits, transform.format == nil,
            case .preferred(_, let negotiated) = output,
            let format = DWPreferredFormats.negotiated(negotiated, for: source), gate.formats.contains(format)
        else { return }
        var pixels = 0
        for (width, height) in [(source.pixelWidth, source.pixelHeight), (source.pixelHeight, source.pixelWidth)] {
            let size = transform.resultSize(sourceWidth: width, sourceHeight: height)
            let (area, overflow) = size.width.multipliedReportingOverflow(by: size.height)
            pixels = max(pixels, overflow ? .max : area)
        }
        let instead = negotiated.drop { $0 != format }.dropFirst().first
        if !admits(format, instead, pixels) { throw DWEncodeGate.deferral(format) }
    }
}
