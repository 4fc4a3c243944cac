#!/usr/bin/env bash
# Runs the libFuzzer target for one decoder (or the ICC profile path), or for the service's
# imgproxy URLs (`url`: parse, presets, geometry and processors), for a given time:
#   Scripts/ci/fuzz.sh <jpeg|png|webp|gif|heif|avif|jxl|tiff|bmp|ico|svg|icc|url> <seconds>
# Builds LoupeCodecsFuzz (LoupeURLFuzz for url) with -sanitize=fuzzer,address (Swift and the C shim; the system codec
# libraries are not instrumented, but AddressSanitizer's allocator and LeakSanitizer still see
# their heap), seeds it from the corpus (Scripts/fetch-corpus.sh; url: the options of the
# imgproxy geometry cases and the documentation's URLs), and keeps new inputs in
# .build-fuzz/corpus-<decoder>/ and crashes in .build-fuzz/crashes-<decoder>/.
set -euo pipefail
cd "$(dirname "$0")/../.."
decoder="${1:?usage: Scripts/ci/fuzz.sh <jpeg|png|webp|gif|heif|avif|jxl|tiff|bmp|ico|svg|icc|url> <seconds>}"
seconds="${2:?usage: Scripts/ci/fuzz.sh <jpeg|png|webp|gif|heif|avif|jxl|tiff|bmp|ico|svg|icc|url> <seconds>}"
case "$decoder" in
  jpeg) patterns=("*.jpg" "*.jpeg") ;;
  png) patterns=("*.png") ;;
  webp) patterns=("*.webp") ;;
  gif) patterns=("*.gif") ;;
  heif) patterns=("*.heic") ;;
  avif) patterns=("*.avif") ;;
  jxl) patterns=("*.jxl") ;;
  tiff) patterns=("*.tif" "*.tiff") ;;
  bmp) patterns=("*.bmp") ;;
  ico) patterns=("*.ico") ;;
  svg) patterns=("*.svg") ;;  # drawn by librsvg and sanitised (Fuzz/LoupeCodecsFuzz/SVGFuzzDecoder.swift)
  icc) patterns=("*.icc") ;;   # the profiles of Corpus/color/profiles, fed as JPEG ICC profiles
  url) patterns=() ;;
  *) echo "fuzz: unknown decoder $decoder" >&2; exit 2 ;;
esac
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
bash Scripts/fetch-corpus.sh >/dev/null

scratch=".build-fuzz"
mkdir -p "$scratch"
product=LoupeCodecsFuzz
[ "$decoder" = url ] && product=LoupeURLFuzz
# One build for all the decoders; a lock keeps concurrent runs from building at once.
(
  flock 9
  swift build -c debug --scratch-path "$scratch" --product "$product" \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLOUPE_FUZZING \
    -Xcc -fsanitize=fuzzer-no-link,address >&2
) 9>"$scratch/build.lock"
binary="$scratch/debug/$product"

seeds="$scratch/seeds-$decoder"
work="$scratch/corpus-$decoder"
crashes="$scratch/crashes-$decoder"
mkdir -p "$seeds" "$work" "$crashes"
if [ "$decoder" = url ]; then
  # Two leading bytes (the source's size, the preset mode), then a path: every option string of
  # the geometry cases, and every imgproxy path the documentation shows.
  { grep -ho '\.init("[^"]*"' Tests/LoupeServerTests/ImgproxyGeometryCases*.swift | sed 's/^\.init("//; s/"$//' \
      | sed 's#^#/insecure/#; s#$#/plain/http://127.0.0.1/a.jpg@png#'
    grep -ho '/insecure/[^ "`)]*' docs/*.md README.md
  } | sort -u | head -2000 | while IFS= read -r path; do
    name="$(printf '%s' "$path" | md5sum | cut -c1-16)"
    [ -f "$seeds/$name" ] || printf '\x27\x13%s' "$path" > "$seeds/$name"
  done
fi
# Seeds get a leading option byte (0: plain full decode), as the target expects.
for pattern in "${patterns[@]}"; do
  find Corpus -name "$pattern" -size -2M -print0
done | while IFS= read -r -d '' file; do
  name="$(echo "$file" | tr '/' '_')"
  [ -f "$seeds/$name" ] || { printf '\0' > "$seeds/$name"; cat "$file" >> "$seeds/$name"; }
done

max_len=262144
[ "$decoder" = url ] && max_len=4096
LOUPE_FUZZ_DECODER="$decoder" ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
  "$binary" "$work" "$seeds" -max_total_time="$seconds" -max_len="$max_len" -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$crashes/" -print_final_stats=1
