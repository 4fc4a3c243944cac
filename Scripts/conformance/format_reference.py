"""What Pillow (with pillow-heif, pillow-avif-plugin and pillow-jxl-plugin) reads from image
files that Loupe wrote, for the encoders' round-trip tests:

    format_reference.py describe <file>...

prints one JSON object per file, in order, as a JSON list: the format Pillow recognised, the
size, the mode, whether there is an alpha channel, and the mean of each RGBA channel (rounded to
one decimal) of the image converted to RGBA.
"""
import json
import sys

from PIL import Image, ImageStat
import pillow_avif  # noqa: F401  (registers AVIF)
import pillow_heif
import pillow_jxl  # noqa: F401  (registers JPEG XL)

pillow_heif.register_heif_opener()


def describe(path):
    with Image.open(path) as image:
        image.load()
        rgba = image.convert("RGBA")
        return {
            "format": image.format,
            "width": image.width,
            "height": image.height,
            "mode": image.mode,
            "alpha": "A" in image.mode or "transparency" in image.info,
            "mean": [round(value, 1) for value in ImageStat.Stat(rgba).mean],
        }


if __name__ == "__main__":
    if len(sys.argv) < 3 or sys.argv[1] != "describe":
        sys.exit(__doc__)
    print(json.dumps([describe(path) for path in sys.argv[2:]]))
