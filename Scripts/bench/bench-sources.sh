# Sourced by the service benchmarks (bench-serve.sh, bench-thumbor.sh, bench-overload.sh, bench-animation.sh,
# bench-cluster.sh): their folder, their sources, their reference and their measurement.
#   bench_setup              the system packages (Scripts/setup.sh) and the corpus.
#   bench_run <name> [seconds] [connections] [rounds]
#                            bench_setup, loupe_bin and bench_workdir <name>; sets `duration`,
#                            `connections` and `rounds` from the arguments (default 15 s, 4, 3).
#   loupe_bin                LOUPE_BIN as given, else the release build in .build-release,
#                            brought up to date here.
#   bench_workdir <name>     makes a temporary folder, `work`, removed on exit after the processes
#                            listed in `pids` (and their children: thumbor forks workers) are
#                            stopped.
#   bench_sources <folder>   writes ~2-megapixel JPEG photos (quality 90), upscaled from the
#                            corpus's colour photographs, to <folder>/root/<name>.jpg, and starts
#                            bench_origin over them; sets `photos` (the names).
#   real_photos <folder>     writes real photos at their own size (none upscaled) to
#                            <folder>/root/<name>.jpg: thumbor's fixtures from its source
#                            distribution on PyPI (portraits of 5760x3840 and 800x533, a group
#                            photo of 3456x4052, an 800 px portrait) and the corpus's motorcycle;
#                            sets `photos`. Needs thumbor_venv (its pip) first.
#   bench_origin <folder>    starts nginx on a free loopback port serving
#                            /p/<anything>/<file> (a .jpg, .gif or .webp) as <folder>/root/<file> (so
#                            every URL can be distinct); sets `origin` (its base URL) and adds it
#                            to `pids`.
#   thumbor_venv [opencv]    installs thumbor 7.8 (PyPI) in .venv-thumbor once, the reference of
#                            the service benchmarks; with `opencv`, its OpenCV extra too (the
#                            face and feature detectors of `smart` crops).
#   wrk_measure <pid> <port> <paths file> <seconds> <connections>
#                            sends the file's paths (wrk-paths.lua) to 127.0.0.1:<port> and prints
#                            "req/s p50_ms p99_ms cpu_ms_per_request kb_per_response" (CPU of <pid>
#                            and its children; KB from wrk's bytes read, headers included: a win
#                            must not come from bigger files); warns of non-2xx answers.
#   start_servers <loupe flags> -- <thumbor config lines>
#                            starts `$LOUPE_BIN serve` (its cache in the folder) and thumbor (as
#                            many processes as cores, QUALITY 80, the HTTP loader, no storage)
#                            on free loopback ports and waits for both; sets loupe_pid,
#                            loupe_port, thumbor_pid and thumbor_port.
#   measure_rounds "<kinds>" "<sides>"
#                            `rounds` rounds of every kind on every side in turn (A B A B): sets
#                            result[<kind>-<side>-<round>] to the line of the script's own
#                            `measure <kind> <side> <run id>` (wrk_measure's), shown as it comes.
#   median_of <kind>-<side> <column>
#                            the median over the rounds of that column of the results.
#   cpu_ticks <pid>, peak_rss <pid>
#                            CPU ticks (user + system) and peak RSS in KiB of a process and its
#                            children (thumbor's processes, summed).
photos=(astronaut chelsea coffee motorcycle_left rocket)
bench_setup() {
  source Scripts/setup.sh
  bash Scripts/fetch-corpus.sh >/dev/null
}
bench_run() {
  bench_setup
  loupe_bin
  bench_workdir "$1"
  duration="${2:-15}" connections="${3:-4}" rounds="${4:-3}"
}
loupe_bin() {
  if [ -z "${LOUPE_BIN:-}" ]; then
    echo "== building loupe (release, .build-release)" >&2
    swift build -c release --product loupe --scratch-path .build-release >&2
    LOUPE_BIN=.build-release/release/loupe
  fi
}
bench_workdir() {
  work="$(mktemp -d "/tmp/loupe-bench-$1-XXXXXX")"
  pids=()
  trap bench_cleanup EXIT
}
bench_cleanup() {
  local pid
  for pid in "${pids[@]}"; do pkill -TERM -P "$pid" 2>/dev/null || true; kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 1 600); do (echo > "/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing listens on $1" >&2; return 1; }
bench_sources() {
  local work=$1 name source_file width height scale
  mkdir -p "$work/root" "$work/tmp"
  for name in "${photos[@]}"; do
    source_file=$(ls Corpus/skimage/$name.* | head -1)
    width=$(vipsheader -f width "$source_file")
    height=$(vipsheader -f height "$source_file")
    scale=$(awk -v w="$width" -v h="$height" 'BEGIN { printf "%.4f", sqrt(2000000 / (w * h)) }')
    vips resize "$source_file" "$work/root/$name.jpg[Q=90]" "$scale"
  done
  bench_origin "$work"
}
real_photos() {
  local work=$1 name
  echo "== sources: thumbor's fixture photos (PyPI sdist) and the corpus's motorcycle" >&2
  mkdir -p "$work/root" "$work/sdist"
  .venv-thumbor/bin/pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: -d "$work/sdist" thumbor==7.8.0
  tar xzf "$work"/sdist/thumbor-*.tar.gz -C "$work/sdist" --strip-components=1 --wildcards '*/tests/fixtures/images/*' \
    '*/thumbor/fixtures/filters/800px-Guido-portrait-2014.jpg'
  cp "$work/sdist/tests/fixtures/images/Christophe_Henner_-_June_2016.jpg" "$work/root/henner.jpg"
  cp "$work/sdist/tests/fixtures/images/10_years_of_Wikipedia_by_Guillaume_Paumier.jpg" "$work/root/wikipedia.jpg"
  cp "$work/sdist/tests/fixtures/images/Giunchedi%2C_Filippo_January_2015_01.jpg" "$work/root/giunchedi.jpg"
  cp "$work/sdist/thumbor/fixtures/filters/800px-Guido-portrait-2014.jpg" "$work/root/guido.jpg"
  vips copy Corpus/skimage/motorcycle_left.png "$work/root/motorcycle.jpg[Q=90]"
  photos=(henner wikipedia giunchedi guido motorcycle)
  for name in "${photos[@]}"; do
    echo "   $name: $(vipsheader -f width "$work/root/$name.jpg")x$(vipsheader -f height "$work/root/$name.jpg"), $(stat -c %s "$work/root/$name.jpg") bytes" >&2
  done
}
bench_origin() {
  local work=$1 port
  mkdir -p "$work/root" "$work/tmp"
  port=$(free_port)
  cat > "$work/origin.conf" <<CONF
daemon off; master_process off; worker_processes 1; pid $work/origin.pid; error_log $work/origin-error.log warn;
events { worker_connections 4096; }
http {
  access_log off; client_body_temp_path $work/tmp/body; proxy_temp_path $work/tmp/proxy;
  fastcgi_temp_path $work/tmp/fastcgi; uwsgi_temp_path $work/tmp/uwsgi; scgi_temp_path $work/tmp/scgi;
  types { image/jpeg jpg; image/gif gif; image/webp webp; } keepalive_requests 1000000;
  server { listen 127.0.0.1:$port; location ~ ^/p/.*/([a-z_]+\.(jpg|gif|webp))$ { alias $work/root/\$1; } }
}
CONF
  /usr/sbin/nginx -p "$work" -c "$work/origin.conf" </dev/null >/dev/null 2>&1 &
  pids+=($!)
  wait_port "$port"
  origin="http://127.0.0.1:$port"
}
thumbor_venv() {
  echo "== thumbor 7.8 venv" >&2
  if [ ! -x .venv-thumbor/bin/thumbor ]; then
    python3 -m venv .venv-thumbor
    .venv-thumbor/bin/pip install --quiet --disable-pip-version-check thumbor==7.8.0
  fi
  if [ "${1:-}" = opencv ] && ! .venv-thumbor/bin/python -c 'import cv2' 2>/dev/null; then
    .venv-thumbor/bin/pip install --quiet --disable-pip-version-check "thumbor[opencv]==7.8.0"
  fi
}
start_servers() {
  local flags=() line
  while [ $# -gt 0 ] && [ "$1" != -- ]; do flags+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  loupe_port=$(free_port)
  "$LOUPE_BIN" serve --port "$loupe_port" --permit-addresses 127.0.0.1 --quiet --cache-dir "$work/loupe-cache" \
    "${flags[@]}" >/dev/null 2>"$work/loupe.log" & pids+=($!)
  loupe_pid=$!
  thumbor_port=$(free_port)
  printf '%s\n' "QUALITY = 80" "LOADER = 'thumbor.loaders.http_loader'" "STORAGE = 'thumbor.storages.no_storage'" > "$work/thumbor.conf"
  for line in "$@"; do echo "$line" >> "$work/thumbor.conf"; done
  .venv-thumbor/bin/thumbor --ip 127.0.0.1 --port "$thumbor_port" --processes "$(nproc)" -c "$work/thumbor.conf" -l error \
    >"$work/thumbor.log" 2>&1 & pids+=($!)
  thumbor_pid=$!
  wait_port "$loupe_port"
  wait_port "$thumbor_port"
}
measure_rounds() {
  local round kind side
  declare -gA result
  echo "== measuring: $duration s per run, $connections connections, $rounds rounds, A B A B" >&2
  for ((round = 1; round <= rounds; round++)); do
    for kind in $1; do
      for side in $2; do
        result[$kind-$side-$round]=$(measure "$kind" "$side" "$kind-$side-$round-$RANDOM$RANDOM")
        echo "   round $round $kind $side: ${result[$kind-$side-$round]}" >&2
      done
    done
  done
}
median_of() {
  local round
  for ((round = 1; round <= rounds; round++)); do echo "${result[$1-$round]}" | awk -v c="$2" '{ print $c }'; done \
    | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}
cpu_ticks() { local total=0; for p in $(pgrep -P "$1") "$1"; do total=$((total + $(awk '{ print $14 + $15 }' "/proc/$p/stat"))); done; echo "$total"; }
peak_rss() { local total=0; for p in $(pgrep -P "$1") "$1"; do total=$((total + $(awk '/VmHWM/ { print $2 }' "/proc/$p/status"))); done; echo "$total"; }
wrk_measure() {
  local pid=$1 port=$2 paths=$3 seconds=$4 connections=$5 before after out ticks
  ticks=$(getconf CLK_TCK)
  before=$(cpu_ticks "$pid")
  out=$(wrk -t 2 -c "$connections" -d "${seconds}s" --latency -s Scripts/bench/wrk-paths.lua "http://127.0.0.1:$port" -- "$paths" 2 2>&1)
  after=$(cpu_ticks "$pid")
  echo "$out" > "$paths.wrk"
  local requests rps p50 p99 non2xx read
  requests=$(echo "$out" | awk '/requests in/ { print $1 }')
  read=$(echo "$out" | awk '/requests in/ { print $NF == "read" ? $(NF - 1) : "0B" }')
  rps=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
  p50=$(echo "$out" | awk '$1 == "50%" { print $2 }')
  p99=$(echo "$out" | awk '$1 == "99%" { print $2 }')
  non2xx=$(echo "$out" | awk '/Non-2xx/ { print $NF }')
  [ -z "$non2xx" ] || echo "warning: $(basename "$paths"): $non2xx non-2xx answers" >&2
  awk -v r="$rps" -v n="$requests" -v p50="$p50" -v p99="$p99" -v c=$((after - before)) -v t="$ticks" -v b="$read" 'function ms(x) {
      if (x ~ /us$/) return x / 1000; if (x ~ /ms$/) return x + 0; if (x ~ /s$/) return x * 1000; return x }
    function kb(x) { if (x ~ /GB$/) return x * 1048576; if (x ~ /MB$/) return x * 1024; if (x ~ /KB$/) return x + 0; return x / 1024 }
    BEGIN { printf "%s %.1f %.1f %.3f %.1f\n", r, ms(p50), ms(p99), (n > 0 ? c / t * 1000 / n : 0), (n > 0 ? kb(b) / n : 0) }'
}
