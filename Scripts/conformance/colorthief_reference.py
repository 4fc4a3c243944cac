"""Reference colours for the LoupeProcessing conformance test, from the real `colorthief`.

Usage: colorthief_reference.py PIXEL_DIR FILE...

For every FILE prints (as one JSON list on stdout) what colorthief 0.2.1 computes on it, and
writes the RGBA pixels colorthief reads (Pillow's `convert('RGBA')`, full size, before EXIF
orientation) to PIXEL_DIR/<n>.rgba (n: the file's place among FILE...) so the Swift test can
quantize exactly the same pixels. A file Pillow cannot open is an error (non-zero exit), never a
silent gap.

One process, one file at a time: the test runs one of these per core on its share of the files.
(A multiprocessing pool here hung past the test's bound in CI's release step; separate processes
need no fork in Python, and one that dies is an exit status the test sees.)
"""
import json
import os
import sys

from colorthief import ColorThief, MMCQ

PALETTE_COUNTS = (2, 5, 6, 10, 11)

# get_palette samples the image and hands the sample to MMCQ.quantize. Keep the sample of the
# public get_color() call so the other palette sizes reuse colorthief's own sample and its own
# quantize without sampling (slowly, in Python) again.
_quantize = MMCQ.quantize
_sample = {}


def _capturing_quantize(pixels, max_color):
    _sample["pixels"] = pixels
    return _quantize(pixels, max_color)


MMCQ.quantize = staticmethod(_capturing_quantize)


def reference(job):
    """What colorthief computes on one file; its pixels written to PIXEL_DIR/<n>.rgba."""
    pixel_dir, n, path = job
    thief = ColorThief(path)
    rgba = thief.image.convert("RGBA")
    raw = rgba.tobytes()
    pixel_path = os.path.join(pixel_dir, f"{n}.rgba")
    with open(pixel_path, "wb") as out:
        out.write(raw)
    entry = {
        "file": path,
        "mode": thief.image.mode,
        "width": rgba.width,
        "height": rgba.height,
        "pixels": pixel_path,
    }
    try:
        entry["color"] = list(thief.get_color(quality=10))
        pixels = _sample["pixels"]
        entry["palettes"] = {str(c): [list(x) for x in _quantize(pixels, c).palette] for c in PALETTE_COUNTS}
        # quality 1 (every pixel) too, where that stays quick in Python.
        if rgba.width * rgba.height <= 100_000:
            entry["color_q1"] = list(thief.get_color(quality=1))
    except Exception as error:  # colorthief raises a bare Exception for "no usable pixels"
        entry["quantize_error"] = str(error)
    return entry


def main():
    pixel_dir, files = sys.argv[1], sys.argv[2:]
    json.dump([reference((pixel_dir, n, path)) for n, path in enumerate(files)], sys.stdout)


if __name__ == "__main__":
    main()
