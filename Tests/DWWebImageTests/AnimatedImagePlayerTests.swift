// DWAnimatedImagePlayer driven by a manual clock: frame times, loop counts and overrides, pause/resume/stop,
// completion. No test waits on wall-clock time.
import DWLocking
import DWTestServer
import DWTestSupport
import Foundation
import XCTest

@testable import DWWebImage

/// A clock that only moves when the test says so; due actions run in deadline order.
final class ManualClock: DWAnimationClock {
    private struct State {
        var now: TimeInterval = 100
        var timers: [(deadline: TimeInterval, seq: Int, action: @Sendable () -> Void)] = []
        var seq = 0
    }
    private let state = DWLock(State())

    func now() -> TimeInterval { state.withLock { $0.now } }

    func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        state.withLock { s in
            s.seq += 1
            s.timers.append((deadline, s.seq, action))
        }
    }

    var pendingTimers: Int { state.withLock { $0.timers.count } }

    /// Moves time to `target`, firing every timer due on the way at its own deadline; `settle` runs after each
    /// (so work the timer started — and the timers it schedules — is finished before time moves on).
    func advance(to target: TimeInterval, settle: () -> Void) {
        while true {
            let next: (@Sendable () -> Void)? = state.withLock { s in
                guard
                    let i = s.timers.indices.min(by: {
                        (s.timers[$0].deadline, s.timers[$0].seq) < (s.timers[$1].deadline, s.timers[$1].seq)
                    }),
                    s.timers[i].deadline <= target + 1e-9
                else { return nil }
                let timer = s.timers.remove(at: i)
                s.now = max(s.now, timer.deadline)
                return timer.action
            }
            guard let next else { break }
            next()
            settle()
        }
        state.withLock { $0.now = max($0.now, target) }
        settle()
    }
}

final class AnimatedImagePlayerTests: XCTestCase {
    private struct Event: Equatable {
        var frame: Int?
        var ending: DWAnimatedImagePlayer.Ending?
        var time: TimeInterval
    }

    private final class Recorder: Sendable {
        let events = DWLock<[Event]>([])
        func frames() -> [Int] { events.value.compactMap(\.frame) }
    }

    /// Three frames: 100 ms, 200 ms, 50 ms (= 0.35 s a play).
    private func animation(loop: Int?, frames: Int = 3) throws -> DWAnimatedImage {
        var g = GIFBuilder(width: 4, height: 4, globalPalette: GIFFixtures.palette4, loop: loop)
        let delays = [10, 20, 5]
        for i in 0..<frames {
            g.frames.append(
                .init(
                    width: 4, height: 4, pixels: GIFFixtures.solid(4, 4, UInt8(i % 4)),
                    delayCentiseconds: delays[i % 3]))
        }
        return try DWAnimatedImage(data: g.encode(), bufferCount: 2)
    }

    private func start(_ player: DWAnimatedImagePlayer, clock: ManualClock) -> Recorder {
        let recorder = Recorder()
        player.play(
            frameHandler: { frame in
                recorder.events.withLock { $0.append(Event(frame: frame.index, time: clock.now())) }
            },
            completion: { ending in
                recorder.events.withLock { $0.append(Event(ending: ending, time: clock.now())) }
            })
        settle(player)
        return recorder
    }

    private func settle(_ player: DWAnimatedImagePlayer) {
        player.animationQueue.sync {}
        player.queue.sync {}
    }

    private func makePlayer(
        _ animation: DWAnimatedImage, _ loop: DWAnimatedImagePlayer.LoopMode,
        clock: ManualClock
    ) -> DWAnimatedImagePlayer {
        DWAnimatedImagePlayer(animation, loopMode: loop, queue: DispatchQueue(label: "player-test"), clock: clock)
    }

    func testFramesArriveAtTheirTimesAndCompletionFollowsTheLastPlay() throws {
        let clock = ManualClock()
        let player = makePlayer(try animation(loop: 2), .file, clock: clock)
        XCTAssertEqual(player.totalPlays, 2)
        let recorder = start(player, clock: clock)
        XCTAssertEqual(recorder.events.value, [Event(frame: 0, time: 100)], "the first frame at once")
        clock.advance(to: 100.099) { settle(player) }
        XCTAssertEqual(recorder.frames(), [0], "frame 1 is not due before 100 ms")
        clock.advance(to: 102) { settle(player) }
        let expected: [Event] = [
            .init(frame: 0, time: 100), .init(frame: 1, time: 100.1), .init(frame: 2, time: 100.3),
            .init(frame: 0, time: 100.35), .init(frame: 1, time: 100.45), .init(frame: 2, time: 100.65),
            .init(ending: .finished, time: 100.7)
        ]
        let events = recorder.events.value
        XCTAssertEqual(events.count, expected.count)
        for (got, want) in zip(events, expected) {
            XCTAssertEqual(got.frame, want.frame)
            XCTAssertEqual(got.ending, want.ending)
            XCTAssertEqual(got.time, want.time, accuracy: 1e-9)
        }
        XCTAssertEqual(player.phase, .ended(.finished))
        XCTAssertEqual(player.playsCompleted, 2)
        XCTAssertEqual(clock.pendingTimers, 0, "nothing scheduled after the end")
    }

    func testLoopModes() throws {
        func plays(_ loop: Int?, _ mode: DWAnimatedImagePlayer.LoopMode) throws -> Int {
            let clock = ManualClock()
            let player = makePlayer(try animation(loop: loop), mode, clock: clock)
            let recorder = start(player, clock: clock)
            clock.advance(to: 100 + 0.35 * 12) { settle(player) }
            let frames = recorder.frames()
            XCTAssertEqual(frames, Array((0..<frames.count).map { $0 % 3 }), "frames in order, wrapping")
            if player.phase == .playing {
                player.stop()
                settle(player)
                XCTAssertEqual(recorder.events.value.last?.ending, .stopped)
                return 0
            }
            XCTAssertEqual(recorder.events.value.last?.ending, .finished)
            return frames.count / 3
        }
        XCTAssertEqual(try plays(nil, .file), 1, "no NETSCAPE2.0: once")
        XCTAssertEqual(try plays(3, .file), 3)
        XCTAssertEqual(try plays(0, .file), 0, "NETSCAPE 0: forever")
        XCTAssertEqual(try plays(3, .browser), 4, "browsers: n repeats after the first play")
        XCTAssertEqual(try plays(nil, .browser), 1)
        XCTAssertEqual(try plays(0, .browser), 0)
        XCTAssertEqual(try plays(0, .count(2)), 2, "override beats the file")
        XCTAssertEqual(try plays(nil, .count(5)), 5)
        XCTAssertEqual(try plays(1, .forever), 0)
    }

    func testPauseResumeAndStop() throws {
        let clock = ManualClock()
        let player = makePlayer(try animation(loop: 0), .file, clock: clock)
        let recorder = start(player, clock: clock)
        clock.advance(to: 100.15) { settle(player) }  // frame 1 shown at 100.1, due until 100.3
        XCTAssertEqual(recorder.frames(), [0, 1])
        player.pause()
        XCTAssertEqual(player.phase, .paused)
        clock.advance(to: 200) { settle(player) }
        XCTAssertEqual(recorder.frames(), [0, 1], "nothing while paused")
        player.resume()
        clock.advance(to: 200.149) { settle(player) }
        XCTAssertEqual(recorder.frames(), [0, 1], "frame 1 keeps its remaining 150 ms")
        clock.advance(to: 200.15) { settle(player) }
        XCTAssertEqual(recorder.frames(), [0, 1, 2])
        XCTAssertEqual(recorder.events.value.last?.time ?? 0, 200.15, accuracy: 1e-9)
        player.stop()
        settle(player)
        clock.advance(to: 300) { settle(player) }
        XCTAssertEqual(recorder.frames(), [0, 1, 2], "no frame after stop")
        XCTAssertEqual(recorder.events.value.last?.ending, .stopped)
        XCTAssertEqual(player.phase, .ended(.stopped))
        player.resume()
        player.stop()
        settle(player)
        XCTAssertEqual(recorder.events.value.filter { $0.ending != nil }.count, 1, "completion exactly once")
    }

    func testRestartEndsTheEarlierRunAndSingleFrameFinishes() throws {
        let clock = ManualClock()
        let player = makePlayer(try animation(loop: 0), .file, clock: clock)
        let first = start(player, clock: clock)
        clock.advance(to: 100.1) { settle(player) }
        let second = start(player, clock: clock)
        XCTAssertEqual(first.events.value.last?.ending, .stopped)
        XCTAssertEqual(second.frames(), [0])
        clock.advance(to: 100.2) { settle(player) }
        XCTAssertEqual(second.frames(), [0, 1], "the new run has its own schedule (frame 1 at 100.2)")
        XCTAssertEqual(first.frames(), [0, 1], "the old run's handler is not called again")
        player.stop()
        settle(player)

        let still = makePlayer(try animation(loop: nil, frames: 1), .forever, clock: clock)
        XCTAssertEqual(still.totalPlays, 1)
        let recorder = start(still, clock: clock)
        clock.advance(to: clock.now() + 1) { settle(still) }
        XCTAssertEqual(recorder.frames(), [0])
        XCTAssertEqual(recorder.events.value.last?.ending, .finished)
    }

    /// A 60-frame animation played through a 5-frame buffer: every frame right, the buffer never over 5.
    func testPlaybackThroughASmallBuffer() throws {
        var g = GIFBuilder(width: 6, height: 6, globalPalette: GIFFixtures.palette8, loop: 2)
        for i in 0..<60 {
            g.frames.append(
                .init(
                    left: i % 4, top: i % 3, width: 3, height: 3, pixels: GIFFixtures.pattern(3, 3, colors: 8, seed: i),
                    delayCentiseconds: 2, disposal: i % 4, transparent: i % 2 == 0 ? 1 : nil))
        }
        let data = g.encode()
        let reference = try DWAnimatedImage(data: data, bufferCount: 0)
        var expected: [[UInt8]] = []
        reference.forEachFrame {
            expected.append($0.pixels); return true
        }
        let animation = try DWAnimatedImage(data: data, bufferCount: 5)
        let clock = ManualClock()
        let player = DWAnimatedImagePlayer(animation, queue: DispatchQueue(label: "t"), clock: clock)
        let pixels = DWLock<[[UInt8]]>([])
        player.play(frameHandler: { frame in pixels.withLock { $0.append(frame.pixels) } })
        settle(player)
        clock.advance(to: 100 + 0.02 * 120 + 1) { settle(player) }
        XCTAssertEqual(pixels.value.count, 120)
        XCTAssertEqual(pixels.value, expected + expected)
        XCTAssertLessThanOrEqual(animation.bufferedFrameCount, 5)
        XCTAssertEqual(player.phase, .ended(.finished))
    }

    /// The real clock end to end: order and completion only (no assertion depends on how long anything took).
    func testSystemClockPlaysToCompletion() throws {
        var g = GIFBuilder(width: 4, height: 4, globalPalette: GIFFixtures.palette4, loop: 2)
        for i in 0..<3 {
            g.frames.append(.init(width: 4, height: 4, pixels: GIFFixtures.solid(4, 4, UInt8(i)), delayCentiseconds: 2))
        }
        let player = DWAnimatedImagePlayer(try DWAnimatedImage(data: g.encode()), queue: DispatchQueue(label: "real"))
        let frames = DWLock<[Int]>([])
        let done = expectation(description: "finished")
        player.play(
            frameHandler: { frame in frames.withLock { $0.append(frame.index) } },
            completion: { ending in
                XCTAssertEqual(ending, .finished)
                done.fulfill()
            })
        wait(for: [done], timeout: 30)
        XCTAssertEqual(frames.value, [0, 1, 2, 0, 1, 2])
    }

    func testPlayerFromDWImage() throws {
        XCTAssertNil(DWAnimatedImagePlayer(image: try DWImage(data: SampleImages.png(width: 1, height: 1))))
        let image = try DWImage(data: GIFFixtures.loops(3))
        let player = try XCTUnwrap(
            DWAnimatedImagePlayer(
                image: image, loopMode: .browser, queue: DispatchQueue(label: "t"),
                clock: ManualClock()))
        XCTAssertEqual(player.totalPlays, 4)
        XCTAssertEqual(player.phase, .idle)
    }
}
