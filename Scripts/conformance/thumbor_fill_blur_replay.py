"""Replays thumbor's fill(blur,true) on its transparent test image step by step, to show where
the SSIM of its conformance case goes (docs/thumbor.md, "Conformance with thumbor's filter
tests"): thumbor's own C filters (_composite, blur) with Pillow's resize of the canvas, then the
same with a floating-point premultiplied Lanczos resize in its place (what Loupe does), each
scored against thumbor's expected image with thumbor's own get_ssim (pyssim). Given a result of
Loupe's (a PNG of `/unsafe/fit-in/300x325/filters:fill(blur,true):format(png)/<the image>`), it
scores that too, and prints how far each is from thumbor's image once composited over black.

    python3 -m venv .venv-thumbor && .venv-thumbor/bin/pip install thumbor==7.8.0 pyssim
    .venv-thumbor/bin/python Scripts/conformance/thumbor_fill_blur_replay.py \\
        .venv-conformance/thumbor-sdist [loupe-result.png]
"""

import sys

import numpy as np
from PIL import Image
from thumbor.ext.filters import _composite
from thumbor.filters.blur import apply_blur
from thumbor.testing import get_ssim

fixtures = sys.argv[1] + "/thumbor/fixtures/filters/"
expected = Image.open(fixtures + "fill5.png").convert("RGBA")
source = Image.open(fixtures + "PNG_transparency_demonstration_1.png").convert("RGBA")
width, height = 300, 325


def paste(canvas, image, position):
    """thumbor's merging paste (PIL engine's paste with merge=True)."""
    merged = _composite.apply("RGBA", canvas.tobytes(), canvas.size[0], canvas.size[1], image.tobytes(),
                              image.size[0], image.size[1], position[0], position[1])
    result = Image.new("RGBA", canvas.size)
    result.frombytes(merged)
    return result


def fill_blur(stretch):
    """thumbor's fill(blur, true) with `stretch` for its resize of the blurred canvas."""
    canvas = paste(Image.new("RGBA", source.size, None), source, (0, 0))
    blurred = Image.new("RGBA", canvas.size)
    blurred.frombytes(apply_blur("RGBA", canvas.tobytes(), canvas.size, 50))
    stretched = stretch(blurred)
    return paste(stretched, source, ((width - source.size[0]) // 2, (height - source.size[1]) // 2))


def pillow(image):
    return image.resize((width, height), Image.Resampling.LANCZOS)


def float_premultiplied(image):
    pixels = np.array(image).astype(np.float64)
    pixels[..., :3] *= pixels[..., 3:] / 255
    channels = [np.array(Image.fromarray(pixels[..., c].astype(np.float32), "F").resize(
        (width, height), Image.Resampling.LANCZOS)) for c in range(4)]
    resized = np.stack(channels, -1)
    alpha = np.clip(resized[..., 3], 0, 255)
    colour = np.where(alpha[..., None] >= 0.5, resized[..., :3] * 255 / np.maximum(alpha[..., None], 1e-9), 0)
    out = np.concatenate([np.clip(colour + 0.5, 0, 255), (alpha + 0.5)[..., None]], -1).astype(np.uint8)
    return Image.fromarray(out, "RGBA")


def shown(image):
    pixels = np.array(image).astype(np.float64)
    return pixels[..., :3] * pixels[..., 3:] / 255


results = [("thumbor's steps, Pillow's resize", fill_blur(pillow)),
           ("thumbor's steps, a float premultiplied resize", fill_blur(float_premultiplied))]
if len(sys.argv) > 2:
    results.append(("Loupe's result", Image.open(sys.argv[2]).convert("RGBA")))
for name, image in results:
    difference = np.abs(shown(image) - shown(expected))
    print(f"{name}: SSIM {get_ssim(image, expected):.4f}; over black, "
          f"mean {difference.mean():.2f} and max {difference.max():.2f} levels from thumbor's")
