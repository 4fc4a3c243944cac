"""Makes and reads animations with Pillow for the animation tests (Tests/LoupeServerTests/
AnimationTests.swift) and the animation benchmark (Scripts/bench/bench-animation.sh).

Usage:
  animation_reference.py make OUT.gif|OUT.webp FRAMES WIDTH HEIGHT LOOP
      FRAMES frames of one solid colour each (colours far apart), frame i shown 40 + 10*i ms,
      played LOOP times (0: forever).
  animation_reference.py strip OUT.gif FRAMES WIDTH HEIGHT PHOTO...
      FRAMES frames cut from the photos, each a WIDTHxHEIGHT window moving across them, 60 ms
      each, looping forever: a photographic animation for the benchmark.
  animation_reference.py describe FILE
      One JSON line: format, frame count, loop count, each frame's duration (ms), size and the
      RGBA at its centre, read from the composited frames.
"""
import json
import sys

from PIL import Image


def colour(index):
    # Hues far apart, so a frame's colour survives lossy WebP and a 256-colour palette.
    palette = [(230, 25, 75), (60, 180, 75), (255, 225, 25), (0, 130, 200), (245, 130, 48),
               (145, 30, 180), (70, 240, 240), (240, 50, 230), (250, 190, 212), (0, 128, 128)]
    return palette[index % len(palette)]


def make(out, frames, width, height, loop):
    images = [Image.new("RGB", (width, height), colour(i)) for i in range(frames)]
    durations = [40 + 10 * i for i in range(frames)]
    options = {"save_all": True, "append_images": images[1:], "duration": durations, "loop": loop}
    if out.endswith(".webp"):
        options.update(quality=90, minimize_size=False, allow_mixed=False)
    else:
        options.update(optimize=False, disposal=1)
    images[0].save(out, **options)


def strip(out, frames, width, height, photos):
    sources = [Image.open(path).convert("RGB") for path in photos]
    images = []
    for i in range(frames):
        source = sources[i % len(sources)]
        x = (source.width - width) * i // max(1, frames - 1)
        y = (source.height - height) * i // max(1, frames - 1)
        images.append(source.crop((x, y, x + width, y + height)))
    images[0].save(out, save_all=True, append_images=images[1:], duration=60, loop=0)


def describe(path):
    with Image.open(path) as image:
        result = {"format": image.format, "frames": getattr(image, "n_frames", 1), "loop": image.info.get("loop"),
                  "durations": [], "sizes": [], "centres": []}
        for index in range(result["frames"]):
            image.seek(index)
            image.load()  # Pillow's WebP reader sets a frame's duration when it loads it
            result["durations"].append(image.info.get("duration"))
            frame = image.convert("RGBA")
            result["sizes"].append([frame.width, frame.height])
            result["centres"].append(list(frame.getpixel((frame.width // 2, frame.height // 2))))
    print(json.dumps(result))


def main():
    command = sys.argv[1]
    if command == "make":
        make(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
    elif command == "strip":
        strip(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6:])
    elif command == "describe":
        describe(sys.argv[2])
    else:
        sys.exit("unknown command " + command)


if __name__ == "__main__":
    main()
