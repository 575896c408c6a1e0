// DWCIDR: an IPv4 or IPv6 network ("10.0.0.0/8", "::1/128", a bare address = one host).
import Foundation

/// A network in CIDR notation. IPv4 and IPv6 are separate families: "127.0.0.1/32" does not contain the
/// IPv4-mapped "::ffff:127.0.0.1" (a mapped address is allowed only by an IPv6 network that holds it).
public struct DWCIDR: Sendable, Equatable, CustomStringConvertible {
    /// The network's address bytes (4 or 16), host bits cleared.
    public let network: [UInt8]
    /// The prefix length in bits.
    public let prefixLength: Int

    /// Parses "a.b.c.d/n", "x:y::z/n" or a bare address; nil when malformed.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = Self.parseIP(String(parts[0])) else { return nil }
        let bits = address.count * 8
        var length = bits
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0...bits).contains(n) else { return nil }
            length = n
        }
        self.init(address: address, prefixLength: length)
    }

    /// A network from raw bytes (4 or 16) and a prefix length.
    public init(address: [UInt8], prefixLength: Int) {
        self.prefixLength = prefixLength
        self.network = address.enumerated().map { index, byte in
            let kept = max(0, min(8, prefixLength - index * 8))
            return kept == 8 ? byte : byte & ~(UInt8(0xFF) >> kept)
        }
    }

    /// Whether `address` (4 or 16 bytes) lies inside this network.
    public func contains(_ address: [UInt8]) -> Bool {
        guard address.count == network.count else { return false }
        return DWCIDR(address: address, prefixLength: prefixLength).network == network
    }

    /// "10.0.0.0/8".
    public var description: String {
        var buffer = [CChar](repeating: 0, count: 64)
        _ = inet_ntop(network.count == 4 ? AF_INET : AF_INET6, network, &buffer, socklen_t(buffer.count))
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            + "/\(prefixLength)"
    }

    /// A numeric IPv4 (dotted quad only) or IPv6 address; nil otherwise.
    static func parseIP(_ text: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return withUnsafeBytes(of: &v4) { Array($0) } }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 { return withUnsafeBytes(of: &v6) { Array($0) } }
        return nil
    }
}
