// DWResizeMode: the one resize-mode enum (imgproxy's resizing types), shared by the CLI, the library and the server.
import DWWebImage

/// How a resize meets the target box: imgproxy's resizing types, by their imgproxy names.
public enum DWResizeMode: String, Sendable, Hashable, CaseIterable {
    /// Inside the box, keeping the aspect ratio (one side may be smaller).
    case fit
    /// Cover the box, keeping the aspect ratio, then crop to the box at the gravity.
    case fill
    /// As ``fill``, but when the image is smaller than the box the crop keeps the box's aspect ratio instead.
    case fillDown = "fill-down"
    /// Exactly the box, stretched (a side given as 0 keeps the source's).
    case force
    /// ``fill`` when the image and the box are both landscape or both portrait, ``fit`` otherwise.
    case auto
}
