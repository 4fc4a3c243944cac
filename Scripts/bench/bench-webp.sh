#!/usr/bin/env bash
# `loupe serve` on WebP sources beside the same photos as JPEG, in one run: fit within 512x512
# and fill 300x300, every URL distinct, for real photos at their own size (real_photos in
# bench-sources.sh, 0.1-22 megapixels), each written by libvips from the same pixels as JPEG
# and as lossy WebP, both at quality 90, served by nginx on loopback. Round after round, each
# workload on JPEG then WebP (A B A B); prints the median over the rounds of req/s and CPU per
# request, and WebP's CPU per request over JPEG's (printed as WebP over JPEG).
#   Scripts/bench/bench-webp.sh [seconds per run] [connections] [rounds]   (default 15 s, 4, 3)
#   LOUPE_BIN=path/to/loupe to use a loupe already built (default: the release build in
#   .build-release, brought up to date here). Everything on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/bench/bench-sources.sh
bench_run webp "$@"
thumbor_venv
real_photos "$work"
for name in "${photos[@]}"; do
  vips copy "$work/root/$name.jpg" "$work/$name.v"
  vips copy "$work/$name.v" "$work/root/$name.jpg[Q=90]"
  vips copy "$work/$name.v" "$work/root/$name.webp[Q=90]"
  rm "$work/$name.v"
done
bench_origin "$work"

loupe_port=$(free_port)
"$LOUPE_BIN" serve --port "$loupe_port" --allow-unsigned --permit-addresses 127.0.0.1 --quiet --cache-dir "$work/loupe-cache" \
  --queue 1000 >/dev/null 2>"$work/loupe.log" & pids+=($!)
loupe_pid=$!
wait_port "$loupe_port"

declare -A operation=([fit]="rs:fit:512:512" [fill]="rs:fill:300:300/g:ce")
paths() {
  local kind=$1 format=$2 run=$3 i
  for ((i = 0; i < 20000; i++)); do
    echo "/insecure/${operation[$kind]}/q:80/plain/$origin/p/$run/$i/${photos[$((i % ${#photos[@]}))]}.$format@jpg"
  done
}

# measure <kind> <format> <run id>
measure() {
  paths "$1" "$2" "$3" > "$work/$3.txt"
  wrk_measure "$loupe_pid" "$loupe_port" "$work/$3.txt" "$duration" "$connections"
}
measure_rounds "fit fill" "jpg webp"

echo "loupe serve, JPEG q80 results from real photos as JPEG and WebP sources (q90); $(nproc) cores, wrk -c $connections, ${duration} s per run, median of $rounds rounds:"
printf "%-5s %-7s %10s %14s\n" "" "source" "req/s" "CPU ms/req"
for kind in fit fill; do
  for format in jpg webp; do
    printf "%-5s %-7s %10s %14s\n" "$([ "$format" = jpg ] && echo "$kind")" "$format" "$(median_of "$kind-$format" 1)" "$(median_of "$kind-$format" 4)"
  done
  awk -v j="$(median_of "$kind-jpg" 4)" -v w="$(median_of "$kind-webp" 4)" 'BEGIN { printf "%-5s WebP over JPEG, CPU per request: %.2fx\n", "", (j > 0 ? w / j : 0) }'
done
