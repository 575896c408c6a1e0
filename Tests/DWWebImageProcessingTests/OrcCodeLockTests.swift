// OrcCodeLockTests: ORC 0.4.33 allocates and frees its JIT code memory without a lock, so transforms compiling and
// freeing libvips' vector programs at once corrupt its chunk list. CVips' OrcCodeLock serialises orc_program_compile
// and orc_program_free; the attack runs as a C program on ORC (Fixtures/orc_race.c), built with and without it.
import CVips
import DWTestSupport
@testable import DWWebImageProcessing
import Foundation
import XCTest

final class OrcCodeLockTests: XCTestCase {
    /// The ORC the attack programs build against (pkg-config's `orc-0.4`), as major × 10000 + minor × 100 + micro.
    private func orcVersion() throws -> Int {
        let parts = try Subprocess.output(["pkg-config", "--modversion", "orc-0.4"]).split(separator: ".")
            .compactMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return parts.count >= 3 ? parts[0] * 10000 + parts[1] * 100 + parts[2] : 0
    }

    func testCompilingAndFreeingOnEightThreadsKeepsORCsCodeMemoryWhole() throws {
        let programs = try CAttackPrograms()
        defer { programs.remove() }
        let race = CAttackPrograms.fixture("orc_race.c")
        if try orcVersion() < 434 {
            // The attack works on this ORC: without the lock its chunk list breaks within seconds.
            let plain = try ProcessRun.run(programs.build("plain", [race], packages: ["orc-0.4"]), ["20"], timeout: 60)
            XCTAssertTrue(plain.signalled || plain.status != 0, "ORC without the lock: \(plain.output)")
        }
        let locked = try ProcessRun.run(
            programs.build("locked", [race, CAttackPrograms.cvipsSource("OrcCodeLock.c")], packages: ["orc-0.4"]),
            ["6"], timeout: 60)
        XCTAssertFalse(locked.signalled, "with the lock: signal \(locked.status) \(locked.errors)")
        XCTAssertEqual(locked.status, 0, "with the lock: \(locked.output) \(locked.errors)")
        XCTAssertTrue(locked.output.contains("no fault"), locked.output)
    }

    func testLibvipsReachesORCThroughTheLock() throws {
        try Vips.start()
        // The products' binaries (this test's among them) define both functions, so the global scope libvips binds
        // in finds them before liborc's own.
        guard let orc = dlopen("liborc-0.4.so.0", RTLD_NOW | RTLD_NOLOAD) else {
            return XCTFail("liborc is not loaded with libvips")
        }
        defer { dlclose(orc) }
        for name in ["orc_program_compile", "orc_program_free"] {
            let global = dlsym(nil, name), own = dlsym(orc, name)  // nil: RTLD_DEFAULT
            XCTAssertNotNil(own, name)
            XCTAssertNotNil(global, name)
            XCTAssertNotEqual(global, own, "\(name): libvips would call liborc's own, without the lock")
        }
    }
}
