// DWEngineProcessor: the engine's processors — a chain of them is rendered on one canvas (one decode, one encode).
import DWWebImage

/// A processor of this engine. A chain that starts with one is rendered by ``Engine`` on one canvas: consecutive
/// engine steps share one decode and one encode (a conversion after a resize only changes how the resize's pixels
/// are written). Any processor may follow; it gets the encoded result of the steps before it.
public protocol DWEngineProcessor: DWChainRendering {}

extension DWEngineProcessor {
    /// `chain` rendered as the protocol says; on the caller's thread.
    public func render(_ chain: [any DWImageProcessor], from image: DWImage) throws(DWWebImageError) -> DWImage {
        try Engine.renderChain(chain, from: image)
    }
}

extension DWResize: DWEngineProcessor, CanvasStep {}
extension DWCrop: DWEngineProcessor, CanvasStep {}
extension DWBlur: DWEngineProcessor, CanvasStep {}
extension DWGrayscale: DWEngineProcessor, CanvasStep {}
extension DWTint: DWEngineProcessor, CanvasStep {}
extension DWRoundCorners: DWEngineProcessor, CanvasStep {}
extension DWConvert: DWEngineProcessor, CanvasStep {}
