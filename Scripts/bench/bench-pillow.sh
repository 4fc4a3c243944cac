#!/usr/bin/env bash
# The decode -> 256 px thumbnail hot path, one thread, beside Pillow's `draft` + `thumbnail`
# (libjpeg-turbo and libpng under both): CPU time (user + system) of whole commands, the two
# interleaved run by run (A B A B), medians, and the ratio per pair with its spread.
#   Scripts/bench/bench-pillow.sh [repetitions]        (default 9)
# `loupe fetch --no-cache --thumbnail 256 --concurrency 1` on the corpus's photographs (the 26
# scikit-image PNGs and JPEGs) vs Scripts/conformance/pillow_thumbnails.py on the same files;
# neither writes a file. Each side is also run with no file at all, so start-up (Python and
# Pillow's imports; the Swift runtime) can be told apart from the per-image work.
set -euo pipefail
cd "$(dirname "$0")/../.."
repetitions="${1:-9}"
source Scripts/setup.sh >/dev/null
bash Scripts/fetch-corpus.sh >/dev/null
bash Scripts/conformance/venv.sh >/dev/null
echo "== building loupe (release)" >&2
swift build -c release --product loupe >&2

files=(Corpus/skimage/*.png Corpus/skimage/*.jpg)
jpegs=(Corpus/skimage/*.jpg)
pngs=(Corpus/skimage/*.png)
python=.venv-conformance/bin/python
loupe=.build/release/loupe
# An empty folder to give `loupe fetch` a valid source list of one tiny file for start-up:
# with no source it prints usage and exits 2.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
printf 'P' >"$work/empty"

# CPU seconds (user + system) one command takes, on stdout, to the microsecond: the kernel's
# rusage of that one child, from wait4 (`/usr/bin/time` prints hundredths; RUSAGE_CHILDREN
# read in the Python that started it also counted 40 ms that /bin/true does not use).
cpu() {
  python3 -c 'import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_, _, usage = os.wait4(child.pid, 0)
print(f"{usage.ru_utime + usage.ru_stime:.6f}")' "$@"
}
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

declare -A runs
sets=(all jpeg png start)
for ((i = 0; i < repetitions; i++)); do
  for set in "${sets[@]}"; do
    case "$set" in
      all) args=("${files[@]}") ;;
      jpeg) args=("${jpegs[@]}") ;;
      png) args=("${pngs[@]}") ;;
      start) args=() ;;
    esac
    if [ "$set" = start ]; then
      l=$(cpu "$loupe" fetch --no-cache --quiet "$work/empty")
    else
      l=$(cpu "$loupe" fetch --no-cache --quiet --thumbnail 256 --concurrency 1 "${args[@]}")
    fi
    p=$(cpu "$python" Scripts/conformance/pillow_thumbnails.py "${args[@]}")
    runs[$set.loupe]+="$l "
    runs[$set.pillow]+="$p "
    runs[$set.ratio]+="$(awk -v l="$l" -v p="$p" 'BEGIN { printf "%.3f", (p > 0) ? l / p : 0 }') "
  done
done

echo "decode -> 256 px thumbnail, one thread, CPU seconds (user + system) of whole commands,"
echo "medians of $repetitions interleaved runs; load average $(cut -d' ' -f1-3 /proc/loadavg)"
for set in "${sets[@]}"; do
  l=$(printf '%s\n' ${runs[$set.loupe]} | median)
  p=$(printf '%s\n' ${runs[$set.pillow]} | median)
  r=$(printf '%s\n' ${runs[$set.ratio]} | median)
  lo=$(printf '%s\n' ${runs[$set.ratio]} | sort -g | head -1)
  hi=$(printf '%s\n' ${runs[$set.ratio]} | sort -g | tail -1)
  case "$set" in
    all) name="all ${#files[@]} photos" ;;
    jpeg) name="${#jpegs[@]} JPEGs" ;;
    png) name="${#pngs[@]} PNGs" ;;
    start) name="start-up only" ;;
  esac
  if [ "$set" = start ]; then
    # Start-up alone is printed, not compared: it is what the other rows subtract.
    printf '  %-16s loupe %.4f s  Pillow %.4f s\n' "$name" "$l" "$p"
  else
    printf '  %-16s loupe %.4f s  Pillow %.4f s  ratio per pair %.2fx (%.2f-%.2f)\n' "$name" "$l" "$p" "$r" "$lo" "$hi"
  fi
  declare "ml_$set=$l" "mp_$set=$p"
done
awk -v la="$ml_all" -v pa="$mp_all" -v ls="$ml_start" -v ps="$mp_start" 'BEGIN {
  printf "  without start-up (all minus start-up): loupe %.3f s, Pillow %.3f s = %.2fx (target <= 0.8x)\n", la - ls, pa - ps, (la - ls) / (pa - ps)
}'
