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
bench_setup
loupe_bin
duration="${1:-15}" connections="${2:-4}" rounds="${3:-3}"
bench_workdir thumbor
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

echo "== measuring: $duration s per run, $connections connections, $rounds rounds, A B A B" >&2
declare -A result
for ((round = 1; round <= rounds; round++)); do
  for kind in "${workloads[@]}"; do
    for server in loupe thumbor; do
      pid=$loupe_pid port=$loupe_port
      [ "$server" = thumbor ] && pid=$thumbor_pid port=$thumbor_port
      run_id="$server-$kind-$round-$RANDOM$RANDOM"
      paths "$kind" "$run_id" > "$work/$run_id.txt"
      result[$server-$kind-$round]=$(wrk_measure "$pid" "$port" "$work/$run_id.txt" "$duration" "$connections")
      echo "   round $round $kind $server: ${result[$server-$kind-$round]}" >&2
    done
  done
done

echo "thumbor URLs on real photos (5, 0.2-8 MB), JPEG q80; $(nproc) cores, wrk -c $connections, ${duration} s per run, median of $rounds rounds:"
printf "%-11s %-8s %10s %10s %10s %14s\n" "" "server" "req/s" "p50 ms" "p99 ms" "CPU ms/req"
median_of() {
  local column=$2 round
  for ((round = 1; round <= rounds; round++)); do echo "${result[$1-$round]}" | awk -v c="$column" '{ print $c }'; done \
    | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
for kind in "${workloads[@]}"; do
  for server in loupe thumbor; do
    printf "%-11s %-8s %10s %10s %10s %14s\n" "$([ "$server" = loupe ] && echo "$kind")" "$server" \
      "$(median_of "$server-$kind" 1)" "$(median_of "$server-$kind" 2)" "$(median_of "$server-$kind" 3)" "$(median_of "$server-$kind" 4)"
  done
  awk -v lr="$(median_of "loupe-$kind" 1)" -v tr="$(median_of "thumbor-$kind" 1)" \
    -v lc="$(median_of "loupe-$kind" 4)" -v tc="$(median_of "thumbor-$kind" 4)" \
    'BEGIN { printf "%-11s %-8s %9.2fx %35.2fx less\n", "", "ratio", (tr > 0 ? lr / tr : 0), (lc > 0 ? tc / lc : 0) }'
done
