#!/usr/bin/env python3
"""Makes the processing tests' fixtures (committed; run again only to change them) and expected.json: the RGBA
Pillow decodes at sample points of each file, the reference the Swift tests compare with (tolerance in the tests).

Needs Pillow (bench/ensure-python-deps) and the `vips` CLI (libvips-tools) for HEIC and the P3 profile.
"""
import io, json, os, struct, subprocess
from PIL import Image, ImageCms

here = os.path.dirname(os.path.abspath(__file__))
W, H = 64, 48
QUADRANTS = [(220, 30, 30), (30, 200, 40), (40, 60, 210), (250, 250, 250)]  # TL TR BL BR


def quadrants(alpha=False):
    img = Image.new("RGBA" if alpha else "RGB", (W, H))
    px = img.load()
    for y in range(H):
        for x in range(W):
            q = (0 if x < W // 2 else 1) + (0 if y < H // 2 else 2)
            c = QUADRANTS[q]
            px[x, y] = (c + ((0 if q == 3 else 255),)) if alpha else c  # BR transparent when alpha
    return img


def path(name):
    return os.path.join(here, name)


def samples(img):
    img = img.convert("RGBA")
    pts = [(8, 8), (W - 9, 8), (8, H - 9), (W - 9, H - 9)]
    return [[x, y, list(img.getpixel((x, y)))] for (x, y) in pts]


expected = {}
q = quadrants()
qa = quadrants(alpha=True)
q.save(path("q.jpg"), quality=95)
qa.save(path("q.png"))
qa.save(path("q.webp"), lossless=True)
q.save(path("q.tiff"))
q.save(path("q.bmp"))
q.convert("P", palette=Image.ADAPTIVE, colors=8).save(path("q8.bmp"))
qa.save(path("q.avif"), quality=90)
qa.save(path("q.gif"), transparency=None)
qa.save(path("q.ico"), sizes=[(W, H)])
for name in ["q.jpg", "q.png", "q.webp", "q.tiff", "q.bmp", "q8.bmp", "q.avif", "q.gif", "q.ico"]:
    with Image.open(path(name)) as im:
        expected[name] = {"size": list(im.size), "samples": samples(im)}
# HEIC: libvips writes it (Pillow cannot); the reference is the known colours.
subprocess.run(["vips", "copy", path("q.png"), path("q.heic") + "[Q=95]"], check=True)
expected["q.heic"] = {"size": [W, H], "samples": samples(qa)}
# A HEIC with an sRGB ICC profile and EXIF copyright and artist (libvips 8.14's HEIF loader left those blocks in freed
# memory: SafetyTests.testHEICMetadataSurvivesAResize).
exif = Image.Exif(); exif[0x8298] = "ACME-COPYRIGHT"; exif[0x013B] = "JANE"
Image.new("RGB", (W, H), (200, 100, 50)).save(
    path("exif-icc.jpg"), "JPEG", icc_profile=ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes(),
    exif=exif.tobytes())
subprocess.run(["vips", "copy", path("exif-icc.jpg"), path("exif-icc.heic")], check=True)
os.remove(path("exif-icc.jpg"))

# A BMP-in-ICO (32-bit BGRA DIB + AND mask), written by hand: 16x16, left half red opaque, right half clear.
w = h = 16
rows = []
for y in range(h):  # bottom-up
    row = b""
    for x in range(w):
        row += bytes([0, 0, 255, 255]) if x < 8 else bytes([0, 0, 0, 0])
    rows.append(row)
pixels = b"".join(reversed(rows))
mask = b"\x00\x00\x00\x00" * h
dib = struct.pack("<IiiHHIIiiII", 40, w, h * 2, 1, 32, 0, len(pixels) + len(mask), 0, 0, 0, 0) + pixels + mask
ico = struct.pack("<HHH", 0, 1, 1) + struct.pack("<BBBBHHII", w, h, 0, 0, 1, 32, len(dib), 22) + dib
open(path("dib.ico"), "wb").write(ico)
expected["dib.ico"] = {"size": [16, 16], "samples": [[2, 2, [255, 0, 0, 255]], [12, 12, [0, 0, 0, 0]]]}

# EXIF orientations 1..8: stored pixels transformed so that every file shows the quadrant image upright.
inverse = {1: [], 2: [Image.FLIP_LEFT_RIGHT], 3: [Image.ROTATE_180], 4: [Image.FLIP_TOP_BOTTOM],
           5: [Image.TRANSPOSE], 6: [Image.ROTATE_90], 7: [Image.TRANSVERSE], 8: [Image.ROTATE_270]}
for o in range(1, 9):
    stored = q
    for op in inverse[o]:
        stored = stored.transpose(op)
    exif = Image.Exif()
    exif[0x0112] = o
    stored.save(path(f"orient{o}.jpg"), quality=95, exif=exif.tobytes())
    with Image.open(path(f"orient{o}.jpg")) as im:
        from PIL import ImageOps
        upright = ImageOps.exif_transpose(im)
        expected[f"orient{o}.jpg"] = {"size": list(upright.size), "samples": samples(upright)}

# A Display P3 JPEG: pixels (200, 100, 50) in P3; the reference is Pillow/littleCMS converting to sRGB.
Image.new("RGB", (32, 32), (200, 100, 50)).save(path("plain.png"))
subprocess.run(["vips", "copy", path("plain.png"), path("p3-src.v")], check=True)
subprocess.run(["vips", "icc_transform", path("plain.png"), path("p3tmp.png"), "p3"], check=True)
# Re-tag: the pixels stay (200,100,50) but carry the P3 profile.
with Image.open(path("p3tmp.png")) as tmp:
    profile = tmp.info["icc_profile"]
Image.new("RGB", (32, 32), (200, 100, 50)).save(path("p3.png"), icc_profile=profile)
for f in ["plain.png", "p3-src.v", "p3tmp.png"]:
    os.remove(path(f))
with Image.open(path("p3.png")) as im:
    srgb = ImageCms.profileToProfile(im, ImageCms.ImageCmsProfile(io.BytesIO(profile)),
                                     ImageCms.createProfile("sRGB"), renderingIntent=0)
    expected["p3.png"] = {"size": [32, 32], "samples": [[16, 16, list(srgb.convert("RGBA").getpixel((16, 16)))]]}

# 12 frames, 40x30, delays 30..140 ms (multiples of 10), loop count 3.
frames = [Image.new("RGB", (40, 30), (i * 20, 255 - i * 20, (i * 50) % 256)) for i in range(12)]
delays = [30 + 10 * i for i in range(12)]
frames[0].save(path("anim12.gif"), save_all=True, append_images=frames[1:], duration=delays, loop=3,
               disposal=1, optimize=False)
expected["anim12.gif"] = {"size": [40, 30], "delays_ms": delays, "loop": 3}

# A decompression bomb in ancillary chunks: an 8x8 PNG whose zTXt and iCCP chunks each inflate to 200 MiB.
def chunk(t, d):
    import zlib as z
    return struct.pack(">I", len(d)) + t + d + struct.pack(">I", z.crc32(t + d) & 0xffffffff)
import zlib
bomb = zlib.compress(b"\x00" * (200 * 1024 * 1024), 9)
raw = b"".join(b"\x00" + bytes([200, 40, 40]) * 8 for _ in range(8))
open(path("ztxt-bomb.png"), "wb").write(
    b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
    + chunk(b"zTXt", b"Comment\x00\x00" + bomb) + chunk(b"iCCP", b"bomb\x00\x00" + bomb)
    + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))

# A 12 MP-class JPEG is made by the tests themselves (too big to commit).
json.dump(expected, open(path("expected.json"), "w"), indent=1, sort_keys=True)
print("fixtures:", sorted(expected))
