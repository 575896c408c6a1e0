// The tests' one python runner (DWTestSupport's Python): what it hands back, and that a missing interpreter, module
// or program is an error the test fails on, never a skip.
import DWTestSupport
import Foundation
import XCTest

final class PythonRunnerTests: XCTestCase {
    func testAScriptsOutputAndItsArguments() throws {
        XCTAssertEqual(
            try Python.system.script("import sys; print(sys.argv[1:])", arguments: ["a", "b c"]),
            "['a', 'b c']")
        XCTAssertFalse(try Python.system.script("import PIL; print(PIL.__version__)").isEmpty, "Pillow is there")
    }

    func testAMissingModuleInterpreterOrProgramThrows() {
        XCTAssertThrowsError(try Python.system.script("import dw_no_such_module")) { error in
            let failure = error as? SubprocessFailure
            XCTAssertEqual(failure?.status, 1, "\(error)")
            XCTAssertTrue(failure?.message.contains("ModuleNotFoundError") == true, "\(error)")
        }
        let nowhere = FileManager.default.temporaryDirectory.appendingPathComponent("dw-no-venv-\(UUID().uuidString)")
        XCTAssertThrowsError(try Python.venv(nowhere).script("print(1)")) { error in
            XCTAssertTrue("\(error)".contains(nowhere.appendingPathComponent("bin/python").path), "\(error)")
        }
        XCTAssertThrowsError(try Subprocess.output(["dw-no-such-program-\(UUID().uuidString)"])) { error in
            XCTAssertNotEqual((error as? SubprocessFailure)?.status, 0, "\(error)")
        }
    }
}
