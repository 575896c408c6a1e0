#!/usr/bin/env python3
"""Pillow's side of bench/gif/run: for each file, Image.open, then seek(i) and convert("RGBA") for every frame.
Prints the same summary line as gifbench decode (decode time measured in-process, startup excluded)."""
import sys
import time

from PIL import Image


def main():
    files = sorted(sys.argv[1:])
    frames = pixels = check = 0
    start = time.monotonic()
    for path in files:
        with Image.open(path) as im:
            i = 0
            while True:
                try:
                    im.seek(i)
                except EOFError:
                    break
                rgba = im.convert("RGBA")
                frames += 1
                pixels += rgba.size[0] * rgba.size[1]
                check += rgba.getpixel((rgba.size[0] // 2, rgba.size[1] // 2))[0]
                i += 1
    seconds = time.monotonic() - start
    print("files=%d frames=%d pixels=%d seconds=%.6f check=%d" % (len(files), frames, pixels, seconds, check))


if __name__ == "__main__":
    main()
