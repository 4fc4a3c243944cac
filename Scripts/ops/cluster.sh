#!/usr/bin/env bash
# N `loupe serve` instances on loopback behind nginx (deploy/nginx.conf): least-connections
# balancing, retries on the next instance, and a shared result cache.
#   Scripts/ops/cluster.sh start N    start instances 1..N and nginx (idempotent: starts only what is
#                                 not running; a changed N rewrites nginx's configuration and
#                                 reloads it). Restarting an instance that died: `start N` again.
#   Scripts/ops/cluster.sh stop       stop nginx and every instance (SIGTERM: requests in flight finish)
#   Scripts/ops/cluster.sh status     each instance's /health, whether it accepts the cluster's
#                                 signatures, and nginx's stub_status; exit 1 if anything is wrong
# Settings, from the environment:
#   LOUPE_CLUSTER_DIR    the cluster's folder: pids, logs, nginx's cache and temporary files, each
#                        instance's cache folder (default /tmp/loupe-cluster)
#   LOUPE_CLUSTER_HOST   address nginx listens on (default 127.0.0.1)
#   LOUPE_CLUSTER_PORT   nginx's port (default 8080); instance i listens on 127.0.0.1:PORT+i
#   LOUPE_CLUSTER_CACHE_SIZE, LOUPE_CLUSTER_CACHE_INACTIVE
#                        nginx's result cache: size limit and how long an unused entry stays
#                        (default 10g, 7d)
#   LOUPE_CLUSTER_CACHE  off: nginx caches nothing (a CDN in front caches, or the instances share
#                        results through --result-storage); default on
#   LOUPE_CLUSTER_FAIL_TIMEOUT
#                        how long nginx leaves out an instance after a failed connection (default 5s)
#   LOUPE_CLUSTER_SERVE_ARGS
#                        extra arguments of every `loupe serve`, e.g. --quiet (no access log)
#   LOUPE_BIN            the loupe binary (default .build/release/loupe, then `loupe` on PATH)
#   LOUPE_KEY, LOUPE_SALT and every other LOUPE_* setting of `loupe serve` (docs/service.md) are passed to
#   every instance as they are: one signing key and salt for the whole cluster. `status` signs its
#   probe with the LOUPE_KEY/LOUPE_SALT of its own environment, so an instance started with
#   another key shows as "signature MISMATCH".
set -euo pipefail
here="$(cd "$(dirname "$0")/../.." && pwd)"
dir="${LOUPE_CLUSTER_DIR:-/tmp/loupe-cluster}"
host="${LOUPE_CLUSTER_HOST:-127.0.0.1}"
port="${LOUPE_CLUSTER_PORT:-8080}"
nginx=/usr/sbin/nginx
# shellcheck source=../lib/processes.sh
. "$here/Scripts/lib/processes.sh"

usage() { echo "usage: $0 start N | stop | status" >&2; exit 2; }

loupe_binary() {
  if [ -n "${LOUPE_BIN:-}" ]; then echo "$LOUPE_BIN"
  elif [ -x "$here/.build/release/loupe" ]; then echo "$here/.build/release/loupe"
  elif command -v loupe >/dev/null 2>&1; then command -v loupe
  else echo "cluster: no loupe binary: build it (swift build -c release --product loupe) or set LOUPE_BIN" >&2; exit 1
  fi
}


# Waits (at most 60 s) until something accepts connections on $1; fails early if pid $2 exits.
wait_port() {
  for _ in $(seq 1 600); do
    (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.1
  done
  return 1
}


instance_count() { cat "$dir/instances" 2>/dev/null || echo 0; }

start_instance() {
  local i=$1 instance_port=$((port + i)) folder="$dir/instance-$1"
  mkdir -p "$folder/cache"
  alive "$folder/pid" && return 0
  # setsid: the instance outlives this script and the terminal that ran it.
  detached setsid "$(loupe_binary)" serve --host 127.0.0.1 --port "$instance_port" --cache-dir "$folder/cache" ${LOUPE_CLUSTER_SERVE_ARGS:-} \
    </dev/null >>"$folder/log" 2>&1
  echo $! >"$folder/pid"
  if ! wait_port "$instance_port" "$!"; then
    echo "cluster: instance $i did not start on port $instance_port; its log:" >&2
    tail -n 20 "$folder/log" >&2
    exit 1
  fi
  echo "instance $i: http://127.0.0.1:$instance_port (pid $(cat "$folder/pid"))"
}

write_nginx_conf() {
  local count=$1 upstreams="" user_line="" i
  for i in $(seq 1 "$count"); do
    upstreams+="        server 127.0.0.1:$((port + i)) max_fails=1 fail_timeout=${LOUPE_CLUSTER_FAIL_TIMEOUT:-5s};"$'\n'
  done
  # As root, nginx's workers would become `nobody`, which cannot write this folder: they stay
  # the user who runs the cluster. Not root: the directive would be ignored with a warning.
  [ "$(id -u)" -eq 0 ] && user_line="user $(id -un) $(id -gn);"
  mkdir -p "$dir/logs" "$dir/tmp" "$dir/cache"
  UPSTREAMS="${upstreams%$'\n'}" USER_LINE="$user_line" DIR="$dir" HOST="$host" PORT="$port" \
  CACHE_SIZE="${LOUPE_CLUSTER_CACHE_SIZE:-10g}" CACHE_INACTIVE="${LOUPE_CLUSTER_CACHE_INACTIVE:-7d}" \
  CACHE="${LOUPE_CLUSTER_CACHE:-on}" python3 - "$here/deploy/nginx.conf" "$dir/nginx.conf" <<'PY'
import os, sys
text = open(sys.argv[1]).read()
values = {"@UPSTREAMS@": os.environ["UPSTREAMS"], "@USER@": os.environ["USER_LINE"], "@DIR@": os.environ["DIR"],
          "@HOST@": os.environ["HOST"], "@PORT@": os.environ["PORT"], "@CACHE_SIZE@": os.environ["CACHE_SIZE"],
          "@CACHE_INACTIVE@": os.environ["CACHE_INACTIVE"], "@KEYS_ZONE@": "64m"}
for name, value in values.items():
    text = text.replace(name, value)
if os.environ["CACHE"] == "off":
    text = text.replace("proxy_cache loupe_results;", "proxy_cache off;")
open(sys.argv[2], "w").write(text)
PY
  echo "$count" >"$dir/instances"
}

nginx_args() { echo -p "$dir" -e "$dir/logs/error.log" -c "$dir/nginx.conf"; }

start() {
  local count=$1 i
  [[ "$count" =~ ^[1-9][0-9]*$ ]] || usage
  mkdir -p "$dir"
  # Fewer instances than before: stop the ones beyond N.
  for i in $(seq $((count + 1)) "$(instance_count)"); do stop_instance "$i"; done
  for i in $(seq 1 "$count"); do start_instance "$i"; done
  local reconfigure=0
  [ "$(instance_count)" = "$count" ] && [ -f "$dir/nginx.conf" ] || reconfigure=1
  [ "$reconfigure" = 1 ] && write_nginx_conf "$count"
  if alive "$dir/nginx.pid"; then
    # shellcheck disable=SC2046
    [ "$reconfigure" = 1 ] && "$nginx" $(nginx_args) -s reload
  else
    # shellcheck disable=SC2046
    "$nginx" $(nginx_args) -t -q
    # shellcheck disable=SC2046
    detached "$nginx" $(nginx_args) </dev/null >/dev/null 2>&1
    wait "$!"
    wait_port "$port" "$(cat "$dir/nginx.pid")" || { echo "cluster: nginx did not start; $dir/logs/error.log:" >&2; tail -n 20 "$dir/logs/error.log" >&2; exit 1; }
  fi
  echo "nginx: http://$host:$port ($count instances, cache $dir/cache)"
}

stop_instance() {
  local pidfile="$dir/instance-$1/pid"
  if alive "$pidfile"; then
    local pid; pid=$(cat "$pidfile")
    kill -TERM "$pid"
    # Draining finishes requests in flight (at most the request timeout); then SIGKILL.
    for _ in $(seq 1 350); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

stop() {
  if alive "$dir/nginx.pid"; then
    # shellcheck disable=SC2046
    "$nginx" $(nginx_args) -s quit
    for _ in $(seq 1 100); do alive "$dir/nginx.pid" || break; sleep 0.1; done
  fi
  local i
  for i in $(seq 1 "$(instance_count)"); do stop_instance "$i"; done
  echo "stopped"
}

# imgproxy's signature of path $1 with LOUPE_KEY/LOUPE_SALT (the first pair), or `insecure`.
sign() {
  if [ -z "${LOUPE_KEY:-}" ]; then echo insecure; return; fi
  { printf '%s' "${LOUPE_SALT%%,*}" | xxd -r -p; printf '%s' "$1"; } \
    | openssl dgst -sha256 -mac HMAC -macopt "hexkey:${LOUPE_KEY%%,*}" -binary | basenc --base64url | tr -d =
}

status() {
  local count; count=$(instance_count)
  [ "$count" -gt 0 ] || { echo "no cluster in $dir"; exit 1; }
  # A URL that expired in 1970: an instance with the cluster's key answers 404 `expired` without
  # any work; one with another key answers 403 `badSignature`.
  local probe="/exp:1/plain/http://127.0.0.1/cluster-probe.jpg" failed=0 i
  local signature; signature=$(sign "$probe")
  for i in $(seq 1 "$count"); do
    local base="http://127.0.0.1:$((port + i))" health signed
    health=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$base/health" || true)
    signed=$(curl -s -m 5 "$base/$signature$probe" | sed -n 's/.*"kind":"\([A-Za-z]*\)".*/\1/p' || true)
    local verdict="ok"
    case "$health" in
      200) ;;
      503) verdict="draining"; failed=1 ;;
      *) verdict="DOWN"; failed=1 ;;
    esac
    local keyed="signature ok"
    if [ "$health" = 200 ]; then
      [ "$signed" = expired ] || { keyed="signature MISMATCH ($signed): started with another key or salt"; failed=1; }
    else
      keyed="-"
    fi
    echo "instance $i: $base health $health $verdict, $keyed"
  done
  if alive "$dir/nginx.pid"; then
    echo "nginx: http://$host:$port"
    curl -s -m 5 "http://127.0.0.1:$port/nginx-status" | sed 's/^/  /'
  else
    echo "nginx: DOWN"; failed=1
  fi
  return "$failed"
}

case "${1:-}" in
  start) [ $# -eq 2 ] || usage; start "$2" ;;
  stop) [ $# -le 2 ] || usage; [ -d "$dir" ] && stop || echo "no cluster in $dir" ;;
  status) [ $# -le 2 ] || usage; status ;;
  *) usage ;;
esac
