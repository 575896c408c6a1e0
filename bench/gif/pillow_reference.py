#!/usr/bin/env python3
"""Dev-only: Pillow's view of GIF fixtures, for DWWebImage's decoder tests and the benchmark's pixel check.

    python3 bench/gif/pillow_reference.py DIR         # one line per frame: file, frame, delay ms, FNV-1a 64 of RGBA
    python3 bench/gif/pillow_reference.py --crc DIR   # the same with CRC-32 (fast; used by bench/gif/run --verify)

Frames are `Image.open(f)`, `seek(i)`, `convert("RGBA")`; pixels whose alpha is 0 are normalised to (0, 0, 0, 0),
since browsers (and DWWebImage) leave no colour under a fully transparent pixel while Pillow keeps the palette
colour. The test fixtures come from `DW_GIF_DUMP=DIR swift test --filter GIFDecoderTests/testFramesMatchPillow`.
"""
import os
import sys
import zlib

import numpy as np
from PIL import Image


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h ^= b
        h = (h * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def frames(path):
    with Image.open(path) as im:
        for i in range(getattr(im, "n_frames", 1)):
            im.seek(i)
            rgba = np.asarray(im.convert("RGBA")).copy()
            rgba[rgba[:, :, 3] == 0] = 0
            yield i, im.info.get("duration", 0), rgba.tobytes(), im.size


def main():
    args = sys.argv[1:]
    crc = args and args[0] == "--crc"
    if crc:
        args = args[1:]
    directory = args[0]
    for name in sorted(os.listdir(directory)):
        if not name.endswith(".gif"):
            continue
        for i, duration, data, size in frames(os.path.join(directory, name)):
            digest = "%08x" % zlib.crc32(data) if crc else "0x%016x" % fnv1a64(data)
            print(name, i, duration, "%dx%d" % size, digest)


if __name__ == "__main__":
    main()
