#!/usr/bin/env bash
# An animated GIF resized by `loupe serve` and by thumbor 7.8 (PyPI; it keeps GIF animation
# through gifsicle), in one run: a 50-frame 480x270 GIF cut from the corpus's photos (Pillow,
# Scripts/conformance/animation_reference.py strip), served by nginx on loopback, filled to
# 100x100 (loupe `rs:fill:100:100` with --max-animation-frames 100, thumbor `/unsafe/100x100/`),
# every URL distinct so that no cache helps. Rounds alternate loupe, thumbor (A B A B ...); each
# round sends N requests, 2 at a time, and reads the server's CPU time (its processes and their
# children, so gifsicle counts for thumbor) before and after. Prints CPU ms per request per round
# and the medians, plus what each answered (frames, size, bytes; read back with Pillow).
#   Scripts/bench/bench-animation.sh [requests per round] [rounds]     (default 40, 3)
# LOUPE_BIN=path uses that loupe binary instead of building the release one.
# Everything listens on 127.0.0.1 only.
set -euo pipefail
cd "$(dirname "$0")/../.."
requests="${1:-40}"
rounds="${2:-3}"
source Scripts/setup.sh
bash Scripts/fetch-corpus.sh >/dev/null
bash Scripts/conformance/venv.sh >/dev/null
loupe="${LOUPE_BIN:-}"
if [ -z "$loupe" ]; then
  echo "== building loupe (release)" >&2
  swift build -c release --product loupe >&2
  loupe=.build/release/loupe
fi
cores=$(nproc)

source Scripts/bench/bench-sources.sh
bench_workdir animation
thumbor_venv
mkdir -p "$work/root"
photo_files=()
for name in "${photos[@]}"; do photo_files+=("$(ls Corpus/skimage/$name.* | head -1)"); done
.venv-conformance/bin/python Scripts/conformance/animation_reference.py strip "$work/root/anim.gif" 50 480 270 "${photo_files[@]}"
source_info=$(.venv-conformance/bin/python Scripts/conformance/animation_reference.py describe "$work/root/anim.gif")
bench_origin "$work"

loupe_port=$(free_port)
"$loupe" serve --port "$loupe_port" --allow-unsigned --permit-addresses 127.0.0.1 --quiet --max-animation-frames 100 \
  --queue 1000 >/dev/null 2>"$work/loupe.log" & pids+=($!)
loupe_pid=$!
thumbor_port=$(free_port)
cat > "$work/thumbor.conf" <<CONF
ALLOW_UNSAFE_URL = True
LOADER = 'thumbor.loaders.http_loader'
STORAGE = 'thumbor.storages.no_storage'
RESULT_STORAGE = None
USE_GIFSICLE_ENGINE = True
ALLOW_ANIMATED_GIFS = True
CONF
.venv-thumbor/bin/thumbor --ip 127.0.0.1 --port "$thumbor_port" --processes "$cores" -c "$work/thumbor.conf" -l error \
  >"$work/thumbor.log" 2>&1 & pids+=($!)
thumbor_pid=$!
for port in "$loupe_port" "$thumbor_port"; do
  wait_port "$port" || { tail -n 20 "$work"/*.log >&2; exit 1; }
done

path() {  # path <server> <unique>
  case "$1" in
    loupe) echo "/insecure/rs:fill:100:100/plain/$origin/p/$2/anim.gif" ;;
    thumbor) echo "/unsafe/100x100/$origin/p/$2/anim.gif" ;;
  esac
}
# CPU ticks (user + system) of a process, its children and their children (thumbor's workers and
# the gifsicle processes they ran and waited for).
cpu_ticks() {
  local total=0 p
  for p in $(pgrep -P "$1") "$1"; do total=$((total + $(awk '{ print $14 + $15 + $16 + $17 }' "/proc/$p/stat" 2>/dev/null || echo 0))); done
  echo "$total"
}
ticks=$(getconf CLK_TCK)

# One answer of each, checked before measuring: both must stay animated.
for server in loupe thumbor; do
  port=$([ "$server" = loupe ] && echo "$loupe_port" || echo "$thumbor_port")
  curl -sf -o "$work/$server-answer" "http://127.0.0.1:$port$(path "$server" "check-$server")"
  echo "$server answer: $(.venv-conformance/bin/python Scripts/conformance/animation_reference.py describe "$work/$server-answer" \
    | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["format"], d["frames"], "frames", "x".join(map(str, d["sizes"][0])))'), $(stat -c %s "$work/$server-answer") bytes"
done

# round <server> <pid> <port> <id>: CPU ms per request over $requests distinct URLs, 2 at a time.
round() {
  local server=$1 pid=$2 port=$3 id=$4 before after failed
  for ((i = 0; i < requests; i++)); do echo "http://127.0.0.1:$port$(path "$server" "$id-$i")"; done > "$work/urls-$id"
  before=$(cpu_ticks "$pid")
  failed=$(xargs -P 2 -n 1 curl -s -o /dev/null -w '%{http_code}\n' < "$work/urls-$id" | grep -vc '^200$' || true)
  after=$(cpu_ticks "$pid")
  [ "$failed" = 0 ] || echo "warning: $server round $id: $failed answers not 200" >&2
  awk -v c=$((after - before)) -v t="$ticks" -v n="$requests" 'BEGIN { printf "%.1f\n", c / t * 1000 / n }'
}

echo "source: $(echo "$source_info" | python3 -c 'import json, sys; d = json.load(sys.stdin); print(d["frames"], "frames", "x".join(map(str, d["sizes"][0])))'), $(stat -c %s "$work/root/anim.gif") bytes; $requests requests per round, 2 at a time, $cores cores"
loupe_results=(); thumbor_results=()
for ((r = 1; r <= rounds; r++)); do
  loupe_results+=("$(round loupe "$loupe_pid" "$loupe_port" "l$r")")
  thumbor_results+=("$(round thumbor "$thumbor_pid" "$thumbor_port" "t$r")")
  echo "round $r: loupe ${loupe_results[-1]} ms CPU/request, thumbor ${thumbor_results[-1]} ms CPU/request"
done
median() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
l=$(median "${loupe_results[@]}"); t=$(median "${thumbor_results[@]}")
awk -v l="$l" -v t="$t" 'BEGIN { printf "median CPU per request: loupe %.1f ms, thumbor %.1f ms (thumbor / loupe %.2fx)\n", l, t, (l > 0 ? t / l : 0) }'
