// DWAddressPolicy: which addresses the proxy may connect to — public unicast only, unless an allowed network says so.
import DWWebImage

/// The SSRF guard, applied to the address libcurl is about to connect to (every connection and every redirect:
/// ``DWWebImageManager/Configuration/connectionPolicy``), never to a DNS answer looked up beforehand.
///
/// Refused unless inside an ``allowedNetworks`` entry: loopback, unspecified, "this network" 0/8, RFC 1918,
/// link-local, CGNAT 100.64/10, IETF and documentation ranges, 6to4 relay anycast 192.88.99/24, benchmarking
/// 198.18/15, multicast, reserved 240/4 and broadcast; IPv6 loopback and unspecified, ULA fc00::/7, link-local
/// fe80::/10, site-local fec0::/10, multicast ff00::/8, documentation 2001:db8::/32 and 3fff::/20, Teredo 2001::/32,
/// discard 100::/64, every IPv4-mapped address ::ffff:0:0/96, the whole NAT64 prefixes 64:ff9b::/96 and
/// 64:ff9b:1::/48 (the translator reaches whatever IPv4 address follows), and the IPv4-embedded forms
/// (IPv4-compatible ::/96, 6to4 2002::/16) of any refused IPv4 address.
struct DWAddressPolicy: Sendable {
    /// Networks connected to even though they are refused by default (`--allow-network`).
    var allowedNetworks: [DWCIDR]

    /// A policy with these exceptions.
    init(allowedNetworks: [DWCIDR] = []) {
        self.allowedNetworks = allowedNetworks
    }

    /// Whether a connection to `address` (4 or 16 bytes, network order) may be opened.
    func allows(_ address: [UInt8]) -> Bool {
        if allowedNetworks.contains(where: { $0.contains(address) }) { return true }
        return !Self.isForbidden(address)
    }

    private static let forbiddenV4: [DWCIDR] = [
        "0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
        "192.0.0.0/24", "192.0.2.0/24", "192.88.99.0/24", "192.168.0.0/16", "198.18.0.0/15", "198.51.100.0/24",
        "203.0.113.0/24",
        "224.0.0.0/4", "240.0.0.0/4"
    ].map { DWCIDR($0)! }

    private static let forbiddenV6: [DWCIDR] = [
        "::/128", "::1/128", "::ffff:0:0/96", "100::/64", "2001::/32", "2001:db8::/32", "3fff::/20", "fc00::/7",
        "fe80::/10", "fec0::/10", "ff00::/8",
        // NAT64 (well-known and local-use): the gateway may translate to any IPv4 address, internal ones included.
        "64:ff9b::/96", "64:ff9b:1::/48"
    ].map { DWCIDR($0)! }

    /// IPv6 prefixes that carry an IPv4 address, and where its 4 bytes sit.
    private static let embeddingV4: [(DWCIDR, offset: Int)] = [
        (DWCIDR("::/96")!, 12), (DWCIDR("64:ff9b::/96")!, 12), (DWCIDR("64:ff9b:1::/48")!, 12),
        (DWCIDR("2002::/16")!, 2)
    ]

    /// Refused by default (ignoring any allowed network).
    static func isForbidden(_ address: [UInt8]) -> Bool {
        switch address.count {
        case 4:
            return forbiddenV4.contains { $0.contains(address) }
        case 16:
            if forbiddenV6.contains(where: { $0.contains(address) }) { return true }
            for (prefix, offset) in embeddingV4 where prefix.contains(address) {
                if isForbidden(Array(address[offset..<offset + 4])) { return true }
            }
            return false
        default:
            return true
        }
    }
}
