// The server's pure bounds: the address ranges the SSRF guard refuses, the result limits and the worker pool.
import DWImageTransform
import DWLocking
import DWTestSupport
import Foundation
import DWWebImage
@testable import DWWebImageServer
import XCTest

final class LimitsAndRangesTests: XCTestCase {
    private func address(_ text: String) throws -> [UInt8] {
        try XCTUnwrap(DWCIDR(text + (text.contains(":") ? "/128" : "/32"))).network
    }

    func testTheRangeGapsAreRefused() throws {
        // Teredo, the 6to4 relay anycast, the new documentation prefix, NAT64 to a *public* IPv4 address (the
        // translator could be an operator's, reaching internal space), the local-use NAT64 prefix.
        for refused in [
            "2001::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "192.88.99.1", "3fff::1", "3fff:fff::1",
            "64:ff9b::808:808", "64:ff9b:1::1"
        ] {
            XCTAssertTrue(DWAddressPolicy.isForbidden(try address(refused)), refused)
        }
        for allowed in ["8.8.8.8", "2606:4700::1111", "2001:4860::8888", "192.88.100.1"] {
            XCTAssertFalse(DWAddressPolicy.isForbidden(try address(allowed)), allowed)
        }
    }

    func testResultSizeFollowsTheResizeArithmetic() {
        func size(_ w: Int, _ h: Int, _ mode: DWResizeMode, _ tw: Int, _ th: Int, enlarge: Bool = false)
            -> [Int]
        {
            var options = DWTransform()
            (options.resizingType, options.width, options.height, options.enlarge) = (mode, tw, th, enlarge)
            let result = DWResultLimits.resultSize(sourceWidth: w, sourceHeight: h, options: options)
            return [result.width, result.height]
        }
        XCTAssertEqual(size(1000, 500, .fit, 100, 100), [100, 50])
        XCTAssertEqual(size(1000, 500, .fill, 100, 100), [100, 100])
        XCTAssertEqual(size(10, 5, .fit, 100, 0), [10, 5], "no enlarging without el")
        XCTAssertEqual(size(10, 5, .fit, 100, 0, enlarge: true), [100, 50])
        XCTAssertEqual(size(1, 1, .force, 16384, 16384, enlarge: true), [16384, 16384])
        XCTAssertEqual(size(1, 1, .force, 16384, 16384), [1, 1])
        XCTAssertEqual(size(64, 48, .fill, 100, 20), [64, 20])
    }

    func testResultLimitsRefuseFromTheHeaderAndCountFrames() {
        let limits = DWResultLimits()
        var enlarge = DWTransform()
        (enlarge.resizingType, enlarge.width, enlarge.height, enlarge.enlarge) = (.force, 16384, 16384, true)
        XCTAssertThrowsError(
            try limits.check(
                sourceWidth: 1, sourceHeight: 1, sourceFrames: 1, options: enlarge,
                keepsFrames: false)
        ) { error in
            XCTAssertEqual((error as? DWWebImageError)?.code, .tooLarge)
        }
        var square = DWTransform()
        // 16 MP: allowed
        (square.resizingType, square.width, square.height, square.enlarge) = (.force, 4000, 4000, true)
        XCTAssertNoThrow(
            try limits.check(
                sourceWidth: 8, sourceHeight: 8, sourceFrames: 600, options: square,
                keepsFrames: true), "one frame is processed by default")
        var many = limits
        many.maxAnimationFrames = 10
        XCTAssertThrowsError(
            try many.check(
                sourceWidth: 8, sourceHeight: 8, sourceFrames: 600, options: square,
                keepsFrames: true), "10 frames × 16 MP")
        var blur = DWTransform()
        blur.blur = 99.123
        XCTAssertEqual(DWResultLimits.clamped(blur).blur, DWResultLimits.maxBlurSigma)
        blur.blur = 2.345
        XCTAssertEqual(DWResultLimits.clamped(blur).blur, 2.35)
    }

    func testWorkerPoolRunsOldestFirstOnItsOwnThreadsAndRefusesBeyondTheQueue() async throws {
        let pool = DWWorkerPool(workers: 1, queue: 2)
        let release = DispatchSemaphore(value: 0)
        let order = DWLock<[String]>([])
        let threads = DWLock(Set<ObjectIdentifier>())
        let note = { @Sendable (name: String) in
            order.withLock { $0.append(name) }
            threads.withLock { _ = $0.insert(ObjectIdentifier(Thread.current)) }
        }
        XCTAssertTrue(
            pool.submit {
                note("holder")
                release.wait()
            })
        let held1 = await waitUntil(timeout: 10) { pool.load.running == 1 }
        XCTAssertTrue(held1)
        XCTAssertTrue(pool.submit { note("first") })
        XCTAssertTrue(pool.submit { note("second") })
        XCTAssertFalse(pool.submit { XCTFail("a third waiting block is over the queue") })
        do {
            _ = try await pool.run { () throws(DWWebImageError) -> Int in 1 }
            XCTFail("refused")
        } catch {
            XCTAssertTrue(error.isBusy, "\(error)")
        }
        release.signal()
        let held2 = await waitUntil(timeout: 10) { order.value.count == 3 && pool.load.running == 0 }
        XCTAssertTrue(held2)
        XCTAssertEqual(order.value, ["holder", "first", "second"])
        XCTAssertEqual(threads.value.count, 1, "one worker: every block on its one thread")
        XCTAssertEqual(pool.load.waiting, 0)
    }

    func testACancelledRunIsAnsweredAtOnceAndItsQueuedWorkSkipped() async throws {
        let pool = DWWorkerPool(workers: 1, queue: 1)
        let release = DispatchSemaphore(value: 0)
        XCTAssertTrue(pool.submit { release.wait() })
        let held3 = await waitUntil(timeout: 10) { pool.load.running == 1 }
        XCTAssertTrue(held3)
        let ran = DWLock(false)
        let waiter = Task {
            try await pool.run { () throws(DWWebImageError) -> Int in
                ran.withLock { $0 = true }; return 1
            }
        }
        let held4 = await waitUntil(timeout: 10) { pool.load.waiting == 1 }
        XCTAssertTrue(held4)
        waiter.cancel()
        do {
            _ = try await waiter.value
            XCTFail("cancelled while queued")
        } catch {
            XCTAssertEqual((error as? DWWebImageError)?.code, .cancelled)
        }
        release.signal()
        let held5 = await waitUntil(timeout: 10) { pool.load.running == 0 && pool.load.waiting == 0 }
        XCTAssertTrue(held5)
        XCTAssertFalse(ran.value, "the queued work of a cancelled caller is skipped")
    }
}
