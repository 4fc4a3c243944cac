"""Colour-managed reference decodes: Pillow opens each file and ImageCms (lcms2) converts it
from its embedded ICC profile to sRGB with the settings LoupeCodecs uses (relative
colorimetric intent, black-point compensation). Untagged files are converted as Pillow's
convert() does (CMYK by its formula). HEIF and AVIF open through pillow-heif and
pillow-avif-plugin (their own libheif and libavif builds; high bit depths to 8 bits).

usage: color_reference.py <output-dir> <file>...
Writes <output-dir>/<n>.rgba (RGBA8, rows top to bottom) per file and prints a JSON array of
{"file", "width", "height", "mode", "profile", "pixels"} ("profile": the file has one) on standard output.
"""
import io
import json
import os
import sys

from PIL import Image, ImageCms
import pillow_avif  # noqa: F401 (registers AVIF with Pillow on import)
import pillow_heif

pillow_heif.register_heif_opener()

RELATIVE_COLORIMETRIC = 1
BLACK_POINT_COMPENSATION = 0x2000


def managed(image):
    profile = image.info.get("icc_profile")
    alpha = image.getchannel("A") if image.mode in ("RGBA", "LA") else None
    base = {"RGBA": "RGB", "LA": "L"}.get(image.mode, image.mode)
    if base == "I;16":
        base = "L"
    image = image.convert(base) if image.mode != base else image
    try:
        source = ImageCms.ImageCmsProfile(io.BytesIO(profile)) if profile else None
    except OSError:
        source = None  # damaged: ignored, as LoupeCodecs does (with a warning)
    if source:
        srgb = ImageCms.createProfile("sRGB")
        transform = ImageCms.buildTransform(source, srgb, base, "RGB",
                                            renderingIntent=RELATIVE_COLORIMETRIC, flags=BLACK_POINT_COMPENSATION)
        rgb = ImageCms.applyTransform(image, transform)
    else:
        rgb = image.convert("RGB")
    rgba = rgb.convert("RGBA")
    if alpha is not None:
        rgba.putalpha(alpha)
    return rgba


def main():
    out, files = sys.argv[1], sys.argv[2:]
    results = []
    for n, path in enumerate(files):
        with Image.open(path) as image:
            image.load()
            mode, profile = image.mode, "icc_profile" in image.info
            rgba = managed(image)
        pixels = os.path.join(out, f"{n}.rgba")
        with open(pixels, "wb") as f:
            f.write(rgba.tobytes())
        results.append({"file": path, "width": rgba.width, "height": rgba.height, "mode": mode,
                        "profile": profile, "pixels": pixels})
    json.dump(results, sys.stdout)


main()
