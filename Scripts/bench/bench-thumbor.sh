#!/usr/bin/env bash
# The same thumbor URLs served by `loupe serve` and by thumbor 7.8 (PyPI, with its OpenCV
# detectors) in one run: fit-in, a manual crop, a centred fill, smart (faces, then features), and
# three filters (brightness, contrast, blur). wrk (Debian) sends each workload to loupe, then to
# thumbor, round after round (A B A B); every URL is distinct, so no cache helps.
# The sources are real photos at their own size, none upscaled: thumbor's own fixtures from its
# source distribution on PyPI (two portraits of 7 and 0.2 MB, a group photo of 8 MB, an 800 px
# portrait) and the corpus's motorcycle (2964x2000), served by nginx on loopback.
# Prints, per workload, the median over the rounds of req/s and CPU per request for each, and
# the ratios.
#   Scripts/bench/bench-thumbor.sh [seconds per run] [connections] [rounds]   (default 15 s, 4, 3)
#   LOUPE_BIN=path/to/loupe to use a loupe already built (default: the release build in
#   .build-release, brought up to date here).
# thumbor runs as many processes as cores; loupe serve with its defaults. Everything on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/bench-sources.sh
bench_run thumbor "$@"
thumbor_venv opencv

real_photos "$work"
bench_origin "$work"

start_servers --thumbor-allow-unsafe --queue 1000 -- "ALLOW_UNSAFE_URL = True" \
  "RESULT_STORAGE = 'thumbor.result_storages.no_storage'" \
  "DETECTORS = ['thumbor.detectors.face_detector', 'thumbor.detectors.feature_detector']"

# The operation of each workload, as a thumbor URL's options (both servers get the same paths).
declare -A operation=(
  [fit-in]="fit-in/512x512/filters:quality(80)"
  [crop]="40x40:840x640/300x200/filters:quality(80)"
  [fill]="300x300/filters:quality(80)"
  [smart]="300x300/smart/filters:quality(80)"
  [brightness]="fit-in/512x512/filters:brightness(20):quality(80)"
  [contrast]="fit-in/512x512/filters:contrast(30):quality(80)"
  [blur]="fit-in/512x512/filters:blur(4):quality(80)"
)
workloads=(fit-in crop fill smart brightness contrast blur)
paths() {
  local kind=$1 run=$2 i
  for ((i = 0; i < 20000; i++)); do
    echo "/unsafe/${operation[$kind]}/$origin/p/$run/$i/${photos[$((i % ${#photos[@]}))]}.jpg"
  done
}

# measure <workload> <server> <run id>
measure() {
  local pid=$loupe_pid port=$loupe_port
  [ "$2" = thumbor ] && pid=$thumbor_pid port=$thumbor_port
  paths "$1" "$3" > "$work/$3.txt"
  wrk_measure "$pid" "$port" "$work/$3.txt" "$duration" "$connections"
}
measure_rounds "${workloads[*]}" "loupe thumbor"

echo "thumbor URLs on real photos (5, 0.2-8 MB), JPEG q80; $(nproc) cores, wrk -c $connections, ${duration} s per run, median of $rounds rounds:"
printf "%-11s %-8s %10s %10s %10s %14s\n" "" "server" "req/s" "p50 ms" "p99 ms" "CPU ms/req"
for kind in "${workloads[@]}"; do
  for server in loupe thumbor; do
    printf "%-11s %-8s %10s %10s %10s %14s\n" "$([ "$server" = loupe ] && echo "$kind")" "$server" \
      "$(median_of "$kind-$server" 1)" "$(median_of "$kind-$server" 2)" "$(median_of "$kind-$server" 3)" "$(median_of "$kind-$server" 4)"
  done
  awk -v lr="$(median_of "$kind-loupe" 1)" -v tr="$(median_of "$kind-thumbor" 1)" \
    -v lc="$(median_of "$kind-loupe" 4)" -v tc="$(median_of "$kind-thumbor" 4)" \
    'BEGIN { printf "%-11s %-8s %9.2fx %35.2fx less\n", "", "ratio", (tr > 0 ? lr / tr : 0), (lc > 0 ? tc / lc : 0) }'
done
