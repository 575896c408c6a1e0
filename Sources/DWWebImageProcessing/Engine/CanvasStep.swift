// CanvasStep: one step of the engine's work on a decoded canvas; consecutive steps share one decode and one encode.
import DWWebImage

/// A step that works on a ``Canvas`` in place: the engine's processors, and the steps a ``DWVariantPlan`` renders.
/// A step's parameters are checked when it is made; ``apply(to:)`` fails only for the image (10000 when it cannot be
/// decoded or written). Runs on the caller's thread.
protocol CanvasStep: Sendable {
    /// Changes `canvas` (decoding it first, unless the step can work from the encoded source).
    func apply(to canvas: inout Canvas) throws(DWWebImageError)
}

extension Engine {
    /// `chain` applied to `image`, each run of consecutive ``CanvasStep`` processors on one canvas (one decode, one
    /// encode); any other processor gets the encoded result of the steps before it. On the caller's thread.
    static func renderChain(_ chain: [any DWImageProcessor], from image: DWImage) throws(DWWebImageError) -> DWImage {
        var current = image
        var index = chain.startIndex
        while index < chain.endIndex {
            guard chain[index] is any CanvasStep else {
                current = try chain[index].process(current)
                index += 1
                continue
            }
            var steps: [any CanvasStep] = []
            while index < chain.endIndex, let step = chain[index] as? any CanvasStep {
                steps.append(step)
                index += 1
            }
            current = try process(current) { canvas throws(DWWebImageError) in
                for step in steps { try step.apply(to: &canvas) }
            }
        }
        return current
    }
}
