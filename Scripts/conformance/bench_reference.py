"""The Python side of `LoupeBenchmarks processing`: colorthief and Pillow on the same files
and the same decoded pixels, medians of repeated runs in one long-lived process.

Usage: bench_reference.py REPETITIONS CASE...   with CASE = FILE:PIXELS.rgba:WIDTH:HEIGHT
PIXELS.rgba are the pixels Loupe decoded (full size), so the resize comparison starts from
identical input. Prints one JSON object per case (a list) with medians in milliseconds:
  colorthief_total     ColorThief(file).get_color(quality=10)        (open + decode + quantize)
  colorthief_quantize  get_color(quality=10) on an already decoded image (sampling + MMCQ)
  pillow_thumbnail     Image.thumbnail((256, 256)) on the decoded pixels (BICUBIC, reducing_gap 2;
                       Pillow premultiplies RGBA for it, as Loupe does)
"""
import json
import statistics
import sys
import time

from colorthief import ColorThief
from PIL import Image


def median_ms(function, repetitions, setup=lambda: None):
    function(setup())  # warm-up, like the Swift side
    times = []
    for _ in range(repetitions):
        argument = setup()  # not timed
        start = time.perf_counter()
        function(argument)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main():
    repetitions = int(sys.argv[1])
    results = []
    for case in sys.argv[2:]:
        path, pixels, width, height = case.rsplit(":", 3)
        size = (int(width), int(height))
        with open(pixels, "rb") as f:
            raw = f.read()

        def total(_):
            return ColorThief(path).get_color(quality=10)

        decoded = ColorThief(path)
        decoded.image.load()

        def quantize(_):
            return decoded.get_color(quality=10)

        source = Image.frombytes("RGBA", size, raw)

        def thumbnail(image):
            image.thumbnail((256, 256))

        results.append({
            "file": path,
            "color": list(total(None)),
            "colorthief_total": median_ms(total, repetitions),
            "colorthief_quantize": median_ms(quantize, repetitions),
            # thumbnail works in place: each run gets a fresh copy, made outside the timing.
            "pillow_thumbnail": median_ms(thumbnail, max(repetitions, 9), setup=source.copy),
        })
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
