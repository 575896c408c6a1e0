// ProcessorParameterTests: a processor's parameters are checked when it is made (a documented precondition), so
// `process` fails only for the image. A precondition stops the process, so each bad value is made in a child run of
// this test bundle and the parent reads how the child ended.
import DWTestSupport
import DWWebImage
import DWWebImageProcessing
import Foundation
import XCTest

final class ProcessorParameterTests: XCTestCase {
    /// The environment variable naming the processor and value the probe makes (unset: a valid one of each).
    private static let probeVariable = "DW_PROCESSOR_PROBE"

    /// Each bad value stops the child at `init` with the processor's own message; the parent sees it crash.
    func testABadParameterStopsAtInitNotAtProcess() throws {
        let cases: [(probe: String, message: String)] = [
            ("blur:-1", "DWBlur needs 0 < sigma ≤ 1000 (got -1.0)"),
            ("round:-2", "DWRoundCorners needs a radius ≥ 0 (got -2.0)"),
            ("resize:0", "DWResize needs sides of 1…10000000 pixels (got 0xnil)"),
            ("crop:0", "DWCrop needs a width and height above 0 (got 0x4)"),
            ("quality:0", "DWConvert needs a quality of 1…100 (got 0)")
        ]
        for (probe, message) in cases {
            let (status, output) = try runProbe(probe)
            XCTAssertNotEqual(status, 0, "\(probe): the child must stop at init\n\(output)")
            XCTAssertTrue(output.contains(message), "\(probe): \(output)")
        }
    }

    /// What the child runs: makes the processor `DW_PROCESSOR_PROBE` names (a valid one of each when unset) and
    /// processes the fixture with it, which for a valid one succeeds.
    func testProbeMakesTheNamedProcessor() throws {
        let probe = ProcessInfo.processInfo.environment[Self.probeVariable]
        let (name, value) =
            probe.map { p in
                (String(p.prefix { $0 != ":" }), Double(p.drop { $0 != ":" }.dropFirst()) ?? 1)
            } ?? ("all", 1)
        var made: [any DWImageProcessor] = []
        if name == "blur" || name == "all" { made.append(DWBlur(sigma: value)) }
        if name == "round" || name == "all" { made.append(DWRoundCorners(radius: value)) }
        if name == "resize" || name == "all" { made.append(DWResize(width: Int(value), height: nil)) }
        if name == "crop" || name == "all" { made.append(DWCrop(x: 0, y: 0, width: Int(value), height: 4)) }
        if name == "quality" || name == "all" { made.append(DWConvert(format: .png, quality: Int(value))) }
        XCTAssertEqual(made.count, probe == nil ? 5 : 1)
        for processor in made {
            XCTAssertNoThrow(try processor.process(Fixtures.image("q.png")), processor.identifier)
        }
    }

    /// Runs `testProbeMakesTheNamedProcessor` in a child of this bundle with `probe`; its exit status and output.
    private func runProbe(_ probe: String) throws -> (Int32, String) {
        let test = "DWWebImageProcessingTests.ProcessorParameterTests/testProbeMakesTheNamedProcessor"
        let run = try ProcessRun.run(CommandLine.arguments[0], [test], environment: [Self.probeVariable: probe])
        return (run.status, run.output + run.errors)
    }
}
