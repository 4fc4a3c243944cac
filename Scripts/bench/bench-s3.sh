#!/usr/bin/env bash
# `loupe serve` reading its sources from S3 beside reading them over HTTP, and serving results
# from a bucket (--result-storage) beside serving them from its own disk, in one run: Ceph's RADOS
# Gateway (Scripts/s3/gateway.sh) and nginx on loopback hold the same ~2-megapixel photos.
#   cold: fit within 512x512, JPEG q80, sizes cycling over 1,000 distinct results, with no cache
#         that could answer (no disk cache, memory caches off): every request downloads, decodes,
#         resizes and encodes. The same loupe process serves s3:// and http:// sources in turn.
#   warm: 16 results made beforehand, asked again and again, the result memory cache off: one
#         loupe reads them from its disk cache (--cache-dir), another from the bucket only.
# Prints req/s and loupe's CPU per request (user + system, its process only: not the gateway's,
# nor nginx's) per run, and the medians of the rounds, runs interleaved A B A B.
#   Scripts/bench/bench-s3.sh [seconds per run] [connections] [rounds]   (default 15 s, 4, 3)
#   LOUPE_BIN=path/to/loupe to use a loupe already built (default: the release build in .build,
#   brought up to date here).
# Everything listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration="${1:-15}"
connections="${2:-4}"
rounds="${3:-3}"
source Scripts/setup.sh
bash Scripts/fetch-corpus.sh >/dev/null
bash Scripts/conformance/venv.sh >/dev/null
if [ -z "${LOUPE_BIN:-}" ]; then
  echo "== building loupe (release)" >&2
  swift build -c release --product loupe >&2
  LOUPE_BIN=.build/release/loupe
fi

source Scripts/bench/bench-sources.sh
bench_workdir s3
bench_sources "$work"
gateway="$work/gateway"
stop_gateway() { bash Scripts/s3/gateway.sh stop "$gateway" >/dev/null 2>&1 || true; bench_cleanup; }
trap stop_gateway EXIT
echo "== RADOS Gateway" >&2
bash Scripts/s3/gateway.sh start "$gateway" >&2
for name in "${photos[@]}"; do
  .venv-conformance/bin/python Scripts/s3/client.py "$gateway" put bench-sources "p/$name.jpg" "$work/root/$name.jpg" >/dev/null
done
# The results' bucket, created as an operator would before starting the instances.
echo marker > "$work/marker"
.venv-conformance/bin/python Scripts/s3/client.py "$gateway" put bench-results marker "$work/marker" >/dev/null

export LOUPE_S3_ENDPOINT="$(cat "$gateway/endpoint")" AWS_SHARED_CREDENTIALS_FILE="$gateway/credentials"
common=(--allow-unsigned --permit-addresses 127.0.0.1 --quiet --queue 1000 --result-memory-limit 0)
start_loupe() {  # $1: name; the rest: arguments. Sets port_$1 and pid_$1.
  local name=$1 port; shift
  port=$(free_port)
  "$LOUPE_BIN" serve --port "$port" "${common[@]}" "$@" >/dev/null 2>"$work/$name.log" & pids+=($!)
  printf -v "pid_$name" '%s' "$!"
  printf -v "port_$name" '%s' "$port"
  wait_port "$port"
}
start_loupe cold --use-s3 --memory-limit 0
start_loupe disk --cache-dir "$work/disk-cache"
start_loupe bucket --result-storage s3://bench-results/warm

# paths <kind> <count>: cold-s3 and cold-http name the same photos and sizes; warm the same 16.
paths() {
  local kind=$1 count=$2 i name width source
  for ((i = 0; i < count; i++)); do
    if [[ $kind == warm ]]; then
      width=$((500 + i % 16))
      name=${photos[$((i % 16 % ${#photos[@]}))]}
    else
      width=$((412 + i % 200))
      name=${photos[$(((i / 200 + i) % ${#photos[@]}))]}
    fi
    case $kind in
      cold-s3) source="s3://bench-sources/p/$name.jpg" ;;
      *) source="$origin/p/bench/$name.jpg" ;;
    esac
    echo "/insecure/rs:fit:$width:$width/q:80/plain/$source@jpg"
  done
}

cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
ticks=$(getconf CLK_TCK)

# run <kind> <pid> <port>: prints "req/s cpu_ms_per_request"
run() {
  local kind=$1 pid=$2 port=$3 list="$work/$1-$RANDOM.txt" before after out
  paths "$kind" 20000 > "$list"
  before=$(cpu_ticks "$pid")
  out=$(wrk -t 2 -c "$connections" -d "${duration}s" -s Scripts/bench/wrk-paths.lua "http://127.0.0.1:$port" -- "$list" 2 2>&1)
  after=$(cpu_ticks "$pid")
  local requests rps non2xx
  requests=$(echo "$out" | awk '/requests in/ { print $1 }')
  rps=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
  non2xx=$(echo "$out" | awk '/Non-2xx/ { print $NF }')
  [ -z "$non2xx" ] || echo "warning: $kind: $non2xx non-2xx answers" >&2
  awk -v r="$rps" -v n="$requests" -v c=$((after - before)) -v t="$ticks" 'BEGIN { printf "%s %.3f\n", r, (n > 0 ? c / t * 1000 / n : 0) }'
}

# The warm sets made once, and the bucket's writes given time to land.
for port in "$port_disk" "$port_bucket"; do
  for path in $(paths warm 16); do curl -sf -o /dev/null "http://127.0.0.1:$port$path"; done
done
sleep 2

echo "== measuring: $duration s per run, $connections connections, $rounds rounds, A B A B" >&2
declare -A result
for ((round = 1; round <= rounds; round++)); do
  result[cold-http-$round]=$(run cold-http "$pid_cold" "$port_cold")
  result[cold-s3-$round]=$(run cold-s3 "$pid_cold" "$port_cold")
  result[warm-disk-$round]=$(run warm "$pid_disk" "$port_disk")
  result[warm-bucket-$round]=$(run warm "$pid_bucket" "$port_bucket")
  echo "round $round: cold http ${result[cold-http-$round]}, cold s3 ${result[cold-s3-$round]}," \
    "warm disk ${result[warm-disk-$round]}, warm bucket ${result[warm-bucket-$round]} (req/s, CPU ms/request)" >&2
done

median() {  # $1: run name, $2: field (1 req/s, 2 CPU ms/request)
  for ((round = 1; round <= rounds; round++)); do echo "${result[$1-$round]}" | awk -v f="$2" '{ print $f }'; done |
    sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
echo "fit 512, JPEG q80, ~2 MP photos; $(nproc) cores, wrk -c $connections, ${duration} s per run, medians of $rounds rounds:"
printf "%-12s %10s %14s\n" "" "req/s" "CPU ms/req"
for name in cold-http cold-s3 warm-disk warm-bucket; do
  printf "%-12s %10s %14s\n" "$name" "$(median "$name" 1)" "$(median "$name" 2)"
done
# What the bucket instance did: every warm request a lookup that hit, nothing made after warm-up.
curl -s "http://127.0.0.1:$port_bucket/metrics" | awk '/^loupe_result_storage_total|^loupe_pipeline_decodes / { printf "bucket instance: %s\n", $0 }'
awk -v s="$(median cold-s3 2)" -v h="$(median cold-http 2)" -v b="$(median warm-bucket 2)" -v d="$(median warm-disk 2)" 'BEGIN {
  printf "cold CPU per request, s3:// over http://: %.2fx\nwarm CPU per request, bucket over disk: %.2fx\n", s / h, b / d }'
