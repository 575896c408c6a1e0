// The values that hold secrets print none of them, however they are interpolated or dumped.
import DWWebImage
@testable import DWWebImageServer
import XCTest

final class RedactionTests: XCTestCase {
    func testAnS3ConfigurationPrintsNoSecret() {
        let configuration = DWS3Configuration(
            endpoint: "http://127.0.0.1:9000", region: "eu-west-1",
            accessKeyID: "AKIAEXAMPLEKEYID", secretAccessKey: "wJalrXUtnFEMI-SECRET",
            sessionToken: "FwoGZXIvYXdzEXAMPLE-TOKEN")
        var dumped = ""
        dump(configuration, to: &dumped)
        for text in [
            "\(configuration)", String(describing: configuration), String(reflecting: configuration), dumped,
            "\([configuration])", "\(Optional(configuration) as Any)"
        ] {
            XCTAssertFalse(text.contains("SECRET"), text)
            XCTAssertFalse(text.contains("TOKEN"), text)
            XCTAssertTrue(text.contains("127.0.0.1:9000"), "what is not secret is still shown: \(text)")
        }
    }

    func testAURLSignerPrintsNoKeyOrSalt() throws {
        let signer = try XCTUnwrap(DWURLSigner(keyHex: "6b6579316b657931", saltHex: "73616c7431"))
        var dumped = ""
        dump(signer, to: &dumped)
        for text in ["\(signer)", String(reflecting: signer), dumped, "\([signer])"] {
            for secret in ["107, 101, 121", "115, 97, 108", "6b6579", "73616c"] {  // the bytes, decimal or hex
                XCTAssertFalse(text.contains(secret), text)
            }
        }
    }
}
