#!/usr/bin/env python3
"""Renders a `tmux capture-pane -e -p` text (SGR colours) into a PNG, for the preview screenshot in docs/dwfetch.md (docs/preview.png).

Usage: docs/capture-to-png.py capture.txt out.png [first_line last_line]
Block elements (U+2580-U+259F) are drawn as exact rectangles; other text with DejaVu Sans Mono.
Needs Pillow (python3-pil).
"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

CW, CH = 8, 16
FG, BG = (204, 204, 204), (24, 24, 24)
PALETTE16 = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
             (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]

# Eighths: (x0, y0, x1, y1) in eighths of the cell, for U+2580..U+2590 and the quadrants.
BLOCKS = {0x2580: [(0, 0, 8, 4)], 0x2588: [(0, 0, 8, 8)], 0x2590: [(4, 0, 8, 8)], 0x2594: [(0, 0, 8, 1)], 0x2595: [(7, 0, 8, 8)]}
for i in range(1, 9):
    BLOCKS[0x2580 + i] = [(0, 8 - i, 8, 8)]          # lower i eighths
for i in range(1, 8):
    BLOCKS[0x2590 - i] = [(0, 0, i, 8)]              # left i eighths (258F = 1/8 … 2589 = 7/8)
Q = {"UL": (0, 0, 4, 4), "UR": (4, 0, 8, 4), "LL": (0, 4, 4, 8), "LR": (4, 4, 8, 8)}
for code, parts in {0x2596: ["LL"], 0x2597: ["LR"], 0x2598: ["UL"], 0x2599: ["UL", "LL", "LR"], 0x259A: ["UL", "LR"],
                    0x259B: ["UL", "UR", "LL"], 0x259C: ["UL", "UR", "LR"], 0x259D: ["UR"], 0x259E: ["UR", "LL"],
                    0x259F: ["UR", "LL", "LR"]}.items():
    BLOCKS[code] = [Q[p] for p in parts]


def parse(lines):
    rows = []
    for line in lines:
        fg, bg, inverse, cells, i = None, None, False, [], 0
        while i < len(line):
            m = re.match(r"\x1b\[([0-9;]*)m", line[i:])
            if m:
                nums = [int(n) if n else 0 for n in m.group(1).split(";")] if m.group(1) else [0]
                k = 0
                while k < len(nums):
                    n = nums[k]
                    if n == 0: fg, bg, inverse = None, None, False
                    elif n == 7: inverse = True
                    elif n == 27: inverse = False
                    elif n in (38, 48) and k + 1 < len(nums) and nums[k + 1] == 2:
                        c = tuple(nums[k + 2:k + 5]); k += 4
                        if n == 38: fg = c
                        else: bg = c
                    elif n in (38, 48) and k + 1 < len(nums) and nums[k + 1] == 5:
                        k += 2
                    elif n == 39: fg = None
                    elif n == 49: bg = None
                    elif 30 <= n <= 37: fg = PALETTE16[n - 30]
                    elif 90 <= n <= 97: fg = PALETTE16[n - 82]
                    elif 40 <= n <= 47: bg = PALETTE16[n - 40]
                    k += 1
                i += m.end()
                continue
            f, b = (fg or FG), (bg or BG)
            if inverse: f, b = (bg or BG), (fg or FG)
            cells.append((line[i], f, b))
            i += 1
        rows.append(cells)
    return rows


def main():
    text = open(sys.argv[1], encoding="utf-8").read().split("\n")
    if len(sys.argv) > 4: text = text[int(sys.argv[3]):int(sys.argv[4])]
    rows = parse(text)
    width = max(len(r) for r in rows)
    img = Image.new("RGB", (width * CW + 16, len(rows) * CH + 16), BG)
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf", 13)
    for y, row in enumerate(rows):
        for x, (ch, f, b) in enumerate(row):
            x0, y0 = 8 + x * CW, 8 + y * CH
            draw.rectangle([x0, y0, x0 + CW - 1, y0 + CH - 1], fill=b)
            code = ord(ch)
            if code in BLOCKS:
                for (a, c, d, e) in BLOCKS[code]:
                    draw.rectangle([x0 + a * CW // 8, y0 + c * CH // 8, x0 + d * CW // 8 - 1, y0 + e * CH // 8 - 1], fill=f)
            elif ch != " ":
                draw.text((x0, y0 + 1), ch, font=font, fill=f)
    img = img.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    img.save(sys.argv[2], optimize=True)


main()
