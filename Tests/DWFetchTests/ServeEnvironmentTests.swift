// ServeEnvironment in-process: imgproxy's variables to serve's flags, value syntax, the command line winning.
import ArgumentParser
import DWFetchCLI
import XCTest

final class ServeEnvironmentTests: XCTestCase {
    private func flags(_ environment: [String: String], _ arguments: [String] = []) throws -> [String] {
        try ServeEnvironment.translate(environment, arguments: arguments).flags
    }

    func testEachKindOfValue() throws {
        XCTAssertEqual(try flags(["IMGPROXY_BIND": ":8081"]), ["--host", "0.0.0.0", "--port", "8081"])
        XCTAssertEqual(try flags(["IMGPROXY_BIND": "[::1]:9000"]), ["--host", "::1", "--port", "9000"])
        XCTAssertEqual(try flags(["IMGPROXY_WORKERS": "3"]), ["--workers", "3"])
        XCTAssertEqual(try flags(["IMGPROXY_REQUESTS_QUEUE_SIZE": "5"]), ["--queue", "5", "--queue-full-status", "429"])
        XCTAssertEqual(
            try flags(["IMGPROXY_REQUESTS_QUEUE_SIZE": "0"]), [], "imgproxy's unbounded default: serve's bound")
        XCTAssertEqual(try flags(["IMGPROXY_MAX_SRC_RESOLUTION": "16.8"]), ["--max-pixels", "16800000"])
        XCTAssertEqual(
            try flags(["IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "2.5"]),
            ["--max-animation-frame-pixels", "2500000"])
        XCTAssertEqual(try flags(["IMGPROXY_MAX_ANIMATION_FRAME_RESOLUTION": "0"]), [])
        XCTAssertEqual(try flags(["IMGPROXY_TIMEOUT": "10"]), ["--request-timeout", "10.0"])
        XCTAssertEqual(try flags(["IMGPROXY_AUTO_WEBP": "True", "IMGPROXY_ENFORCE_AVIF": "0"]), ["--auto-webp"])
        XCTAssertEqual(try flags(["IMGPROXY_SANITIZE_SVG": "f"]), ["--no-sanitize-svg"])
        XCTAssertEqual(
            try flags(["IMGPROXY_PRESETS": "default=rs:fit:300:300, thumb=w:64"]),
            ["--preset", "default=rs:fit:300:300", "--preset", "thumb=w:64"])
        XCTAssertEqual(
            try flags(["IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES": "true"]),
            ["--allow-network", "127.0.0.0/8", "--allow-network", "::1/128"])
        XCTAssertEqual(
            try flags(["IMGPROXY_STRIP_METADATA": "true", "IMGPROXY_KEY": "aa", "IMGPROXY_USE_ETAG": "1"]), [],
            "imgproxy's default of a variable serve has no flag for is accepted; keys are read elsewhere")
        XCTAssertEqual(
            try ServeEnvironment.translate(["IMGPROXY_NOPE": "1"], arguments: []).warnings,
            ["unknown IMGPROXY_NOPE ignored"])
    }

    func testTheCommandLineWinsAndBadValuesNameTheVariable() throws {
        XCTAssertEqual(try flags(["IMGPROXY_TTL": "60", "IMGPROXY_WORKERS": "2"], ["--max-age=5"]), ["--workers", "2"])
        XCTAssertEqual(try flags(["IMGPROXY_PRESETS": "a=w:1"], ["--preset", "b=w:2"]), [])
        for (name, value) in [
            ("IMGPROXY_WORKERS", "0"), ("IMGPROXY_USE_S3", "yes"), ("IMGPROXY_MAX_SRC_FILE_SIZE", "0"),
            ("IMGPROXY_SIGNATURE_SIZE", "0"), ("IMGPROXY_URL_REPLACEMENTS", "a=b;c"),
            ("IMGPROXY_WATERMARK_DATA", "%%%"), ("IMGPROXY_USE_ETAG", "nope"),
            ("IMGPROXY_LOG_LEVEL", "loud")
        ] {
            XCTAssertThrowsError(try flags([name: value])) { error in
                XCTAssertEqual((error as? ServeEnvironment.Failure)?.variable, name)
            }
        }
    }

    func testAccessAndSourceVariablesBecomeTheirFlags() throws {
        XCTAssertEqual(
            try flags([
                "IMGPROXY_ALLOWED_SOURCES": "https://a/, https://*.b/", "IMGPROXY_SIGNATURE_SIZE": "8",
                "IMGPROXY_TRUSTED_SIGNATURES": "x,y", "IMGPROXY_SECRET": "token"
            ]),
            [
                "--allowed-source", "https://a/", "--allowed-source", "https://*.b/", "--signature-size", "8",
                "--trusted-signature", "x", "--trusted-signature", "y"
            ],
            "the secret never becomes an argument")
        XCTAssertEqual(
            try flags([
                "IMGPROXY_URL_REPLACEMENTS": "a://=https://a/;b://*/=https://${1}/;",
                "IMGPROXY_BASE_URL": "https://o/", "IMGPROXY_ENABLE_CLIENT_HINTS": "true"
            ]),
            [
                "--base-url", "https://o/", "--enable-client-hints", "--url-replacement", "a://=https://a/",
                "--url-replacement", "b://*/=https://${1}/"
            ])
    }

    func testURLOptionDefaultsTheResultDimensionAndTelemetryVariables() throws {
        XCTAssertEqual(
            try flags([
                "IMGPROXY_STRIP_METADATA": "false", "IMGPROXY_RETURN_ATTACHMENT": "true",
                "IMGPROXY_AUTO_ROTATE": "true", "IMGPROXY_ENFORCE_THUMBNAIL": "1"
            ]),
            ["--default-options", "eth:1", "--default-options", "att:1", "--default-options", "sm:0"],
            "imgproxy's default adds nothing; the other value is the URL option's default")
        XCTAssertEqual(try flags(["IMGPROXY_MAX_RESULT_DIMENSION": "0"]), [], "imgproxy's no-limit: serve's bound")
        XCTAssertEqual(try flags(["IMGPROXY_USE_ETAG": "false"]), ["--no-etag"], "imgproxy 3's default")
        XCTAssertEqual(try flags(["IMGPROXY_WATERMARK_OPACITY": "0.5"]), ["--watermark-opacity", "0.5"])
        XCTAssertThrowsError(try flags(["IMGPROXY_WATERMARK_OPACITY": "0"]))
        XCTAssertEqual(try flags(["IMGPROXY_QUALITY": "90"]), ["--quality", "90"])
        XCTAssertEqual(
            try flags(["IMGPROXY_ALLOWED_PROCESSING_OPTIONS": "w, h"]),
            ["--allowed-processing-option", "w", "--allowed-processing-option", "h"])
        XCTAssertEqual(try flags(["IMGPROXY_MAX_RESULT_DIMENSION": "2000"]), ["--max-result-dimension", "2000"])
        XCTAssertEqual(
            try flags([
                "IMGPROXY_OPEN_TELEMETRY_SERVICE_NAME": "img", "IMGPROXY_OPEN_TELEMETRY_PROTOCOL": "http",
                "IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS": "false"
            ]), [])
        for (name, value) in [
            ("IMGPROXY_OPEN_TELEMETRY_ENABLE_METRICS", "true"), ("IMGPROXY_QUALITY", "0"),
            ("IMGPROXY_OPEN_TELEMETRY_TRACE_ID_GENERATOR", "xray"), ("IMGPROXY_MAX_RESULT_DIMENSION", "-1"),
            ("IMGPROXY_KEEP_COPYRIGHT", "maybe")
        ] {
            XCTAssertThrowsError(try flags([name: value]), "\(name)=\(value)") { error in
                XCTAssertEqual((error as? ServeEnvironment.Failure)?.variable, name)
            }
        }
        let options = try ServeOptions.parse(try flags(["IMGPROXY_STRIP_METADATA": "0", "IMGPROXY_AUTO_ROTATE": "0"]))
        XCTAssertEqual(options.imgproxy.defaultOptions, ["ar:0", "sm:0"])
    }

    func testTheFlagsParseAsServeOptions() throws {
        let environment = [
            "IMGPROXY_BIND": "127.0.0.1:0", "IMGPROXY_WORKERS": "3", "IMGPROXY_MAX_CLIENTS": "99",
            "IMGPROXY_WRITE_RESPONSE_TIMEOUT": "4", "IMGPROXY_PROMETHEUS_BIND": "127.0.0.1:9999"
        ]
        let options = try ServeOptions.parse(try flags(environment))
        XCTAssertEqual(options.port, 0)
        XCTAssertEqual(options.security.workers, 3)
        XCTAssertEqual(options.security.maxConnections, 99)
        XCTAssertEqual(options.security.metricsBind, "127.0.0.1:9999")
        XCTAssertFalse(ServeEnvironment.helpLines.isEmpty)
    }
}
