// DWAnimatedImagePlayer: plays a DWAnimatedImage — each frame at its time, on a chosen queue, for the file's
// loop count or an override — the Linux counterpart of ImageX's AsAnimatable playback.
import DWLocking
import Foundation

/// A monotonic time source and timer for ``DWAnimatedImagePlayer``; inject one to drive playback in tests.
public protocol DWAnimationClock: Sendable {
    /// Monotonic time, in seconds.
    func now() -> TimeInterval
    /// Calls `action` once, on any thread, when ``now()`` reaches `deadline`.
    func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void)
}

/// The real clock: `DispatchTime` (monotonic) and `asyncAfter`.
public struct DWSystemAnimationClock: DWAnimationClock {
    /// Creates the system clock.
    public init() {}

    /// Seconds since boot (CLOCK_MONOTONIC through `DispatchTime`).
    public func now() -> TimeInterval { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

    /// Runs `action` on a global queue at `deadline`.
    public func schedule(at deadline: TimeInterval, _ action: @escaping @Sendable () -> Void) {
        let nanos = UInt64(max(0, deadline) * 1e9)
        DispatchQueue.global().asyncAfter(deadline: DispatchTime(uptimeNanoseconds: nanos), execute: action)
    }
}

/// Plays an animated image: calls a frame handler with each composited frame when it is due, on the queue you
/// choose, for as many plays as the loop mode says, then calls the completion handler.
///
/// Frames are decoded on a private serial queue, one frame ahead of time, through the image's bounded buffer.
/// Deadlines are absolute (start + sum of delays), so timing does not drift; after a stall (a busy machine, a slow
/// decode) the next frame is shown at once and the schedule restarts from there, without a burst of catch-up frames.
///
/// A single-frame image is shown once, and the player finishes after its delay.
///
/// Thread-safe: every method may be called from any thread. One lock (``state``) guards the playback state; it is
/// never held while decoding or while calling your handlers.
public final class DWAnimatedImagePlayer: Sendable {
    /// How many times to play the animation.
    public enum LoopMode: Sendable, Equatable {
        /// The image's ``DWAnimatedImage/loopCount``: GIF NETSCAPE2.0 value n → n plays, 0 → forever, no block →
        /// once (SDWebImage and ImageIO count this way); APNG `num_plays` and WebP loop count n → n plays.
        case file
        /// As browsers do: GIF NETSCAPE2.0 value n → n + 1 plays (n repeats after the first), 0 → forever, no
        /// block → once; APNG and WebP as ``file``.
        case browser
        /// Exactly `n` plays (ImageX's `.count(n)`); 0 or less means forever.
        case count(Int)
        /// Forever (ImageX's `.forever`).
        case forever
    }

    /// Why playback ended.
    public enum Ending: Sendable, Equatable {
        /// The last play ended (after the last frame's delay).
        case finished
        /// ``stop()`` was called (or ``play(frameHandler:completion:)`` again).
        case stopped
    }

    /// Where the player is.
    public enum Phase: Sendable, Equatable {
        /// Created, ``play(frameHandler:completion:)`` not called yet.
        case idle
        /// Frames are being delivered.
        case playing
        /// ``pause()`` was called; ``resume()`` continues where it stopped.
        case paused
        /// Ended (see ``Ending``).
        case ended(Ending)
    }

    /// The animation being played.
    public let animation: DWAnimatedImage
    /// The cache and key whose decoded tier keeps this player's frames; nil for an animation made by hand.
    private let decodedTier: (cache: DWWebImageCache, key: String)?
    /// The loop mode given at creation.
    public let loopMode: LoopMode
    /// Where frame and completion handlers run. Use a serial queue so frames arrive in order.
    public let queue: DispatchQueue
    private let clock: any DWAnimationClock
    /// Decoding and frame scheduling run here, one step at a time.
    let animationQueue = DispatchQueue(label: "DWAnimatedImagePlayer.animation")
    private let state = DWLock(State())

    private struct State {
        var phase: Phase = .idle
        /// Changes on play/stop: frames queued for delivery by an older run are dropped.
        var run = 0
        /// Changes on play/stop/pause/resume: timers scheduled before are ignored when they fire.
        var timer = 0
        /// The frame on screen and when it stops being due.
        var frameIndex = 0
        var deadline: TimeInterval = 0
        /// Time left on the current frame when paused.
        var remaining: TimeInterval = 0
        var playsDone = 0
        /// The next frame, decoded ahead of time.
        var pending: DWImageFrame?
        var frameHandler: (@Sendable (DWImageFrame) -> Void)?
        var completion: (@Sendable (Ending) -> Void)?
    }

    /// Creates a player.
    ///
    /// - Parameters:
    ///   - animation: the frames to play.
    ///   - loopMode: how many plays (default: the file's loop count).
    ///   - queue: where handlers are called; default a serial queue the player owns (a CLI or server on Linux often
    ///     never drains the main queue). Pass `.main` for the Apple-platform convention.
    ///   - clock: the time source (inject one in tests).
    public convenience init(
        _ animation: DWAnimatedImage, loopMode: LoopMode = .file, queue: DispatchQueue? = nil,
        clock: any DWAnimationClock = DWSystemAnimationClock()
    ) {
        self.init(animation, loopMode: loopMode, queue: queue, clock: clock, decodedTier: nil)
    }

    /// The designated initialiser; `decodedTier`: where decoded frames are kept (see ``frame(at:)``).
    init(
        _ animation: DWAnimatedImage, loopMode: LoopMode, queue: DispatchQueue?, clock: any DWAnimationClock,
        decodedTier: (cache: DWWebImageCache, key: String)?
    ) {
        self.decodedTier = decodedTier
        self.animation = animation
        self.loopMode = loopMode
        self.queue = queue ?? DispatchQueue(label: "DWWebImage.player", qos: .userInitiated)
        self.clock = clock
    }

    /// A player for an animated `image` (GIF; WebP and APNG once their decoder is registered; nil otherwise), with a
    /// buffer of `bufferCount` decoded frames. For an image the manager delivered, complete frames are kept in its
    /// cache's decoded tier (under the request's cache key and the frame's index): a later play, or another player of
    /// the same image, does not decode them again while they stay there.
    public convenience init?(
        image: DWImage, loopMode: LoopMode = .file, queue: DispatchQueue? = nil,
        clock: any DWAnimationClock = DWSystemAnimationClock(),
        bufferCount: Int = DWAnimatedImage.defaultBufferCount
    ) {
        guard let animation = image.animatedImage(bufferCount: bufferCount) else { return nil }
        self.init(animation, loopMode: loopMode, queue: queue, clock: clock, decodedTier: image.decodedTier)
    }

    /// Number of plays this player performs: 0 = forever.
    public var totalPlays: Int {
        if animation.frameCount <= 1 { return 1 }
        switch loopMode {
        case .file: return animation.loopCount
        case .browser: return animation.browserPlayCount
        case .count(let n): return max(0, n)
        case .forever: return 0
        }
    }

    /// Where the player is now.
    public var phase: Phase { state.withLock { $0.phase } }
    /// The index of the frame delivered last.
    public var currentFrameIndex: Int { state.withLock { $0.frameIndex } }
    /// Plays completed so far.
    public var playsCompleted: Int { state.withLock { $0.playsDone } }

    /// Starts playing from the first frame, which is delivered at once. Calling it again restarts (the earlier run
    /// ends with ``Ending/stopped``).
    ///
    /// - Parameters:
    ///   - frameHandler: called on ``queue`` with each frame when it is due.
    ///   - completion: called on ``queue`` once, when the last play ends or the player is stopped.
    public func play(
        frameHandler: @escaping @Sendable (DWImageFrame) -> Void,
        completion: (@Sendable (Ending) -> Void)? = nil
    ) {
        let (run, previous) = state.withLock { s -> (Int, (@Sendable (Ending) -> Void)?) in
            let previous = s.phase == .playing || s.phase == .paused ? s.completion : nil
            s = State(phase: .playing, run: s.run + 1, timer: s.timer + 1)
            s.frameHandler = frameHandler
            s.completion = completion
            return (s.run, previous)
        }
        if let previous { queue.async { previous(.stopped) } }
        animationQueue.async { self.begin(run: run) }
    }

    /// Stops delivering frames until ``resume()``; the frame on screen keeps the rest of its time.
    public func pause() {
        state.withLock { s in
            guard s.phase == .playing else { return }
            s.phase = .paused
            s.remaining = max(0, s.deadline - clock.now())
            s.timer += 1
        }
    }

    /// Continues after ``pause()``: the next frame comes when the paused frame's remaining time has passed.
    public func resume() {
        let timer: (Int, TimeInterval)? = state.withLock { s in
            guard s.phase == .paused else { return nil }
            s.phase = .playing
            s.deadline = clock.now() + s.remaining
            s.timer += 1
            return (s.timer, s.deadline)
        }
        if let (token, deadline) = timer { schedule(token, at: deadline) }
    }

    /// Ends playback: no frame handler is called after this returns (except one already running), and the
    /// completion handler is called with ``Ending/stopped``. Does nothing once ended.
    public func stop() {
        let completion = state.withLock { s -> (@Sendable (Ending) -> Void)? in
            guard s.phase == .playing || s.phase == .paused || s.phase == .idle else { return nil }
            let completion = s.completion
            s.phase = .ended(.stopped)
            s.run += 1
            s.timer += 1
            s.pending = nil
            s.frameHandler = nil
            s.completion = nil
            return completion
        }
        if let completion { queue.async { completion(.stopped) } }
    }

    // MARK: - Playing (runs on `animationQueue`)

    private func begin(run: Int) {
        let frame = self.frame(at: 0)
        typealias Start = (handler: (@Sendable (DWImageFrame) -> Void)?, timer: (Int, TimeInterval)?)
        let start: Start? = state.withLock { s in
            guard s.run == run, s.phase == .playing || s.phase == .paused else { return nil }
            s.frameIndex = 0
            s.deadline = clock.now() + frame.delay
            if s.phase == .paused { s.remaining = frame.delay }
            return (s.frameHandler, s.phase == .playing ? (s.timer, s.deadline) : nil)
        }
        guard let start else { return }
        deliver(frame, run: run, to: start.handler)
        if let (token, deadline) = start.timer { schedule(token, at: deadline) }
        decodeAhead(run: run)
    }

    /// The timer for the frame on screen fired: show the next frame, or finish.
    private func tick(_ token: Int) {
        enum Step {
            case show(Int, DWImageFrame?, Int, (@Sendable (DWImageFrame) -> Void)?)
            case finish((@Sendable (Ending) -> Void)?)
            case none
        }
        let plays = totalPlays, count = animation.frameCount
        let step: Step = state.withLock { s in
            guard s.timer == token, s.phase == .playing else { return .none }
            var next = s.frameIndex + 1
            if next >= count {
                s.playsDone += 1
                if plays != 0 && s.playsDone >= plays {
                    s.phase = .ended(.finished)
                    s.timer += 1
                    let completion = s.completion
                    s.completion = nil
                    s.frameHandler = nil  // frames already queued were given their handler when queued
                    s.pending = nil
                    return .finish(completion)
                }
                next = 0
            }
            let ready = s.pending?.index == next ? s.pending : nil
            s.pending = nil
            return .show(next, ready, s.run, s.frameHandler)
        }
        switch step {
        case .none:
            return
        case .finish(let completion):
            if let completion { queue.async { completion(.finished) } }
        case .show(let next, let ready, let run, let handler):
            let frame = ready ?? self.frame(at: next)
            let timer: (Int, TimeInterval)? = state.withLock { s in
                guard s.timer == token, s.phase == .playing else { return nil }
                s.frameIndex = next
                // Absolute schedule; after a stall, restart it from now instead of bursting.
                s.deadline = max(s.deadline + frame.delay, clock.now())
                return (s.timer, s.deadline)
            }
            guard let (newToken, deadline) = timer else { return }
            deliver(frame, run: run, to: handler)
            schedule(newToken, at: deadline)
            decodeAhead(run: run)
        }
    }

    /// Decodes the frame after the one on screen, unless the current play is the last and it is the last frame.
    private func decodeAhead(run: Int) {
        let plays = totalPlays, count = animation.frameCount
        let target: Int? = state.withLock { s in
            guard s.run == run, s.phase == .playing || s.phase == .paused else { return nil }
            let next = s.frameIndex + 1
            if next < count { return next }
            if count > 1, plays == 0 || s.playsDone + 1 < plays { return 0 }
            return nil
        }
        guard let target else { return }
        let frame = self.frame(at: target)
        state.withLock { s in
            if s.run == run, (s.frameIndex + 1) % count == target { s.pending = frame }
        }
    }

    /// Frame `index`: from the decoded tier when it holds it, else decoded (and kept there when complete). Engine
    /// queue.
    private func frame(at index: Int) -> DWImageFrame {
        guard let (cache, key) = decodedTier else { return animation.frame(at: index) }
        let frameKey = Self.frameKey(key, index)
        if let kept = cache.lookUpDecodedBitmap(forKey: frameKey), kept.width == animation.width,
            kept.height == animation.height
        {
            return DWImageFrame(
                index: index, width: kept.width, height: kept.height, pixels: [UInt8](kept.pixels),
                delay: animation.frameDelays[index], isComplete: true)
        }
        let frame = animation.frame(at: index)
        if frame.isComplete { cache.storeDecodedBitmap(frame.bitmap, forKey: frameKey) }
        return frame
    }

    /// The decoded tier's key of frame `index` of the image cached under `key` (a unit separator no URL holds).
    static func frameKey(_ key: String, _ index: Int) -> String { key + "\u{1F}frame \(index)" }

    private func schedule(_ token: Int, at deadline: TimeInterval) {
        clock.schedule(at: deadline) { [weak self] in
            guard let self else { return }
            self.animationQueue.async { self.tick(token) }
        }
    }

    /// Calls `handler` on ``queue`` unless the run has been stopped or restarted by then.
    private func deliver(_ frame: DWImageFrame, run: Int, to handler: (@Sendable (DWImageFrame) -> Void)?) {
        guard let handler else { return }
        queue.async { [weak self] in
            guard let self, self.state.withLock({ $0.run == run }) else { return }
            handler(frame)
        }
    }
}
