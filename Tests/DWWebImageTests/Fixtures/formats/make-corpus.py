#!/usr/bin/env python3
"""Writes the generated half of the format corpus next to this script (the real-world half is copied in; see
README.md here). Needs Pillow (bench/ensure-python-deps installs it). Deterministic: run it again and the files
are byte-identical, so a diff shows a real change. Each file is small (< 4 KiB) except the copied icon."""
import io
import os
import struct
import zlib

from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def solid(w, h, mode="RGBA", color=(200, 30, 30, 255)):
    return Image.new(mode, (w, h), color)


def png_bytes(im):
    buf = io.BytesIO()
    im.save(buf, "PNG", optimize=False)
    return buf.getvalue()


def ico_container(kind, entries):
    """kind 1 = ICO, 2 = CUR; entries: (dir_w, dir_h, field1, field2, payload)."""
    header = struct.pack("<HHH", 0, kind, len(entries))
    offset = 6 + 16 * len(entries)
    directory, blobs = b"", b""
    for w, h, f1, f2, payload in entries:
        directory += struct.pack("<BBBBHHII", w & 0xFF, h & 0xFF, 0, 0, f1, f2, len(payload), offset + len(blobs))
        blobs += payload
    return header + directory + blobs


def dib(w, h):
    """A 32-bit BITMAPINFOHEADER bitmap as ICO/CUR store it: doubled height (XOR + AND mask), no file header."""
    header = struct.pack("<IiiHHIIiiII", 40, w, h * 2, 1, 32, 0, 0, 0, 0, 0, 0)
    xor = bytes([30, 30, 200, 255]) * (w * h)
    mask_row = ((w + 31) // 32) * 4
    return header + xor + bytes(mask_row * h)


# ICO: PNG entries of three sizes (Pillow's own writer).
buf = io.BytesIO()
solid(48, 48).save(buf, "ICO", sizes=[(16, 16), (32, 32), (48, 48)])
write("ico-png-entries.ico", buf.getvalue())

# ICO: BMP entries, largest not first.
write("ico-bmp-entries.ico", ico_container(1, [(16, 16, 1, 32, dib(16, 16)), (40, 24, 1, 32, dib(40, 24)),
                                                (24, 24, 1, 32, dib(24, 24))]))

# ICO: a PNG entry bigger than 256 (the directory says 0 × 0, meaning 256; the PNG's own header says 300 × 280).
write("ico-png-300.ico", ico_container(1, [(16, 16, 1, 32, dib(16, 16)),
                                            (0, 0, 1, 32, png_bytes(solid(300, 280, "L", 90)))]))

# CUR: BMP entries with hotspots where an icon has planes and depth.
write("cur-bmp.cur", ico_container(2, [(32, 32, 5, 7, dib(32, 32)), (16, 16, 2, 3, dib(16, 16))]))

# Broken ICO: directory says 3 entries, the file ends inside it; no entries; the largest entry points past the end.
good = ico_container(1, [(16, 16, 1, 32, dib(16, 16))])
write("ico-broken-directory.ico", struct.pack("<HHH", 0, 1, 3) + good[6:22])
write("ico-broken-empty.ico", struct.pack("<HHH", 0, 1, 0) + bytes(16))
outside = bytearray(ico_container(1, [(16, 16, 1, 32, dib(16, 16)), (32, 32, 1, 32, dib(32, 32))]))
struct.pack_into("<I", outside, 6 + 16 + 12, 60000)
write("ico-broken-entry-outside.ico", bytes(outside))

# BigTIFF, little-endian, from Pillow; and a hand-made big-endian one (8-bit grey, uncompressed, 3 × 2).
buf = io.BytesIO()
solid(37, 21, "RGB", (10, 20, 30)).save(buf, "TIFF", big_tiff=True)
write("bigtiff-le.tif", buf.getvalue())


def bigtiff_be(w, h, ifd_offset=None):
    pixels = bytes(range(w * h))
    entries = [(256, 3, 1, w), (257, 3, 1, h), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
               (273, 16, 1, 0), (277, 3, 1, 1), (278, 3, 1, h), (279, 16, 1, len(pixels))]
    ifd = 16
    data_offset = ifd + 8 + 20 * len(entries) + 8
    out = b"MM" + struct.pack(">HHHQ", 43, 8, 0, ifd if ifd_offset is None else ifd_offset)
    out += struct.pack(">Q", len(entries))
    for tag, typ, count, value in entries:
        if tag == 273:
            value = data_offset
        if typ == 3:
            out += struct.pack(">HHQH6x", tag, typ, count, value)
        else:
            out += struct.pack(">HHQQ", tag, typ, count, value)
    out += struct.pack(">Q", 0)
    return out + pixels


write("bigtiff-be.tif", bigtiff_be(3, 2))
write("bigtiff-broken-ifd-outside.tif", bigtiff_be(3, 2, ifd_offset=1 << 40))

# JPEG: a baseline file, then junk where libjpeg skips it (warning "extraneous bytes before marker") and where it
# does not (before SOI), FF 00 pairs (not markers), and structures libjpeg refuses.
buf = io.BytesIO()
solid(40, 30, "RGB", (1, 2, 3)).save(buf, "JPEG", quality=80)
jpeg = buf.getvalue()
app0_end = 4 + struct.unpack(">H", jpeg[4:6])[0]
write("jpeg-junk-after-soi.jpg", jpeg[:2] + b"\x00\x00garbage" + jpeg[2:])
write("jpeg-junk-inside-header.jpg", jpeg[:app0_end] + b"\x12\x34\xff\x00\x56" + jpeg[app0_end:])
write("jpeg-broken-junk-before-soi.jpg", b"\x00\x00\x00" + jpeg)
write("jpeg-broken-no-frame.jpg", jpeg[:app0_end] + b"\xff\xd9")
sof = jpeg.index(b"\xff\xc0")
write("jpeg-broken-truncated-header.jpg", jpeg[:sof + 6])

# GIF: three different frames, then the tails browsers live with after complete frames.
frames = [solid(20, 10, "RGB", (60 * i, 0, 0)) for i in range(3)]
buf = io.BytesIO()
frames[0].save(buf, "GIF", save_all=True, append_images=frames[1:], loop=0, duration=100)
gif = buf.getvalue()
assert gif.endswith(b";")
write("gif-tail-garbage.gif", gif[:-1] + b"\x00\x13garbage")
write("gif-tail-missing.gif", gif[:-1])
write("gif-tail-truncated-extension.gif", gif[:-1] + b"\x21\xf9\x04\x00")
third = gif.rindex(b"\x2c\x00\x00\x00\x00")  # the last image descriptor
write("gif-tail-truncated-frame.gif", gif[:third + 14])
write("gif-broken-no-frame.gif", gif[:gif.index(b"\x2c\x00\x00\x00\x00") + 5])
# A damaged descriptor after complete frames: a 65535 × 65535 rect whose data ends with the file (libnsgif counts
# the begun frame; giflib's complete frames are 3), a code size giflib refuses, a local colour table cut short.
write("gif-tail-damaged-descriptor.gif", gif[:-1] + b"\x2c\x00\x00\x00\x00\xff\xff\xff\xff\x00\x08\x05abcde")
write("gif-tail-bad-code-size.gif", gif[:-1] + b"\x2c\x00\x00\x00\x00\x14\x00\x0a\x00\x00\x0c\x05abcde\x00;")
write("gif-tail-truncated-colour-table.gif", gif[:-1] + b"\x2c\x00\x00\x00\x00\x14\x00\x0a\x00\x87\x00\x00")

# GIF: a later frame cut short (half of its image data arrived). Pillow and libnsgif count it, browsers show its rows
# that arrived; a first frame cut short is still refused (no complete frame).
striped = []
for i in range(3):  # 48 × 32, a colour per pixel: frame 2's image data spans several 255-byte sub-blocks
    im = Image.new("RGB", (48, 32))
    im.putdata([((y * 8 + i * 60) % 256, (x * 5) % 256, (i * 90 + x * y) % 256) for y in range(32) for x in range(48)])
    striped.append(im)
buf = io.BytesIO()
striped[0].save(buf, "GIF", save_all=True, append_images=striped[1:], loop=0, duration=100)
gif = buf.getvalue()
third = gif.rindex(b"\x2c\x00\x00\x00\x00")
data = third + 10 + ((3 << ((gif[third + 9] & 7) + 1)) if gif[third + 9] & 0x80 else 0)  # after its colour table
write("gif-later-frame-cut.gif", gif[:data + (len(gif) - data) // 2])

# TIFF that libvips 8.14's tiffload refuses and libtiff's RGBA reader reads (as Pillow does): tiled with separate
# planes (tiffcp from libtiff-tools), and old-style JPEG (compression 6: a JFIF stream from Pillow, wrapped in an
# IFD here, since no tool writes it any more). 12-bit samples: neither libtiff's RGBA reader nor Pillow reads them.
import subprocess
import tempfile

gradient = Image.new("RGB", (40, 24))
gradient.putdata([(x * 6, y * 10, (x + y) * 4) for y in range(24) for x in range(40)])
with tempfile.TemporaryDirectory() as tmp:
    source = os.path.join(tmp, "in.tif")
    gradient.save(source)
    subprocess.run(["tiffcp", "-t", "-w", "16", "-l", "16", "-p", "separate", source,
                    os.path.join(HERE, "tiff-tiled-separate.tif")], check=True)


def classic_tiff(entries, data):
    """A little-endian TIFF: `data` at byte 8, one IFD after it; entries (tag, type, count, value); a value that is
    bytes is stored after the IFD and the entry points at it."""
    ifd = 8 + len(data) + (len(data) & 1)
    extra_at = ifd + 2 + 12 * len(entries) + 4
    body, extra = struct.pack("<H", len(entries)), b""
    for tag, typ, count, value in sorted(entries):
        if isinstance(value, bytes):
            body += struct.pack("<HHII", tag, typ, count, extra_at + len(extra))
            extra += value
        elif typ == 3 and count == 1:
            body += struct.pack("<HHIHH", tag, typ, count, value, 0)
        else:
            body += struct.pack("<HHII", tag, typ, count, value)
    return b"II*\x00" + struct.pack("<I", ifd) + data + b"\x00" * (len(data) & 1) + body + b"\x00" * 4 + extra


buf = io.BytesIO()
gradient.save(buf, "JPEG", quality=90)  # 4:2:0, as old-style JPEG TIFFs carry YCbCr
jfif = buf.getvalue()
write("tiff-old-jpeg.tif", classic_tiff([
    (256, 3, 1, 40), (257, 3, 1, 24), (258, 3, 3, struct.pack("<HHH", 8, 8, 8)), (259, 3, 1, 6), (262, 3, 1, 6),
    (273, 4, 1, 8), (277, 3, 1, 3), (278, 3, 1, 24), (279, 4, 1, len(jfif)), (513, 4, 1, 8), (514, 4, 1, len(jfif)),
], jfif))


def pack12(values):
    out, acc, bits = bytearray(), 0, 0
    for v in values:
        acc, bits = acc << 12 | v, bits + 12
        while bits >= 8:
            bits -= 8
            out.append(acc >> bits & 0xFF)
    return bytes(out + (bytes([acc << (8 - bits) & 0xFF]) if bits else b""))


rows12 = b"".join(pack12([(x * 170 + c * 900 + y * 50) % 4096 for x in range(8) for c in range(3)]) for y in range(6))
write("tiff-12-bit.tif", classic_tiff([
    (256, 3, 1, 8), (257, 3, 1, 6), (258, 3, 3, struct.pack("<HHH", 12, 12, 12)), (259, 3, 1, 1), (262, 3, 1, 2),
    (273, 4, 1, 8), (277, 3, 1, 3), (278, 3, 1, 6), (279, 4, 1, len(rows12)),
], rows12))

# TIFF with WebP strips (tiffcp; Debian's libtiff has the codec, Pillow's wheels do not), and the same file with its
# first strip cut to 40 bytes (the strip byte count says so: libtiff's WebP decoder fails on it).
with tempfile.TemporaryDirectory() as tmp:
    source = os.path.join(tmp, "in.tif")
    gradient.save(source)
    webp_tiff = os.path.join(HERE, "tiff-webp.tif")
    subprocess.run(["tiffcp", "-c", "webp", "-r", "16", source, webp_tiff], check=True)
with open(webp_tiff, "rb") as f:
    cut = bytearray(f.read())
ifd = struct.unpack_from("<I", cut, 4)[0]
for k in range(struct.unpack_from("<H", cut, ifd)[0]):
    tag, typ, count, value = struct.unpack_from("<HHII", cut, ifd + 2 + 12 * k)
    if tag == 279:  # StripByteCounts: two SHORTs in the entry, or LONGs stored out of line
        if typ == 3:
            struct.pack_into("<H", cut, ifd + 2 + 12 * k + 8, 40)
        else:
            struct.pack_into("<I", cut, value, 40)
write("tiff-webp-strip-cut.tif", bytes(cut))

# ICO: a PNG entry whose directory disagrees with it — it says 32 × 32 for a 64 × 64 PNG, and a byte count 30 short
# of the PNG's end (or 500 past the end of the file). Pillow reads the PNG from the entry's offset and takes its
# size from its IHDR.
def ico_png_entry(dir_size, count_delta):
    payload = png_bytes(solid(64, 64, "RGBA", (10, 200, 30, 255)))
    out = bytearray(ico_container(1, [(dir_size, dir_size, 1, 32, payload)]))
    struct.pack_into("<I", out, 6 + 8, len(payload) + count_delta)
    return bytes(out)


write("ico-png-count-short.ico", ico_png_entry(32, -30))
write("ico-png-count-past-end.ico", ico_png_entry(64, 500))

# APNG (Pillow's writer) whose last frame's compressed data is damaged while every chunk stays whole (its CRC made
# right again): the first frame decodes, the third does not (Pillow: "broken data stream").
moving = []
for i in range(3):
    im = Image.new("RGBA", (40, 30))
    im.putdata([((x * 6 + i * 70) % 256, y * 8, (x * y + i * 50) % 256, 255) for y in range(30) for x in range(40)])
    moving.append(im)
buf = io.BytesIO()
moving[0].save(buf, "PNG", save_all=True, append_images=moving[1:], duration=100, loop=0)
apng = bytearray(buf.getvalue())
at = apng.rindex(b"fdAT") - 4
length = struct.unpack_from(">I", apng, at)[0]
for k in range(at + 8 + 10, at + 8 + length - 8):  # past the sequence number and the zlib header
    apng[k] ^= 0x55
struct.pack_into(">I", apng, at + 8 + length, zlib.crc32(bytes(apng[at + 4:at + 8 + length])))
write("apng-later-frame-corrupt.png", bytes(apng))
