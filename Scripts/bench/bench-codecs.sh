#!/usr/bin/env bash
# Decode-to-256-px thumbnail benchmark: Loupe beside vipsthumbnail, Pillow (draft + thumbnail)
# and djpeg -scale 1/8, on the corpus's real photographs (scikit-image data and the largest
# JPEGs), in one run, single-threaded, medians of repeated runs, per image, with ratios.
#   Scripts/bench/bench-codecs.sh [repetitions]        (default 15)
# Start-up is excluded for every tool:
#   - Loupe and Pillow time each file inside one long-lived process;
#   - vipsthumbnail takes all files in one invocation; the per-image time is the difference
#     between invocations over the file list repeated 1 + R times and once, divided by R;
#   - djpeg decodes one file per process, so its per-image time is its median run on the file
#     minus its median run on a tiny 8x8 JPEG (process start-up and exit).
set -euo pipefail
cd "$(dirname "$0")/../.."
repetitions="${1:-15}"
source Scripts/setup.sh
bash Scripts/fetch-corpus.sh >/dev/null

work=".build-bench"
mkdir -p "$work"
if [ ! -x "$work/venv/bin/python" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install --quiet pillow
fi

echo "== building LoupeBenchmarks (release)" >&2
swift build -c release --product LoupeBenchmarks >&2
results="$work/results.txt"
: > "$results"

echo "== Loupe" >&2
# The file list is CodecBenchmark.files; the peers run on the files Loupe reports.
LOUPE_BENCH_REPETITIONS="$repetitions" "$(swift build -c release --show-bin-path)/LoupeBenchmarks" codecs \
  | grep '^loupe ' >> "$results"
mapfile -t files < <(awk '{print $2}' "$results")

echo "== Pillow" >&2
"$work/venv/bin/python" - "$repetitions" "${files[@]}" >> "$results" <<'PY'
import sys, time
from PIL import Image
repetitions = int(sys.argv[1])
for path in sys.argv[2:]:
    times = []
    for run in range(repetitions + 1):
        start = time.perf_counter()
        with Image.open(path) as im:
            im.draft("RGB", (256, 256))   # JPEG: DCT scaling, the same shortcut as ours
            im.thumbnail((256, 256))      # Pillow's default filter (Lanczos/reducing_gap)
            size = im.size
        if run:
            times.append((time.perf_counter() - start) * 1000)
    times.sort()
    print(f"pillow {path} {times[len(times) // 2]:.3f} {size[0]}x{size[1]}")
PY

echo "== vipsthumbnail, djpeg" >&2
VIPS_CONCURRENCY=1 python3 - "$repetitions" "$work" "${files[@]}" >> "$results" <<'PY'
import os, subprocess, sys, time, statistics
repetitions, work, files = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
out = os.path.join(work, "thumbs")
os.makedirs(out, exist_ok=True)

def timed(command):
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return (time.perf_counter() - start) * 1000

def vips_batch(paths):
    # The .v output format is libvips' uncompressed native one: no encoder cost in the time.
    return timed(["vipsthumbnail", "--size", "256", "-o", os.path.join(os.path.abspath(out), "%s.v")] + paths)

# Per file: (T(file repeated 1 + R times) - T(file once)) / R, median of 5 such measurements.
batch = 10
for path in files:
    samples = []
    for _ in range(max(3, repetitions // 3)):
        once = vips_batch([path])
        many = vips_batch([path] * (1 + batch))
        samples.append((many - once) / batch)
    print(f"vips {path} {statistics.median(samples):.3f} -")

tiny = os.path.join(work, "tiny.jpg")
if not os.path.exists(tiny):
    subprocess.run(["vips", "black", tiny, "8", "8"], check=True)
baseline = statistics.median(timed(["djpeg", "-scale", "1/8", "-outfile", os.devnull, tiny]) for _ in range(repetitions * 2))
for path in files:
    if not path.lower().endswith((".jpg", ".jpeg")):
        continue
    t = statistics.median(timed(["djpeg", "-scale", "1/8", "-outfile", os.devnull, path]) for _ in range(repetitions))
    print(f"djpeg {path} {max(0.0, t - baseline):.3f} -")
PY

echo "== decoded 256-px thumbnails: median ms per image (ratio = peer / Loupe; > 1 means Loupe is faster)"
python3 - "$results" <<'PY'
import sys, math
rows = {}
for line in open(sys.argv[1]):
    tool, path, ms, size = line.split()
    rows.setdefault(path, {})[tool] = float(ms)
print(f"{'file':44} {'loupe':>8} {'vips':>8} {'pillow':>8} {'djpeg':>8} {'vips/L':>7} {'pil/L':>7}")
ratios = {"vips": [], "pillow": []}
for path, t in rows.items():
    l = t["loupe"]
    cells = [f"{t.get(k, float('nan')):8.2f}" for k in ("loupe", "vips", "pillow", "djpeg")]
    r = []
    for k in ("vips", "pillow"):
        ratio = t[k] / l
        ratios[k].append(ratio)
        r.append(f"{ratio:7.2f}")
    print(f"{path.replace('Corpus/', ''):44} {' '.join(cells)} {' '.join(r)}")
for k, v in ratios.items():
    print(f"geometric mean {k}/loupe: {math.exp(sum(map(math.log, v)) / len(v)):.2f} over {len(v)} images")
PY
