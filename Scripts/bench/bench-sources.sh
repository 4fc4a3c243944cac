# Sourced by the service benchmarks (bench-serve.sh, bench-overload.sh, bench-animation.sh,
# bench-cluster.sh): their folder, their sources and their reference.
#   bench_workdir <name>     makes a temporary folder, `work`, removed on exit after the processes
#                            listed in `pids` (and their children: thumbor forks workers) are
#                            stopped.
#   bench_sources <folder>   writes ~2-megapixel JPEG photos (quality 90), upscaled from the
#                            corpus's colour photographs, to <folder>/root/<name>.jpg, and starts
#                            bench_origin over them; sets `photos` (the names).
#   bench_origin <folder>    starts nginx on a free loopback port serving
#                            /p/<anything>/<file> (a .jpg or .gif) as <folder>/root/<file> (so
#                            every URL can be distinct); sets `origin` (its base URL) and adds it
#                            to `pids`.
#   thumbor_venv             installs thumbor 7.8 (PyPI) in .venv-thumbor once, the reference of
#                            the service benchmarks.
photos=(astronaut chelsea coffee motorcycle_left rocket)
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
  types { image/jpeg jpg; image/gif gif; } keepalive_requests 1000000;
  server { listen 127.0.0.1:$port; location ~ ^/p/.*/([a-z_]+\.(jpg|gif))$ { alias $work/root/\$1; } }
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
}
