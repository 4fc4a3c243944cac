"""BlurHash and ThumbHash of raw RGBA pixels from the reference packages, for LoupeProcessing.

Usage: placeholder_reference.py CASE...   with CASE = PATH.rgba:WIDTH:HEIGHT:XCOMP:YCOMP
Prints a JSON list with, per case, `blurhash` (PyPI `blurhash`, on R, G, B) and `thumbhash`
(PyPI `thumbhash-python`, bytes as a list; only for images within 100x100).
"""
import json
import sys

import blurhash
from thumbhash.encode import rgba_to_thumbhash


def main():
    results = []
    for case in sys.argv[1:]:
        path, width, height, x_components, y_components = case.rsplit(":", 4)
        width, height = int(width), int(height)
        with open(path, "rb") as f:
            raw = f.read()
        rows = [[list(raw[(y * width + x) * 4:(y * width + x) * 4 + 3]) for x in range(width)] for y in range(height)]
        entry = {"blurhash": blurhash.encode(rows, int(x_components), int(y_components))}
        if width <= 100 and height <= 100:
            entry["thumbhash"] = list(rgba_to_thumbhash(width, height, list(raw)))
        results.append(entry)
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
