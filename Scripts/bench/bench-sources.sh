# Sourced by the service benchmarks (bench-serve.sh, bench-cluster.sh): their sources.
#   bench_sources <folder>   writes ~2-megapixel JPEG photos (quality 90), upscaled from the
#                            corpus's colour photographs, to <folder>/root/<name>.jpg, and starts
#                            bench_origin over them; sets `photos` (the names).
#   bench_origin <folder>    starts nginx on a free loopback port serving
#                            /p/<anything>/<name>.jpg as <folder>/root/<name>.jpg (so every URL
#                            can be distinct); sets `origin` (its base URL) and `origin_pid`. The
#                            caller stops it.
#   thumbor_venv             installs thumbor 7.8 (PyPI) in .venv-thumbor once, the reference of
#                            the service benchmarks.
photos=(astronaut chelsea coffee motorcycle_left rocket)
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
  types { image/jpeg jpg; } keepalive_requests 1000000;
  server { listen 127.0.0.1:$port; location ~ ^/p/.*/([a-z_]+\.jpg)$ { alias $work/root/\$1; } }
}
CONF
  /usr/sbin/nginx -p "$work" -c "$work/origin.conf" </dev/null >/dev/null 2>&1 &
  origin_pid=$!
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
