// DWWebImagePriority: the five levels the scheduler orders waiting downloads by.
import Foundation

/// How urgently a request is wanted. Waiting downloads start in priority order, newest first within a level;
/// a download shared by several callers runs at the highest priority among those still waiting for it.
public enum DWWebImagePriority: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Only when nothing else waits.
    case veryLow = -2
    /// Prefetching, speculative work (``DWWebImageOptions/lowPriority``).
    case low = -1
    /// The default.
    case normal = 0
    /// Someone is looking at it (``DWWebImageOptions/highPriority``).
    case high = 1
    /// Before everything else.
    case veryHigh = 2

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .veryLow: "veryLow"
        case .low: "low"
        case .normal: "normal"
        case .high: "high"
        case .veryHigh: "veryHigh"
        }
    }
}
