#!/usr/bin/env bash
# `loupe serve` under overload (a flood of distinct requests): 64 clients, each sending DISTINCT
# `rs:fill:300:300` requests one after another for ~12-megapixel JPEG photos served by nginx on
# loopback, for a bounded time; then the same against a server started with `--queue 8`.
# Prints, per run: the latency distribution of successful requests (p50 / p90 / p99 / max),
# the count of each status, how long the 429s took, and the server's peak RSS.
#   Scripts/bench/bench-overload.sh [seconds per run] [clients]     (default 30 s, 64 clients)
#   LOUPE_BIN=path/to/loupe to use a loupe already built (default: the release build in
#   .build-release, brought up to date here).
# The sources: the corpus's real photos (scikit-image's) are all under a megapixel, so each
# source is four of them, each upscaled to 2000x1500 and tiled 2x2 into 4000x3000, with mild
# Gaussian noise (sensor-like grain, so the file size is a photo's, not a smooth upscale's),
# written at JPEG quality 95 (about 8 MB, as a 12-megapixel camera JPEG). Every URL is distinct
# (nginx serves any /p/<id>/<name>.jpg).
# Clients honour Retry-After on 429 (waiting it out, up to the run's end), as a polite client
# does; a client whose request failed otherwise sends its next at once. Everything on 127.0.0.1.
set -euo pipefail
cd "$(dirname "$0")/../.."
duration="${1:-30}"
clients="${2:-64}"
source Scripts/setup.sh
bash Scripts/fetch-corpus.sh >/dev/null

source Scripts/bench/bench-sources.sh
loupe_bin
bench_workdir overload
echo "== sources: 4000x3000 JPEG, tiled from the corpus's photos" >&2
mkdir -p "$work/root" "$work/tmp"
count=${#photos[@]}
for ((i = 0; i < count; i++)); do
  tiles=()
  for ((j = 0; j < 4; j++)); do
    name=${photos[$(((i + j) % count))]}
    vips thumbnail "$(ls Corpus/skimage/$name.* | head -1)" "$work/tile-$i-$j.v" 2000 --height 1500 --size force
    tiles+=("$work/tile-$i-$j.v")
  done
  vips arrayjoin "${tiles[*]}" "$work/joined-$i.v" --across 2
  vips gaussnoise "$work/noise-$i.v" 4000 3000 --sigma 10 --mean 0
  vips add "$work/joined-$i.v" "$work/noise-$i.v" "$work/noisy-$i.v"
  vips cast "$work/noisy-$i.v" "$work/root/${photos[$i]}.jpg[Q=95]" uchar
  rm -f "$work"/*.v
done
# nginx, as the other service benchmarks run it, over these files.
bench_origin "$work"
sizes=$(for name in "${photos[@]}"; do stat -c %s "$work/root/$name.jpg"; done | awk '{ s += $1 } END { printf "%.1f", s / NR / 1048576 }')

# The load: `clients` threads with a kept-alive connection each, for `duration` seconds; prints
# one line per answer, "status seconds", to standard output.
cat > "$work/clients.py" <<'PY'
import http.client, sys, threading, time
port, origin, duration, clients, run = int(sys.argv[1]), sys.argv[2], float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
names = sys.argv[6].split(",")
counter = iter(range(10**9))
lock = threading.Lock()
answers = []
end = time.monotonic() + duration

def client():
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=duration + 60)
    while time.monotonic() < end:
        with lock:
            n = next(counter)
        path = f"/insecure/rs:fill:300:300/plain/{origin}/p/{run}/{n}/{names[n % len(names)]}.jpg"
        start = time.monotonic()
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            status, retry_after = response.status, response.getheader("Retry-After")
        except Exception:
            connection.close()
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=duration + 60)
            status, retry_after = 0, None
        elapsed = time.monotonic() - start
        with lock:
            answers.append((status, elapsed))
        if status == 429 and retry_after and retry_after.isdigit():
            time.sleep(max(0.0, min(float(retry_after), end - time.monotonic())))
    connection.close()

threads = [threading.Thread(target=client) for _ in range(clients)]
for thread in threads: thread.start()
for thread in threads: thread.join()
for status, elapsed in answers: print(status, f"{elapsed:.4f}")
PY

# run <label> <extra loupe flags...>: a fresh server (default settings, a cache folder), the load,
# then its figures.
run() {
  local label=$1; shift
  local port cache pid
  port=$(free_port)
  cache="$work/cache-$label"
  "$LOUPE_BIN" serve --port "$port" --allow-unsigned --permit-addresses 127.0.0.1 --quiet --cache-dir "$cache" "$@" \
    >/dev/null 2>"$work/loupe-$label.log" &
  pid=$!
  pids+=("$pid")
  wait_port "$port"
  python3 "$work/clients.py" "$port" "$origin" "$duration" "$clients" "$label-$RANDOM$RANDOM" "$(IFS=,; echo "${photos[*]}")" \
    > "$work/answers-$label.txt"
  local rss
  rss=$(awk '/VmHWM/ { print $2 }' "/proc/$pid/status")
  kill "$pid"; wait "$pid" 2>/dev/null || true
  echo "-- $label (loupe serve $*): $clients clients, ${duration} s, rs:fill:300:300 of 4000x3000 JPEGs (${sizes} MB on average)"
  python3 - "$work/answers-$label.txt" "$rss" <<'PY'
import collections, math, sys
answers = [line.split() for line in open(sys.argv[1])]
counts = collections.Counter(status for status, _ in answers)
ok = sorted(float(seconds) for status, seconds in answers if status == "200")
refused = [float(seconds) for status, seconds in answers if status == "429"]
pct = lambda p: ok[min(len(ok) - 1, max(0, math.ceil(p * len(ok)) - 1))]
print(f"answers: {len(answers)};", ", ".join(f"{'failed' if s == '0' else s}: {n}" for s, n in sorted(counts.items())))
if ok:
    print(f"200 latency: p50 {pct(0.5):.2f} s, p90 {pct(0.9):.2f} s, p99 {pct(0.99):.2f} s, max {ok[-1]:.2f} s (p99/p50 {pct(0.99) / pct(0.5):.2f})")
if refused:
    print(f"429 latency: mean {sum(refused) / len(refused) * 1000:.1f} ms, max {max(refused) * 1000:.1f} ms")
print(f"peak RSS: {int(sys.argv[2]) / 1024:.0f} MB")
PY
}

echo "== measuring (the machine may be shared: figures are noisy)" >&2
run defaults
run queue-8 --queue 8
