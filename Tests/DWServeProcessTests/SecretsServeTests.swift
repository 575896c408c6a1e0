// Secrets and the built `dwfetch serve`: a key file others can read is warned about, and the unsigned warning says
// what makes a loopback listener public.
import Foundation
import XCTest

final class SecretsServeTests: ServeTestCase {
    private let pair = "6b6579316b6579316b6579316b6579316b6579316b6579316b6579316b657931:73616c7431"

    func testAKeyFileReadableByOthersIsWarnedAbout() throws {
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("dwserve-keys-\(UUID().uuidString)")
        try "\(pair)\n".write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        for mode in [0o644, 0o640, 0o604] {
            chmod(keyFile.path, mode_t(mode))
            let server = try serve(["--key-file", keyFile.path])
            XCTAssertTrue(
                server.stderr.contains("--key-file \(keyFile.path) is readable or writable by others"),
                "mode \(String(mode, radix: 8)): \(server.stderr)")
        }
        chmod(keyFile.path, 0o600)
        let quiet = try serve(["--key-file", keyFile.path])
        XCTAssertFalse(quiet.stderr.contains("writable by others"), quiet.stderr)
    }

    func testTheUnsignedWarningSaysAReverseProxyMakesItPublic() throws {
        let server = try serve()
        XCTAssertEqual(server.stderr.components(separatedBy: "no signature key").count - 1, 1, server.stderr)
        XCTAssertTrue(server.stderr.contains("a reverse proxy on this host"), server.stderr)
    }
}
