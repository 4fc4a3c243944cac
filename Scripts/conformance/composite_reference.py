"""Pillow's source-over of a watermark, for LoupeProcessing's Watermark.

Usage: composite_reference.py IMAGE.rgba WIDTH HEIGHT MARK.rgba MARK_WIDTH MARK_HEIGHT X Y OPACITY OUT.rgba
The mark's alpha is multiplied by OPACITY (rounded), it is placed with its top-left corner at X, Y
on a transparent layer of the image's size, and Image.alpha_composite puts that layer over the
image; the result's raw RGBA bytes are written to OUT.rgba.
"""
import sys

from PIL import Image


def main():
    image_path, width, height, mark_path, mark_width, mark_height, x, y, opacity, out = sys.argv[1:]
    with open(image_path, "rb") as f:
        image = Image.frombytes("RGBA", (int(width), int(height)), f.read())
    with open(mark_path, "rb") as f:
        mark = Image.frombytes("RGBA", (int(mark_width), int(mark_height)), f.read())
    alpha = round(float(opacity) * 255)
    r, g, b, a = mark.split()
    a = a.point(lambda value: (value * alpha + 127) // 255)
    mark = Image.merge("RGBA", (r, g, b, a))
    layer = Image.new("RGBA", image.size, (0, 0, 0, 0))
    layer.paste(mark, (int(x), int(y)))
    with open(out, "wb") as f:
        f.write(Image.alpha_composite(image, layer).tobytes())


if __name__ == "__main__":
    main()
