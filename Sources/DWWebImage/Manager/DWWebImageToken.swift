// DWWebImageToken: one caller's handle on a request, for cancelling just that caller.
import Dispatch
import DWLocking

/// Identifies one call to ``DWWebImageManager/downloadImage(withURL:options:progress:completion:)``.
/// Cancelling it completes that caller with 10007; the transfer stops only when no caller is left.
public final class DWWebImageToken: Sendable, Hashable, CustomStringConvertible {
    /// The URL string the caller asked for.
    public let url: String
    /// The key its download is cached and coalesced under: the URL, the request's
    /// ``DWWebImageOptions/cacheKey(_:)``, or the URL through the manager's key filter.
    public let cacheKey: String
    let id: UInt64
    private let canceller: @Sendable (DWWebImageToken) -> Void
    private let reprioritize: @Sendable () -> Void
    private let level: DWLock<DWWebImagePriority>

    init(
        url: String, cacheKey: String? = nil, id: UInt64, priority: DWWebImagePriority,
        canceller: @escaping @Sendable (DWWebImageToken) -> Void,
        reprioritize: @escaping @Sendable () -> Void = {}
    ) {
        self.url = url
        self.cacheKey = cacheKey ?? url
        self.id = id
        self.canceller = canceller
        self.reprioritize = reprioritize
        self.level = DWLock(priority)
    }

    /// Same as `manager.cancel(self)`.
    public func cancel() { canceller(self) }

    /// This caller's priority. Raising or lowering it while the download waits takes effect at the next free
    /// slot; a download shared by several callers runs at the highest priority among them.
    public var priority: DWWebImagePriority {
        get { level.value }
        set {
            let changed = level.withLock { current -> Bool in
                defer { current = newValue }
                return current != newValue
            }
            if changed { reprioritize() }
        }
    }

    /// Tokens are equal when they are the same call.
    public static func == (lhs: DWWebImageToken, rhs: DWWebImageToken) -> Bool { lhs.id == rhs.id }
    /// Hashes the call's identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }
    /// `"DWWebImageToken#3(http://…)"`.
    public var description: String { "DWWebImageToken#\(id)(\(url))" }
}
