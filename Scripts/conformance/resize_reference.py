"""Pillow's resize of raw RGBA pixels, the reference for LoupeProcessing's resize test.

Usage: resize_reference.py IN.rgba WIDTH HEIGHT OUT_WIDTH OUT_HEIGHT FILTER OUT.rgba
FILTER is lanczos3 or catmullRom (Pillow's LANCZOS and BICUBIC). Pillow premultiplies RGBA
for resizing and pre-reduces by whole factors with reducing_gap, as ours does with gap 2.
"""
import sys

from PIL import Image


def main():
    source, width, height, out_width, out_height, name, target = sys.argv[1:8]
    with open(source, "rb") as f:
        image = Image.frombytes("RGBA", (int(width), int(height)), f.read())
    resample = {"lanczos3": Image.Resampling.LANCZOS, "catmullRom": Image.Resampling.BICUBIC}[name]
    result = image.resize((int(out_width), int(out_height)), resample, reducing_gap=2.0)
    with open(target, "wb") as f:
        f.write(result.tobytes())


if __name__ == "__main__":
    main()
