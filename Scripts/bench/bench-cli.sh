#!/usr/bin/env bash
# `loupe fetch` beside `vipsthumbnail` as a user runs them: whole commands (process start-up
# included), 256 px JPEG thumbnails of the corpus's real photographs written to a folder, in one
# run, the two commands interleaved, medians of repeated runs, and their ratio.
#   Scripts/bench/bench-cli.sh [repetitions]        (default 9)
# Both use every core (`loupe` loads 8 at a time; vips threads its pipeline). `loupe` runs with
# --no-cache so every run decodes from the files, as vipsthumbnail does; --colors adds the exact
# dominant colour (a second, full-size decode) to show what it costs.
set -euo pipefail
cd "$(dirname "$0")/../.."
repetitions="${1:-9}"
source Scripts/setup.sh
bash Scripts/fetch-corpus.sh >/dev/null
echo "== building loupe (release)" >&2
swift build -c release --product loupe >&2

files=(Corpus/skimage/*.png Corpus/skimage/*.jpg)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/vips" "$work/loupe" "$work/colors"

# Nanoseconds one command takes, on stdout.
seconds() {
  local start end
  start=$(date +%s%N)
  "$@" >/dev/null 2>&1
  end=$(date +%s%N)
  echo $((end - start))
}
median() { sort -n | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

vips=() loupe=() colors=()
for ((i = 0; i < repetitions; i++)); do
  vips+=("$(seconds vipsthumbnail "${files[@]}" --size 256 -o "$work/vips/%s.jpg[Q=85]")")
  loupe+=("$(seconds .build/release/loupe fetch --no-cache --thumbnail 256 --format jpeg --quality 85 --out "$work/loupe" "${files[@]}")")
  colors+=("$(seconds .build/release/loupe fetch --no-cache --thumbnail 256 --format jpeg --quality 85 --colors --out "$work/colors" "${files[@]}")")
done
v=$(printf '%s\n' "${vips[@]}" | median)
l=$(printf '%s\n' "${loupe[@]}" | median)
c=$(printf '%s\n' "${colors[@]}" | median)
echo "${#files[@]} photos to 256 px JPEG thumbnails, medians of $repetitions runs:"
awk -v v="$v" -v l="$l" -v c="$c" 'BEGIN {
  printf "  vipsthumbnail          %.3f s\n", v / 1e9
  printf "  loupe fetch            %.3f s  (%.2fx vipsthumbnail'"'"'s time)\n", l / 1e9, l / v
  printf "  loupe fetch --colors   %.3f s  (%.2fx)\n", c / 1e9, c / v
}'
