#!/usr/bin/env python3
"""Animated PNG and WebP files built chunk by chunk (frames smaller than the canvas at offsets, blend OVER with
alpha, dispose BACKGROUND and PREVIOUS), and their reference frames, for AnimatedFormatsTests.

usage: make_animations.py OUTDIR

For each NAME it writes NAME.png|NAME.webp, NAME.json ({width, height, frames, loop, delays_ms (Pillow's),
pillow_agrees: per frame, whether Pillow's frame is the browser reference's (±1)}), NAME.pillow.rgba (Pillow's
ImageSequence frames, RGBA, one after the other) and NAME.reference.rgba (the frames as browsers composite them:
APNG per the specification with Image.alpha_composite for OVER; WebP is Pillow's own, i.e. libwebp's
WebPAnimDecoder)."""
import io, json, struct, sys, zlib
from PIL import Image, ImageDraw, ImageSequence

W, H = 40, 30


def chunk(kind, body):
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def png_chunks(im, **params):
    out = io.BytesIO()
    im.save(out, "PNG", **params)
    data, pos, chunks = out.getvalue(), 8, []
    while pos < len(data):
        n = struct.unpack(">I", data[pos:pos + 4])[0]
        chunks.append((data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]))
        pos += 12 + n
    return chunks


def sprite(w, h, colour, alpha, hole=False, seed=0):
    im = Image.new("RGBA", (w, h), colour + (alpha,))
    d = ImageDraw.Draw(im)
    for i in range(0, w, 3):
        d.point((i, (i + seed) % h), fill=((i * 37) % 256, (i * 91 + seed) % 256, 120, max(alpha // 2, 1)))
    if hole:
        d.rectangle([1, 1, w // 2, h // 3], fill=(0, 0, 0, 0))
    return im


# (x, y, image, dispose, blend, delay_num, delay_den) — dispose 0 none 1 background 2 previous; blend 0 source 1 over
def apng_frames():
    base = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(base)
    d.rectangle([0, 0, W - 1, H // 2], fill=(250, 200, 40, 200))
    d.rectangle([0, H // 2 + 1, W // 2, H - 1], fill=(30, 90, 220, 255))
    return [
        (0, 0, base, 0, 0, 50, 1000),
        (5, 4, sprite(16, 12, (255, 0, 0), 128, seed=1), 1, 1, 7, 100),
        (20, 10, sprite(10, 10, (0, 200, 0), 255, hole=True, seed=2), 2, 1, 1, 10),
        (2, 18, sprite(12, 8, (0, 0, 255), 60, seed=3), 0, 0, 0, 0),
        (30, 20, sprite(8, 8, (255, 255, 0), 255, seed=4), 2, 1, 120, 1000),
        (9, 3, sprite(14, 9, (200, 0, 200), 90, hole=True, seed=5), 0, 1, 3, 100),
    ]


def reference_apng(frames):
    canvas, out, prev = Image.new("RGBA", (W, H), (0, 0, 0, 0)), [], None
    for i, (x, y, im, dispose, blend, _, _) in enumerate(frames):
        if prev is not None:
            px, py, pim, pdispose, saved = prev
            box = (px, py, px + pim.width, py + pim.height)
            if pdispose == 1 or (pdispose == 2 and saved is None):
                canvas.paste((0, 0, 0, 0), box)
            elif pdispose == 2:
                canvas.paste(saved, box)
        box = (x, y, x + im.width, y + im.height)
        saved = canvas.crop(box) if dispose == 2 and i > 0 else None
        canvas.paste(Image.alpha_composite(canvas.crop(box), im) if blend == 1 else im, box)
        out.append(canvas.copy())
        prev = (x, y, im, dispose, saved)
    return out


def write_apng(path, frames, mode, plays, hidden_default=False):
    """mode "RGBA", "LA" (grey with alpha) or "P" (one shared palette and tRNS)."""
    colours = {}
    if mode == "P":  # one exact palette for every frame: their distinct RGBA colours (fewer than 256)
        for f in frames:
            for c in f[2].getdata():
                colours.setdefault(c, len(colours))
        assert len(colours) <= 256, len(colours)
        rgb = [v for c in colours for v in c[:3]]
        alphas = bytes(c[3] for c in colours)

    def encoded(im):
        if mode == "P":
            q = Image.new("P", im.size)
            q.putpalette(rgb)
            q.putdata([colours[c] for c in im.getdata()])
            return im, png_chunks(q, transparency=alphas, bits=8)
        if mode == "LA":
            grey = im.convert("LA")
            return grey.convert("RGBA"), png_chunks(grey)
        return im, png_chunks(im)

    seq, body, decoded = 0, [], []
    first = encoded(frames[0][2])[1]
    ihdr = next(b for k, b in first if k == b"IHDR")
    shared = [(k, b) for k, b in first if k in (b"PLTE", b"tRNS")]
    body.append(chunk(b"IHDR", struct.pack(">II", W, H) + ihdr[8:]))
    body.append(chunk(b"acTL", struct.pack(">II", len(frames), plays)))
    body += [chunk(k, b) for k, b in shared]
    if hidden_default:
        # a default image browsers do not show: one palette colour over the whole canvas
        grey = encoded(Image.new("RGBA", (W, H), next(iter(colours)) if colours else (128, 128, 128, 255)))[1]
        body += [chunk(b"IDAT", b) for k, b in grey if k == b"IDAT"]
    for i, (x, y, im, dispose, blend, num, den) in enumerate(frames):
        exact, chunks = encoded(im)
        decoded.append((x, y, exact, dispose, blend, num, den))
        body.append(chunk(b"fcTL", struct.pack(">IIIIIHHBB", seq, im.width, im.height, x, y, num, den, dispose, blend)))
        seq += 1
        for k, b in chunks:
            if k != b"IDAT":
                continue
            if i == 0 and not hidden_default:
                body.append(chunk(b"IDAT", b))
            else:
                body.append(chunk(b"fdAT", struct.pack(">I", seq) + b))
                seq += 1
    body.append(chunk(b"IEND", b""))
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + b"".join(body))
    return decoded


def riff_chunk(kind, body):
    return kind + struct.pack("<I", len(body)) + body + (b"\0" if len(body) & 1 else b"")


def webp_payload(im):
    out = io.BytesIO()
    im.save(out, "WEBP", lossless=True, exact=True)
    data, pos, chunks = out.getvalue(), 12, b""
    while pos < len(data):
        kind, n = data[pos:pos + 4], struct.unpack("<I", data[pos + 4:pos + 8])[0]
        if kind in (b"VP8L", b"VP8 ", b"ALPH"):
            chunks += riff_chunk(kind, data[pos + 8:pos + 8 + n])
        pos += 8 + n + (n & 1)
    return chunks


def write_webp(path, frames, loop):
    """frames: (x, y, image, dispose_background, blend, duration_ms); x and y even."""
    body = riff_chunk(b"VP8X", struct.pack("<B3x", 0x12) + (W - 1).to_bytes(3, "little") + (H - 1).to_bytes(3, "little"))
    body += riff_chunk(b"ANIM", struct.pack("<IH", 0xFF00FF00, loop))
    for x, y, im, dispose, blend, ms in frames:
        flags = (0 if blend else 2) | (1 if dispose else 0)
        header = b"".join(v.to_bytes(3, "little") for v in (x // 2, y // 2, im.width - 1, im.height - 1, ms))
        body += riff_chunk(b"ANMF", header + bytes([flags]) + webp_payload(im))
    open(path, "wb").write(b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body)


def pillow_frames(path):
    im = Image.open(path)
    frames, delays = [], []
    hidden = im.info.get("default_image", False)  # Pillow shows an APNG's default image first; browsers do not
    for frame in ImageSequence.Iterator(im):
        frames.append(frame.convert("RGBA").copy())
        delays.append(frame.info.get("duration", 0))
    return im, frames[1:] if hidden else frames, delays[1:] if hidden else delays


def pillow_safe(frames):
    """The frames where Pillow 13 composites an APNG as the specification does: alpha 0 or 255 only (Pillow's OVER
    is a paste through the source's alpha, which also blends the alpha channel), and SOURCE for frames disposed
    to PREVIOUS (after an OVER frame Pillow's saved canvas is the composited one, so PREVIOUS restores nothing)."""
    out = []
    for x, y, im, dispose, blend, num, den in frames:
        r, g, b, a = im.split()
        out.append((x, y, Image.merge("RGBA", (r, g, b, a.point(lambda v: 255 if v >= 128 else 0))), dispose,
                    0 if dispose == 2 else blend, num, den))
    return out


def agrees(a, b):
    pa, pb = a.tobytes(), b.tobytes()
    for i in range(0, len(pa), 4):
        if pa[i + 3] == 0 and pb[i + 3] == 0:
            continue
        if any(abs(pa[i + c] - pb[i + c]) > 1 for c in range(4)):
            return False
    return True


def emit(out, name, path, reference):
    im, frames, delays = pillow_frames(path)
    reference = reference or frames
    facts = {"width": im.width, "height": im.height, "frames": len(frames), "loop": im.info.get("loop"),
             "delays_ms": [float(d) for d in delays],
             "pillow_agrees": [agrees(p, r) for p, r in zip(frames, reference)]}
    json.dump(facts, open(f"{out}/{name}.json", "w"))
    open(f"{out}/{name}.pillow.rgba", "wb").write(b"".join(f.tobytes() for f in frames))
    open(f"{out}/{name}.reference.rgba", "wb").write(b"".join(f.tobytes() for f in reference))


def main(out):
    frames = apng_frames()
    decoded = write_apng(f"{out}/apng_rgba.png", frames, "RGBA", plays=3)
    emit(out, "apng_rgba", f"{out}/apng_rgba.png", reference_apng(decoded))
    decoded = write_apng(f"{out}/apng_pillow.png", pillow_safe(frames), "RGBA", plays=1)
    emit(out, "apng_pillow", f"{out}/apng_pillow.png", reference_apng(decoded))
    decoded = write_apng(f"{out}/apng_palette.png", frames, "P", plays=0, hidden_default=True)
    emit(out, "apng_palette", f"{out}/apng_palette.png", reference_apng(decoded))
    decoded = write_apng(f"{out}/apng_grey.png", frames, "LA", plays=2)
    emit(out, "apng_grey", f"{out}/apng_grey.png", reference_apng(decoded))
    webp = [(0, 0, frames[0][2], False, False, 50), (6, 4, frames[1][2], True, True, 70),
            (20, 10, frames[2][2], False, True, 5), (2, 18, frames[3][2], True, False, 120),
            (30, 20, frames[4][2], False, True, 40), (8, 2, frames[5][2], False, True, 30)]
    write_webp(f"{out}/webp_anim.webp", webp, loop=2)
    emit(out, "webp_anim", f"{out}/webp_anim.webp", None)


if __name__ == "__main__":
    main(sys.argv[1])
