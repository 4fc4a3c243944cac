#!/usr/bin/env bash
# HEIF, AVIF and JPEG XL decode-to-256-px thumbnails: Loupe beside vipsthumbnail and Pillow
# (with pillow-heif, pillow-avif-plugin and pillow-jxl-plugin), in one run, single-threaded,
# medians, with ratios; then what colour management costs on tagged JPEGs (LoupeBenchmarks color).
#   Scripts/bench/bench-formats.sh [repetitions]        (default 15)
# The files are made here from the corpus's largest photos by heif-enc, avifenc and cjxl (the
# tools of the conformance corpus). Start-up is excluded as in Scripts/bench/bench-codecs.sh: Loupe and
# Pillow time inside one process; vipsthumbnail's per-image time is the difference between a
# batch of 11 copies of the file and one, divided by 10. Copies, not the same name 11 times:
# libvips' operation cache serves a repeated file name's load from memory (a JPEG XL file
# measured 37 ms per image repeated, 129 ms as 11 distinct copies).
set -euo pipefail
cd "$(dirname "$0")/../.."
repetitions="${1:-15}"
source Scripts/setup.sh
bash Scripts/fetch-corpus.sh >/dev/null

# Pillow and its plugins from the conformance venv (Scripts/conformance/requirements.txt).
bash Scripts/conformance/venv.sh >&2
python=".venv-conformance/bin/python"
work=".build-bench"
mkdir -p "$work/formats"
files=()
for photo in Corpus/skimage/retina.jpg Corpus/skimage/motorcycle_left.png Corpus/skimage/astronaut.png; do
  name="$(basename "${photo%.*}")"
  [ -f "$work/formats/$name.png" ] || convert "$photo" "$work/formats/$name.png"
  [ -f "$work/formats/$name.heic" ] || heif-enc -q 80 -o "$work/formats/$name.heic" "$work/formats/$name.png" >/dev/null
  [ -f "$work/formats/$name.avif" ] || avifenc -s 6 --min 24 --max 24 "$work/formats/$name.png" "$work/formats/$name.avif" >/dev/null
  [ -f "$work/formats/$name.jxl" ] || cjxl "$work/formats/$name.png" "$work/formats/$name.jxl" -q 85 >/dev/null 2>&1
  files+=("$work/formats/$name.heic" "$work/formats/$name.avif" "$work/formats/$name.jxl")
done

echo "== building LoupeBenchmarks (release)" >&2
swift build -c release --product LoupeBenchmarks >&2
bench="$(swift build -c release --show-bin-path)/LoupeBenchmarks"
results="$work/formats-results.txt"
: > "$results"

echo "== Loupe" >&2
LOUPE_BENCH_REPETITIONS="$repetitions" LOUPE_BENCH_FILES="${files[*]}" "$bench" formats | grep '^loupe ' >> "$results"

echo "== Pillow" >&2
"$python" - "$repetitions" "${files[@]}" >> "$results" <<'PY'
import sys, time
from PIL import Image
import pillow_heif, pillow_avif, pillow_jxl  # noqa: F401 (the plugins register on import)
pillow_heif.register_heif_opener()
repetitions = int(sys.argv[1])
for path in sys.argv[2:]:
    times = []
    for run in range(repetitions + 1):
        start = time.perf_counter()
        with Image.open(path) as im:
            im.thumbnail((256, 256))
            size = im.size
        if run:
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"pillow {path} {times[len(times) // 2]:.3f} {size[0]}x{size[1]}")
PY

echo "== vipsthumbnail" >&2
VIPS_CONCURRENCY=1 python3 - "$repetitions" "$work" "${files[@]}" >> "$results" <<'PY'
import os, shutil, subprocess, sys, time, statistics
repetitions, work, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
out = os.path.abspath(os.path.join(work, "thumbs"))
os.makedirs(out, exist_ok=True)
def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000
def batch(paths):
    return timed(["vipsthumbnail", "--size", "256", "-o", os.path.join(out, "%s.v")] + paths)
copies_dir = os.path.join(work, "copies")
os.makedirs(copies_dir, exist_ok=True)
for path in files:
    copies = []
    for i in range(11):
        copy = os.path.join(copies_dir, f"{i}-{os.path.basename(path)}")
        shutil.copyfile(path, copy)
        copies.append(copy)
    samples = []
    for _ in range(max(3, repetitions // 3)):
        once = batch([path])
        samples.append((batch(copies) - once) / 10)
    print(f"vips {path} {statistics.median(samples):.3f} -")
PY

echo "== decoded 256-px thumbnails: median ms per image (ratio = peer / Loupe; > 1 means Loupe is faster)"
python3 - "$results" <<'PY'
import sys, math
rows = {}
for line in open(sys.argv[1]):
    tool, path, ms, size = line.split()
    rows.setdefault(path, {})[tool] = float(ms)
print(f"{'file':34} {'loupe':>8} {'vips':>8} {'pillow':>8} {'vips/L':>7} {'pil/L':>7}")
ratios = {}
for path, t in rows.items():
    l = t["loupe"]
    r = {k: t[k] / l for k in ("vips", "pillow") if k in t}
    ext = path.rsplit(".", 1)[1]
    for k, v in r.items():
        ratios.setdefault((ext, k), []).append(v)
    cells = " ".join(f"{t.get(k, float('nan')):8.2f}" for k in ("loupe", "vips", "pillow"))
    print(f"{path.replace('.build-bench/formats/', ''):34} {cells} {r.get('vips', float('nan')):7.2f} {r.get('pillow', float('nan')):7.2f}")
for (ext, k), v in sorted(ratios.items()):
    print(f"geometric mean {k}/loupe on {ext}: {math.exp(sum(map(math.log, v)) / len(v)):.2f} over {len(v)} images")
PY

echo "== colour management on tagged JPEGs"
LOUPE_BENCH_REPETITIONS="$repetitions" "$bench" color | tail -n +2
