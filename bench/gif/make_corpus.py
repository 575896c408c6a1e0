#!/usr/bin/env python3
"""Writes a deterministic corpus of animated GIFs with Pillow: bench/gif/make_corpus.py OUT_DIR [COUNT]

Mixed sizes (128×128 to 480×270, 30 to 100 frames) and kinds: moving shapes over a gradient with a global palette
(Pillow then stores changed sub-rects), quantised RGB scenes (a local palette per frame), noisy video-like frames
(hard LZW), transparent sprites with disposal 2, and interlaced frames.
"""
import os
import random
import sys

from PIL import Image, ImageDraw

SHAPES = [
    (200, 200, 60), (320, 240, 40), (480, 270, 100), (128, 128, 30), (400, 300, 50),
    (256, 256, 64), (480, 270, 60), (300, 200, 80), (160, 120, 90), (360, 360, 40),
]
KINDS = ["palette", "quantized", "noisy", "sprite", "interlaced"]


def gradient(w, h, seed):
    img = Image.new("RGB", (w, h))
    px = img.load()
    for y in range(h):
        for x in range(w):
            px[x, y] = ((x * 255 // w + seed * 17) % 256, (y * 255 // h + seed * 31) % 256, ((x + y) * 3 + seed) % 256)
    return img


def make(path, index):
    rnd = random.Random(index)
    w, h, n = SHAPES[index % len(SHAPES)]
    kind = KINDS[index % len(KINDS)]
    base = gradient(w, h, index)
    frames, durations, disposal = [], [], []
    shapes = [(rnd.randrange(w), rnd.randrange(h), rnd.randrange(8, max(9, w // 4)),
               rnd.choice([-6, -4, -2, 2, 4, 6]), rnd.choice([-5, -3, 3, 5]),
               (rnd.randrange(256), rnd.randrange(256), rnd.randrange(256))) for _ in range(6)]
    palette_base = base.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    for f in range(n):
        scene = base.copy() if kind != "sprite" else Image.new("RGB", (w, h), (0, 0, 0))
        draw = ImageDraw.Draw(scene)
        for (x, y, r, dx, dy, color) in shapes:
            cx, cy = (x + dx * f) % w, (y + dy * f) % h
            draw.ellipse([cx - r, cy - r, cx + r, cy + r], fill=color)
            draw.rectangle([cx - r // 2, cy - r // 3, cx + r // 2, cy + r // 3], fill=color[::-1])
        if kind == "noisy":
            noise = Image.effect_noise((w, h // 3), 40 + f % 20).convert("RGB")
            scene.paste(noise, (0, (f * 7) % (h - h // 3)))
        if kind == "quantized" or kind == "noisy":
            frame = scene.quantize(colors=(64, 128, 256)[f % 3], method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        else:
            frame = scene.quantize(palette=palette_base, dither=Image.Dither.NONE)
        frames.append(frame)
        durations.append(rnd.choice([20, 30, 40, 50, 70, 100]))
        disposal.append(2 if kind == "sprite" else 1)
    opts = dict(save_all=True, append_images=frames[1:], duration=durations, loop=0, disposal=disposal)
    if kind == "sprite":
        opts["transparency"] = 0
    if kind == "interlaced":
        opts["interlace"] = True
    if kind in ("quantized", "noisy"):
        # Pillow 13's optimiser can write indices past a frame's shrunken local palette for these; such files
        # decode differently everywhere (browsers: black), so keep them out of a pixel-exact comparison.
        opts["optimize"] = False
    frames[0].save(path, **opts)
    return w, h, n, kind


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    os.makedirs(out, exist_ok=True)
    for i in range(count):
        path = os.path.join(out, "anim%02d.gif" % i)
        if os.path.exists(path):
            continue
        w, h, n, kind = make(path, i)
        print("%s %dx%d %d frames %s %d bytes" % (os.path.basename(path), w, h, n, kind, os.path.getsize(path)))


if __name__ == "__main__":
    main()
