// DWDeferredMetadataLogHandler: the pretty format's metadata is handed to swift-log's stream handler only for a line
// that is written, and every line still carries it.
import DWTestSupport
import Logging
import XCTest

@testable import DWWebImageServer

/// A handler that counts how often its metadata is set (StreamLogHandler formats it each time) and records lines.
private struct CountingHandler: LogHandler {
    let metadataSets = Recorder<Int>()
    let lines = Recorder<(String, Logger.Metadata)>()
    var logLevel: Logger.Level = .info
    var metadataProvider: Logger.MetadataProvider?
    var metadata: Logger.Metadata = [:] {
        didSet { metadataSets.append(metadata.count) }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) { lines.append(("\(event.message)", metadata)) }
}

final class DeferredMetadataLogHandlerTests: XCTestCase {
    func testMetadataIsHandedOverOnlyForALineWritten() {
        let base = CountingHandler()
        var logger = Logger(label: "t") { _ in DWDeferredMetadataLogHandler(base) }
        logger.logLevel = .warning
        XCTAssertEqual(base.metadataSets.values, [], "nothing handed over yet")
        for id in ["a", "b", "c"] {  // what Hummingbird does for every request
            var request = logger
            request[metadataKey: "hb.request.id"] = .string(id)
            request.info("not written at .warning")
            XCTAssertEqual(request[metadataKey: "hb.request.id"], .string(id))
        }
        XCTAssertEqual(base.metadataSets.values, [], "no line written, no metadata formatted")
        XCTAssertEqual(base.lines.values.count, 0)

        var request = logger
        request[metadataKey: "hb.request.id"] = "d"
        request[metadataKey: "route"] = "/**"
        request.warning("written")
        XCTAssertEqual(base.metadataSets.values, [2], "handed over once, for the line")
        XCTAssertEqual(base.lines.values.map(\.0), ["written"])
        XCTAssertEqual(base.lines.values.first?.1, ["hb.request.id": "d", "route": "/**"])
        logger.error("the first logger's line has none")
        XCTAssertEqual(base.lines.values.last?.1, [:])
    }

    func testLevelAndProviderAreTheWrappedHandlers() {
        var handler = DWDeferredMetadataLogHandler(CountingHandler())
        handler.logLevel = .debug
        XCTAssertEqual(handler.base.logLevel, .debug)
        handler.metadataProvider = Logger.MetadataProvider { ["p": "1"] }
        XCTAssertEqual(handler.base.metadataProvider?.get(), ["p": "1"])
    }

    func testThePrettyFormatDefersItsStreamHandlersMetadata() {
        let pretty = DWLogFormat.pretty.makeHandler(label: "t", metadataProvider: nil)
        XCTAssertTrue(pretty is DWDeferredMetadataLogHandler<StreamLogHandler>, "\(type(of: pretty))")
        XCTAssertTrue(DWLogFormat.json.makeHandler(label: "t", metadataProvider: nil) is DWLogHandler)
    }
}
