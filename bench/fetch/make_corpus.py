#!/usr/bin/env python3
"""Deterministic benchmark corpus for bench/run (fetch part).

    make_corpus.py DIR [--count N] [--big K]

DIR/small/imgNNNNN.{jpg,png,gif}: N small images, 5-80 KB, log-normal sizes (mean ~26 KB), noisy content so
they compress like photos rather than flat colour. Image i depends only on (SEED, i), so the first 200 of a
2,000-image corpus are the same files a 200-image corpus has; files already there are kept (only missing ones
are made, each written to a temporary name and renamed, so an interrupted run never leaves a half file).

DIR/big/bigK.bmp: K files of exactly 64 MiB of pixel data: a valid 4096x4096 32-bit BMP header (16.7 MP, under
dwfetch's 64 MP default) followed by filler.

Prints one summary line: count, total bytes, mean, min, max, and the format mix.
"""
import argparse
import math
import os
import random
import struct
import sys

import numpy as np
from PIL import Image

SEED = 20261122
MIN_BYTES = 5 * 1024 + 256
MAX_BYTES = 80 * 1024 - 256
BIG_SIDE = 4096  # 4096 x 4096 x 4 bytes = 64 MiB of pixels


def target_size(rng: random.Random) -> int:
    # log-normal around 24 KB; clipped to 5-80 KB the mean is ~26 KB.
    while True:
        t = int(math.exp(rng.gauss(math.log(24 * 1024), 0.55)))
        if MIN_BYTES <= t <= MAX_BYTES:
            return t


def pick_format(rng: random.Random) -> str:
    r = rng.random()
    return "jpg" if r < 0.45 else ("png" if r < 0.85 else "gif")


def render(fmt: str, w: int, h: int, seed: int) -> bytes:
    """A smooth gradient with per-pixel noise: compressible like a photo, not like a flat fill."""
    nrng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w].astype(np.float32)
    c = nrng.uniform(0, 1, size=(3, 3)).astype(np.float32)
    base = np.stack([
        128 + 100 * np.sin(x / (w / (1 + 3 * c[i, 0])) + y / (h / (1 + 3 * c[i, 1])) + 6 * c[i, 2])
        for i in range(3)
    ], axis=-1)
    noise = nrng.normal(0, 22, size=(h, w, 3)).astype(np.float32)
    pixels = np.clip(base + noise, 0, 255).astype(np.uint8)
    img = Image.fromarray(pixels, "RGB")
    from io import BytesIO
    buf = BytesIO()
    if fmt == "jpg":
        img.save(buf, "JPEG", quality=85)
    elif fmt == "png":
        img.save(buf, "PNG", compress_level=6)
    else:
        img.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(buf, "GIF")
    return buf.getvalue()


def make_small(i: int) -> tuple[str, bytes]:
    rng = random.Random(SEED * 1_000_003 + i)
    fmt = pick_format(rng)
    target = target_size(rng)
    aspect = rng.uniform(0.6, 1.6)
    bpp = {"jpg": 1.2, "png": 2.4, "gif": 0.8}[fmt]  # first guess of bytes per pixel, corrected below
    data = b""
    for attempt in range(6):
        pixels = max(64, target / bpp)
        w = max(8, int(math.sqrt(pixels * aspect)))
        h = max(8, int(pixels / w))
        data = render(fmt, w, h, SEED + i * 7 + attempt)
        got = len(data)
        if abs(got - target) <= target * 0.06 and MIN_BYTES <= got <= MAX_BYTES:
            break
        bpp = got / (w * h)
    if not (5 * 1024 <= len(data) <= 80 * 1024):
        raise SystemExit(f"img{i:05d}.{fmt}: {len(data)} bytes is outside 5-80 KB")
    return f"img{i:05d}.{fmt}", data


def write_atomic(path: str, chunks) -> None:
    tmp = path + ".part"
    with open(tmp, "wb") as f:
        for c in chunks:
            f.write(c)
    os.replace(tmp, path)


def big_bmp_chunks(k: int):
    pixel_bytes = BIG_SIDE * BIG_SIDE * 4
    header_size = 14 + 40
    yield struct.pack("<2sIHHI", b"BM", header_size + pixel_bytes, 0, 0, header_size)
    # BITMAPINFOHEADER: width, height (positive = bottom-up), 1 plane, 32 bpp, BI_RGB, image size, 2835 px/m.
    yield struct.pack("<IiiHHIIiiII", 40, BIG_SIDE, BIG_SIDE, 1, 32, 0, pixel_bytes, 2835, 2835, 0, 0)
    row = np.random.default_rng(SEED + 9_000_000 + k).integers(0, 256, size=BIG_SIDE * 4 * 64, dtype=np.uint8).tobytes()
    left = pixel_bytes
    while left:
        n = min(left, len(row))
        yield row[:n]
        left -= n


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("dir")
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--big", type=int, default=2)
    a = ap.parse_args()

    small = os.path.join(a.dir, "small")
    big = os.path.join(a.dir, "big")
    os.makedirs(small, exist_ok=True)
    os.makedirs(big, exist_ok=True)

    existing = {n.split(".")[0]: n for n in os.listdir(small) if not n.endswith(".part")}
    names = []
    made = 0
    for i in range(a.count):
        stem = f"img{i:05d}"
        if stem in existing:
            names.append(existing[stem])
            continue
        name, data = make_small(i)
        write_atomic(os.path.join(small, name), [data])
        names.append(name)
        made += 1

    for k in range(a.big):
        path = os.path.join(big, f"big{k}.bmp")
        if not (os.path.exists(path) and os.path.getsize(path) == 54 + BIG_SIDE * BIG_SIDE * 4):
            write_atomic(path, big_bmp_chunks(k))
            made += 1

    sizes = [os.path.getsize(os.path.join(small, n)) for n in names]
    mix = {}
    for n in names:
        ext = n.rsplit(".", 1)[1]
        mix[ext] = mix.get(ext, 0) + 1
    total = sum(sizes)
    print(f"corpus: {len(names)} images ({made} new), {total} bytes, mean {total / len(names) / 1024:.1f} KB, "
          f"min {min(sizes) / 1024:.1f} KB, max {max(sizes) / 1024:.1f} KB, "
          + ", ".join(f"{v} {k}" for k, v in sorted(mix.items()))
          + f"; {a.big} x 64 MiB BMP")
    return 0


if __name__ == "__main__":
    sys.exit(main())
