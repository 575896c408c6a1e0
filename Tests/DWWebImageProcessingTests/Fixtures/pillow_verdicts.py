# Pillow's verdict on every file under a directory, as one JSON object on stdout: path (relative) ->
# [format, width, height, frames, fully decodes] or null when Pillow does not open it. Used by PillowCorpusTests.
# Frames are those an animation plays: an APNG's default image that is not part of its animation (Pillow's
# info["default_image"]) is not counted, as browsers do not show it. Sizes are as stored: a TIFF with Orientation
# 5-8 is given its stored width and length (Pillow's _tile_size; Pillow swaps them in im.size for TIFF alone, while
# DWImage reports every format's stored size and its orientation apart, in DWImageFacts).
import json
import os
import resource
import sys
import warnings

warnings.simplefilter("ignore")
import PIL
from PIL import Image

# Pillow's own decompression-bomb limit stays; a file that still needs more memory than this is one Pillow refuses.
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
root = sys.argv[1]
out = {"": PIL.__version__}
for directory, _, names in os.walk(root):
    for name in names:
        path = os.path.join(directory, name)
        rel = os.path.relpath(path, root)
        verdict = None
        try:
            with Image.open(path) as im:
                n = getattr(im, "n_frames", 1)
                played = n - 1 if im.format == "PNG" and im.info.get("default_image") and n > 1 else n
                size = getattr(im, "_tile_size", im.size) if im.format == "TIFF" else im.size
                verdict = [im.format, size[0], size[1], played, False]
                try:
                    for i in range(n):
                        im.seek(i)
                        im.load()
                    verdict[4] = True
                except (Exception, MemoryError):
                    pass
        except (Exception, MemoryError):
            pass
        out[rel] = verdict
print(json.dumps(out))
