#!/usr/bin/env bash
# The proxy tier's cost and gain: wrk against one `loupe serve` instance directly, then through
# nginx (Scripts/ops/cluster.sh, deploy/nginx.conf) with 1 and with 2 instances, for the same
# operation as Scripts/bench/bench-serve.sh — fit within 512x512, JPEG quality 80, ~2-megapixel photos
# served by another nginx on loopback. Two workloads:
#   cold: every URL distinct (every request reaches an instance: download, decode, resize, encode);
#   warm: a repeated set of 16 URLs (nginx's cache through nginx; the instance's result cache direct).
# Rounds run A B A B (direct, nginx+1, nginx+2, then again); each figure is the median of the
# rounds, and ratios are against the direct instance. The machine is shared: the load average is
# printed with the results.
#   Scripts/bench/bench-cluster.sh [seconds per run] [connections] [rounds]   (default 8 s, 8, 3)
# Everything listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration="${1:-8}"
connections="${2:-8}"
rounds="${3:-3}"
source Scripts/setup.sh
# Only the corpus's photographs are needed.
ls Corpus/skimage/rocket.* >/dev/null 2>&1 || bash Scripts/fetch-corpus.sh >/dev/null
echo "== building loupe (release)" >&2
swift build -c release --product loupe >&2

source Scripts/bench/bench-sources.sh
bench_workdir cluster

# The cluster: unsigned URLs (wrk's paths need no signing), sources on loopback.
export LOUPE_CLUSTER_DIR="$work/cluster" LOUPE_CLUSTER_PORT LOUPE_BIN="$PWD/.build/release/loupe"
# No access log and a long queue, as bench-serve.sh's instance.
export LOUPE_ALLOW_UNSIGNED=true LOUPE_PERMIT_ADDRESSES=127.0.0.1 LOUPE_QUEUE=1000 LOUPE_CLUSTER_SERVE_ARGS=--quiet
unset LOUPE_KEY LOUPE_SALT
LOUPE_CLUSTER_PORT=$(free_port)
while ! python3 -c "import socket,sys; [socket.socket().bind(('127.0.0.1', $LOUPE_CLUSTER_PORT + i)) for i in (1, 2)]" 2>/dev/null; do
  LOUPE_CLUSTER_PORT=$(free_port)
done
# The cluster's instances first, then what bench_workdir stops and removes.
trap 'bash Scripts/ops/cluster.sh stop >/dev/null 2>&1 || true; bench_cleanup' EXIT

# The sources: ~2-megapixel photos from nginx on loopback (as bench-serve.sh).
bench_sources "$work"

# run <port> <kind>: prints "req/s p50_ms p99_ms"
run() {
  local port=$1 kind=$2 id="run-$RANDOM$RANDOM" i size count=20000
  for ((i = 0; i < count; i++)); do
    if [ "$kind" = warm ]; then size=$((i % 16)); else size=$i; fi
    echo "/insecure/rs:fit:512:512/q:80/plain/$origin/p/$id/$size/${photos[$((i % ${#photos[@]}))]}.jpg@jpg"
  done > "$work/$id.txt"
  if [ "$kind" = warm ]; then  # fill the caches first
    for path in $(head -16 "$work/$id.txt"); do curl -s -o /dev/null "http://127.0.0.1:$port$path"; done
  fi
  local out
  out=$(wrk -t 2 -c "$connections" -d "${duration}s" --timeout 30s --latency -s Scripts/bench/wrk-paths.lua "http://127.0.0.1:$port" -- "$work/$id.txt" 2 2>&1)
  echo "$out" > "$work/$id.wrk"
  local non2xx; non2xx=$(echo "$out" | awk '/Non-2xx/ { print $NF }')
  [ -z "$non2xx" ] || echo "warning: port $port $kind: $non2xx non-2xx answers" >&2
  echo "$out" | awk 'function ms(x) { if (x ~ /us$/) return x / 1000; if (x ~ /ms$/) return x + 0; if (x ~ /s$/) return x * 1000; return x }
    /Requests\/sec/ { r = $2 } $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) }
    END { printf "%s %.1f %.1f\n", r, p50, p99 }'
}

echo "== measuring: $duration s per run, $connections connections, $rounds rounds A B A B" >&2
declare -A result
for round in $(seq 1 "$rounds"); do
  for kind in cold warm; do
    bash Scripts/ops/cluster.sh start 1 >/dev/null
    result[direct-$kind-$round]=$(run $((LOUPE_CLUSTER_PORT + 1)) "$kind")
    result[nginx1-$kind-$round]=$(run "$LOUPE_CLUSTER_PORT" "$kind")
    bash Scripts/ops/cluster.sh start 2 >/dev/null
    result[nginx2-$kind-$round]=$(run "$LOUPE_CLUSTER_PORT" "$kind")
    echo "round $round $kind: direct ${result[direct-$kind-$round]} | nginx+1 ${result[nginx1-$kind-$round]} | nginx+2 ${result[nginx2-$kind-$round]}" >&2
  done
done
load=$(cut -d' ' -f1-3 /proc/loadavg)

# The median of a column over the rounds, or (column "ratio") of each round's req/s over the
# direct instance's in the same round: the rounds' neighbours share the machine's state.
median() {
  local config=$1 kind=$2 column=$3 round
  for round in $(seq 1 "$rounds"); do
    if [ "$column" = ratio ]; then
      awk -v a="${result[$config-$kind-$round]%% *}" -v b="${result[direct-$kind-$round]%% *}" 'BEGIN { printf "%.3f\n", (b > 0 ? a / b : 0) }'
    else
      echo "${result[$config-$kind-$round]}" | cut -d' ' -f"$column"
    fi
  done | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
echo "fit within 512x512, JPEG q80, ~2 MP photos; $(nproc) cores; wrk -c $connections, ${duration} s per run, median of $rounds rounds; load average $load"
echo "ratio: the median over the rounds of req/s against the direct instance's in the same round"
printf "%-6s %-24s %10s %10s %10s %8s\n" "" "" "req/s" "p50 ms" "p99 ms" "ratio"
for kind in cold warm; do
  for config in direct nginx1 nginx2; do
    case $config in direct) label="1 instance, direct" ;; nginx1) label="nginx + 1 instance" ;; nginx2) label="nginx + 2 instances" ;; esac
    printf "%-6s %-24s %10s %10s %10s %7.2fx\n" "$kind" "$label" "$(median "$config" "$kind" 1)" "$(median "$config" "$kind" 2)" \
      "$(median "$config" "$kind" 3)" "$(median "$config" "$kind" ratio)"
  done
done
