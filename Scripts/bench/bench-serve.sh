#!/usr/bin/env bash
# `loupe serve` beside thumbor 7.8 (PyPI) on this machine, in one run: wrk (Debian) sends the
# same operations to both, JPEG quality 80, for ~2-megapixel photos served by nginx on loopback.
# Three workloads:
#   cold: fit within 512x512, every URL distinct (no cache can help: each request downloads,
#         decodes, resizes, encodes);
#   warm: the same, a repeated set of 16 URLs (loupe's result cache, thumbor's file result storage);
#   fill: fill 300x300 at the centre (thumbor's /unsafe/300x300/), every URL distinct; its CPU per
#         request is also set beside cold's fit for loupe (the cost of cutting beside scaling).
# Prints req/s, p50 / p99 latency, CPU per request and peak RSS side by side, with the ratio.
#   Scripts/bench/bench-serve.sh [seconds per run] [connections]     (default 15 s, 4 connections)
#   LOUPE_BIN=path/to/loupe to use a loupe already built (default: the release build in .build,
#   brought up to date here).
# thumbor runs as many processes as cores; loupe serve with its defaults (workers = cores).
# Everything listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration="${1:-15}"
connections="${2:-4}"
source Scripts/setup.sh
bash Scripts/fetch-corpus.sh >/dev/null
if [ -z "${LOUPE_BIN:-}" ]; then
  echo "== building loupe (release)" >&2
  swift build -c release --product loupe >&2
  LOUPE_BIN=.build/release/loupe
fi
cores=$(nproc)

source Scripts/bench/bench-sources.sh
bench_workdir serve
# The sources: ~2-megapixel photos from nginx on loopback.
thumbor_venv
bench_sources "$work"

start_servers --allow-unsigned --queue 1000 -- "ALLOW_UNSAFE_URL = True" \
  "RESULT_STORAGE = 'thumbor.result_storages.file_storage'" "RESULT_STORAGE_FILE_STORAGE_ROOT_PATH = '$work/thumbor-results'" \
  "RESULT_STORAGE_STORES_UNSAFE = True" "RESULT_STORAGE_EXPIRATION_SECONDS = 3600"

# URL lists. $1: name, $2: count, $3: "cold" (fit, all distinct), "warm" (fit, 16 repeated) or
# "fill" (fill 300x300 at the centre, all distinct).
paths() {
  local server=$1 count=$2 kind=$3 run=$4 i name size
  for ((i = 0; i < count; i++)); do
    if [ "$kind" = warm ]; then size=$((i % 16)); else size=$i; fi
    # The photo follows the size segment, so the warm set is 16 URLs (naming the photo by i
    # made it 80, 64 of them cold during the warm run).
    name=${photos[$((size % ${#photos[@]}))]}
    local source="$origin/p/$run/$size/$name.jpg"
    case "$server-$kind" in
      loupe-fill) echo "/insecure/rs:fill:300:300/g:ce/q:80/plain/$source@jpg" ;;
      loupe-*) echo "/insecure/rs:fit:512:512/q:80/plain/$source@jpg" ;;
      thumbor-fill) echo "/unsafe/300x300/filters:quality(80)/$source" ;;
      *) echo "/unsafe/fit-in/512x512/filters:quality(80)/$source" ;;
    esac
  done
}

# run <server> <pid> <port> <kind>: wrk_measure's line for `kind`'s paths on `server`.
run() {
  local server=$1 pid=$2 port=$3 kind=$4 run_id="$1-$4-$RANDOM$RANDOM"
  paths "$server" 20000 "$kind" "$run_id" > "$work/$run_id.txt"
  if [ "$kind" = warm ]; then  # fill the result caches first
    for path in $(head -16 "$work/$run_id.txt"); do curl -s -o /dev/null "http://127.0.0.1:$port$path"; done
  fi
  wrk_measure "$pid" "$port" "$work/$run_id.txt" "$duration" "$connections"
}

echo "== measuring: $duration s per run, $connections connections, A B A B" >&2
declare -A result
for round in 1 2; do
  for kind in cold warm fill; do
    result[loupe-$kind-$round]=$(run loupe "$loupe_pid" "$loupe_port" "$kind")
    result[thumbor-$kind-$round]=$(run thumbor "$thumbor_pid" "$thumbor_port" "$kind")
  done
done
loupe_rss=$(peak_rss "$loupe_pid")
thumbor_rss=$(peak_rss "$thumbor_pid")

# The memory bound: 64 concurrent requests for distinct ~2 MP sources, loupe alone; its peak
# RSS afterwards covers the whole run (the kernel's high-water mark).
echo "== memory: 64 connections, distinct sources, ${duration} s" >&2
paths loupe 20000 cold "loupe-memory-$RANDOM$RANDOM" > "$work/memory.txt"
memory_out=$(wrk -t 2 -c 64 -d "${duration}s" --timeout 30s -s Scripts/bench/wrk-paths.lua "http://127.0.0.1:$loupe_port" -- "$work/memory.txt" 2 2>&1)
echo "$memory_out" > "$work/memory.wrk"
memory_requests=$(echo "$memory_out" | awk '/requests in/ { print $1 }')
memory_non2xx=$(echo "$memory_out" | awk '/Non-2xx/ { print $NF }')
loupe_rss_64=$(peak_rss "$loupe_pid")

echo "cold and warm: fit within 512x512; fill: 300x300 at the centre; JPEG q80, ~2 MP photos from nginx on loopback; $cores cores, wrk -c $connections, ${duration} s per run, best of 2 rounds:"
printf "%-6s %-8s %10s %10s %10s %14s %10s\n" "" "server" "req/s" "p50 ms" "p99 ms" "CPU ms/req" "KB/resp"
for kind in cold warm fill; do
  best() { printf '%s\n%s\n' "${result[$1-$kind-1]}" "${result[$1-$kind-2]}" | sort -k1 -n -r | head -1; }
  l=$(best loupe); t=$(best thumbor)
  printf "%-6s %-8s %10s %10s %10s %14s %10s\n" "$kind" loupe $l
  printf "%-6s %-8s %10s %10s %10s %14s %10s\n" "" thumbor $t
  # req/s: loupe over thumbor; CPU per request: thumbor over loupe (how many times less loupe spends).
  awk -v l="$l" -v t="$t" 'BEGIN { split(l, a, " "); split(t, b, " ")
    printf "%-6s %-8s %9.2fx %35.2fx less\n", "", "ratio", a[1] / b[1], (a[4] > 0 ? b[4] / a[4] : 0) }'
done
best_of() { printf '%s\n%s\n' "${result[$1-1]}" "${result[$1-2]}" | sort -k1 -n -r | head -1; }
awk -v fill="$(best_of loupe-fill)" -v fit="$(best_of loupe-cold)" 'BEGIN { split(fill, a, " "); split(fit, b, " ")
  printf "loupe CPU per request, fill 300x300 over cold fit 512: %.3f / %.3f ms = %.2fx\n", a[4], b[4], (b[4] > 0 ? a[4] / b[4] : 0) }'
awk -v l="$loupe_rss" -v t="$thumbor_rss" -v n="$cores" 'BEGIN { printf "peak RSS: loupe %.0f MB, thumbor %.0f MB (%d processes)\n", l / 1024, t / 1024, n }'
awk -v r="$loupe_rss_64" -v n="$memory_requests" -v bad="${memory_non2xx:-0}" 'BEGIN {
  printf "peak RSS at 64 concurrent requests for distinct sources: loupe %.0f MB (%d requests, %d not 200)\n", r / 1024, n, bad }'
