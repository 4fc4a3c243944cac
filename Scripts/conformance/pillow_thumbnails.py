"""Pillow's fastest 256 px thumbnail of each file named, as `loupe fetch --thumbnail 256` makes
it: `draft` (libjpeg DCT scaling, JPEG only) then `thumbnail` (reducing_gap 2, bicubic). Nothing
is written. The other side of Scripts/bench/bench-pillow.sh.

Usage: pillow_thumbnails.py FILE...   (no files: start-up only)
"""
import sys

from PIL import Image


def main():
    for path in sys.argv[1:]:
        with Image.open(path) as image:
            image.draft("RGB", (256, 256))
            image.thumbnail((256, 256))
            print(path, image.size[0], image.size[1])


if __name__ == "__main__":
    main()
