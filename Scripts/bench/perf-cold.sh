#!/usr/bin/env bash
# Kernel counters per request of `loupe serve` under cold fit (or fill) load: `perf stat`'s
# task-clock (ms), context switches, CPU migrations and page faults of the server process over
# one wrk run, divided by the requests answered. Each given binary in turn (list one twice for
# A B A B), each after a 3 s warm-up on other URLs; ~2-megapixel photos from nginx on loopback.
#   Scripts/bench/perf-cold.sh SECONDS cold|fill "ENV BINARY" ["ENV BINARY" ...]
# ENV is `-` or VAR=value (e.g. GLIBC_TUNABLES=…) given to that server. Needs linux-perf.
# Everything on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=$1; kind=$2; shift 2
source Scripts/bench/bench-sources.sh
bench_setup
bench_workdir perf
bench_sources "$work" >/dev/null 2>&1
for spec in "$@"; do
  envs=${spec% *}; bin=${spec##* }; [ "$envs" = "-" ] && envs=""
  port=$(free_port)
  env $envs "$bin" serve --port "$port" --permit-addresses 127.0.0.1 --quiet --cache-dir "$work/cache-$port" --allow-unsigned --queue 1000 >/dev/null 2>"$work/l.log" &
  pid=$!; pids+=($pid); wait_port "$port"
  rid="$RANDOM$RANDOM"
  for ((k=0;k<20000;k++)); do name=${photos[$((k % ${#photos[@]}))]}; src="$origin/p/$rid/$k/$name.jpg"
    if [ $kind = fill ]; then echo "/insecure/rs:fill:300:300/g:ce/q:80/plain/$src@jpg"; else echo "/insecure/rs:fit:512:512/q:80/plain/$src@jpg"; fi; done > "$work/$rid.txt"
  # warm up 3 s on other URLs
  head -2000 "$work/$rid.txt" | sed "s|/p/$rid/|/p/w$rid/|" > "$work/w$rid.txt"
  wrk -t 2 -c 4 -d 3s -s Scripts/bench/wrk-paths.lua "http://127.0.0.1:$port" -- "$work/w$rid.txt" 2 >/dev/null 2>&1
  perf stat -x, -e task-clock,context-switches,cpu-migrations,page-faults,cycles:u,cycles:k,instructions:u -p $pid -o "$work/perf.txt" -- sleep $((seconds + 1)) &
  perfpid=$!
  out=$(wrk -t 2 -c 4 -d "${seconds}s" -s Scripts/bench/wrk-paths.lua "http://127.0.0.1:$port" -- "$work/$rid.txt" 2 2>&1)
  wait $perfpid
  n=$(echo "$out" | awk '/requests in/ { print $1 }')
  echo "== $spec: $n requests; per request:"
  awk -F, -v n="$n" '$1 ~ /^[0-9.]+$/ { printf "   %-18s %12.1f\n", $3, $1 / n }' "$work/perf.txt"
  kill $pid; wait $pid 2>/dev/null || true
done
