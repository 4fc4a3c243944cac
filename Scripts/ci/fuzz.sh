#!/usr/bin/env bash
# Runs the libFuzzer target for one decoder (or the ICC profile path) for a given time:
#   Scripts/ci/fuzz.sh <jpeg|png|webp|gif|heif|avif|jxl|icc> <seconds>
# Builds LoupeCodecsFuzz with -sanitize=fuzzer,address (Swift and the C shim; the system codec
# libraries are not instrumented, but AddressSanitizer's allocator and LeakSanitizer still see
# their heap), seeds it from the corpus (Scripts/fetch-corpus.sh), and keeps new inputs in
# .build-fuzz/corpus-<decoder>/ and crashes in .build-fuzz/crashes-<decoder>/.
set -euo pipefail
cd "$(dirname "$0")/../.."
decoder="${1:?usage: Scripts/ci/fuzz.sh <jpeg|png|webp|gif|heif|avif|jxl|icc> <seconds>}"
seconds="${2:?usage: Scripts/ci/fuzz.sh <jpeg|png|webp|gif|heif|avif|jxl|icc> <seconds>}"
case "$decoder" in
  jpeg) patterns=("*.jpg" "*.jpeg") ;;
  png) patterns=("*.png") ;;
  webp) patterns=("*.webp") ;;
  gif) patterns=("*.gif") ;;
  heif) patterns=("*.heic") ;;
  avif) patterns=("*.avif") ;;
  jxl) patterns=("*.jxl") ;;
  icc) patterns=("*.icc") ;;   # the profiles of Corpus/color/profiles, fed as JPEG ICC profiles
  *) echo "fuzz: unknown decoder $decoder" >&2; exit 2 ;;
esac
command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
bash Scripts/fetch-corpus.sh >/dev/null

scratch=".build-fuzz"
mkdir -p "$scratch"
# One build for all the decoders; a lock keeps concurrent runs from building at once.
(
  flock 9
  swift build -c debug --scratch-path "$scratch" --product LoupeCodecsFuzz \
    -Xswiftc -sanitize=fuzzer,address -Xswiftc -DLOUPE_FUZZING \
    -Xcc -fsanitize=fuzzer-no-link,address >&2
) 9>"$scratch/build.lock"
binary="$scratch/debug/LoupeCodecsFuzz"

seeds="$scratch/seeds-$decoder"
work="$scratch/corpus-$decoder"
crashes="$scratch/crashes-$decoder"
mkdir -p "$seeds" "$work" "$crashes"
# Seeds get a leading option byte (0: plain full decode), as the target expects.
for pattern in "${patterns[@]}"; do
  find Corpus -name "$pattern" -size -2M -print0
done | while IFS= read -r -d '' file; do
  name="$(echo "$file" | tr '/' '_')"
  [ -f "$seeds/$name" ] || { printf '\0' > "$seeds/$name"; cat "$file" >> "$seeds/$name"; }
done

LOUPE_FUZZ_DECODER="$decoder" ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
  "$binary" "$work" "$seeds" -max_total_time="$seconds" -max_len=262144 -rss_limit_mb=2048 -timeout=10 \
  -artifact_prefix="$crashes/" -print_final_stats=1
