// DWFetchPhases: tells one caller when its source arrived and when its variant's transform ran — what a server's
// `downloading` and `processing` trace spans are made of, per request even when requests share the work.

/// Hears the phases of one ``DWWebImageManager/image(withURL:options:)`` call. Set it as ``current`` around the
/// call (`DWFetchPhases.$current.withValue(observer) { … }`); the manager keeps it with that caller, so callers that
/// join one download or one transform each hear of it. Called on the pipeline's threads (the lookup queue, the
/// engine thread, a transform's worker), never under the manager's lock; an observer must be thread-safe.
package protocol DWFetchPhaseObserver: Sendable {
    /// The source a variant is made from is here: downloaded (`.network`) or found in a cache tier. Not called when
    /// the variant itself was cached, nor for a call without processors (its answer is the source).
    func sourceArrived(_ source: DWImageSource)
    /// The variant's transform started for this caller (or this caller joined one already under way).
    func processingStarted()
    /// The variant's transform ended for this caller: nil on success, else its error.
    func processingEnded(_ error: DWWebImageError?)
}

/// Where ``DWFetchPhaseObserver``s are set.
package enum DWFetchPhases {
    /// The observer of the calls the running task makes (nil: none).
    @TaskLocal package static var current: (any DWFetchPhaseObserver)?
}

extension Result where Failure == DWWebImageError {
    /// The error, for ``DWFetchPhaseObserver/processingEnded(_:)``; nil on success.
    var phaseError: DWWebImageError? {
        guard case .failure(let error) = self else { return nil }
        return error
    }
}
