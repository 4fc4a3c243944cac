#!/usr/bin/env bash
# A one-node Ceph cluster with its RADOS Gateway (an S3 server) on 127.0.0.1, for the s3:// tests
# and local trials: one monitor, one OSD on a sparse file, one radosgw. No systemd, no block
# device, nothing outside the folder: configuration, data, sockets, logs, PIDs and keys all live
# in it. Needs the packages radosgw ceph-mon ceph-osd ceph-common (Scripts/setup.sh).
#   Scripts/s3/gateway.sh start FOLDER   create the cluster in FOLDER on first use, start what is not
#                                        running, create an S3 user; prints the endpoint and the keys
#   Scripts/s3/gateway.sh stop FOLDER    stop the gateway, the OSD and the monitor (by their recorded PIDs)
#   Scripts/s3/gateway.sh status FOLDER  each daemon's state and the endpoint's answer; exit 1 if one is down
# After `start`, FOLDER holds:
#   endpoint     the gateway's URL (http://127.0.0.1:PORT)
#   credentials  the S3 user's keys as an AWS shared credentials file (profile `default`)
# Settings, from the environment:
#   S3_GATEWAY_PORT   the gateway's port (default: a free port chosen at the first start, then kept)
#   S3_GATEWAY_SIZE   the OSD's sparse data file (default 4G; only what is written takes disk space)
# The cluster runs without cephx (loopback only, throwaway data); the S3 API checks AWS
# signatures as any S3 server does.
set -euo pipefail

usage() { echo "usage: $0 start|stop|status FOLDER" >&2; exit 2; }
[ $# -eq 2 ] || usage
command=$1
mkdir -p "$2"
dir="$(cd "$2" && pwd)"
conf="$dir/ceph.conf"
# shellcheck source=../lib/processes.sh
. "$(dirname "$0")/../lib/processes.sh"


# A TCP port nothing listens on now (the kernel's choice).
free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Starts daemon $1 ("$@" after it) in its own session, its output in $dir/log/NAME.out, and
# records its PID in $dir/run/NAME.pid.
start_daemon() {
  local name=$1; shift
  detached setsid "$@" </dev/null >>"$dir/log/$name.out" 2>&1
  echo $! >"$dir/run/$name.pid"
}

fail() {
  echo "gateway: $1; the last lines of $dir/log/$2:" >&2
  tail -n 20 "$dir/log/$2" >&2 || true
  exit 1
}

# Polls command "$@" (at most $1 tenths of a second) until it succeeds.
wait_for() {
  local tenths=$1; shift
  for _ in $(seq 1 "$tenths"); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  return 1
}

write_conf() {
  local fsid mon_port rgw_port
  fsid=$(cat /proc/sys/kernel/random/uuid)
  mon_port=$(free_port)
  rgw_port=${S3_GATEWAY_PORT:-$(free_port)}
  cat >"$conf" <<EOF
[global]
fsid = $fsid
mon_host = [v2:127.0.0.1:$mon_port]
mon_initial_members = a
public_addr = 127.0.0.1
cluster_addr = 127.0.0.1
ms_bind_ipv6 = false
ms_bind_msgr1 = false
auth_cluster_required = none
auth_service_required = none
auth_client_required = none
# Without cephx there is no secure mode: a client asking only for it cannot connect.
ms_mon_client_mode = crc
run_dir = $dir/run
crash_dir = $dir/crash
admin_socket = $dir/run/\$cluster-\$name.asok
log_file = $dir/log/\$cluster-\$name.log
pid_file = $dir/run/\$type.\$id.ceph-pid
log_to_stderr = false
err_to_stderr = true
mon_data = $dir/mon
osd_data = $dir/osd
# One OSD: every pool keeps one copy, and placement chooses among OSDs, not hosts.
osd_pool_default_size = 1
osd_pool_default_min_size = 1
mon_allow_pool_size_one = true
mon_warn_on_pool_no_redundancy = false
osd_crush_chooseleaf_type = 0
osd_pool_default_pg_num = 8
osd_pool_default_pgp_num = 8
osd_pool_default_pg_autoscale_mode = off
mon_max_pg_per_osd = 1000
# The OSD's data: bluestore on a sparse file it creates in its folder.
osd_objectstore = bluestore
bluestore_block_create = true
bluestore_block_size = ${S3_GATEWAY_SIZE:-4G}
osd_memory_target = 536870912
bluestore_cache_autotune = false
bluestore_cache_size = 67108864
# The monitor commits each map change after this pause (default 1 s): the start creates a dozen.
paxos_propose_interval = 0.05
paxos_min_wait = 0.01
mon_data_avail_warn = 2
mon_data_avail_crit = 1

[client.rgw]
rgw_frontends = beast endpoint=127.0.0.1:$rgw_port
rgw_data = $dir/rgw
rgw_dns_name = localhost
rgw_thread_pool_size = 64
# The lifecycle thread holds a stop for seconds (it sleeps between tries for its lock); bucket
# lifecycle rules are not applied by this gateway.
rgw_enable_lc_threads = false
rgw_exit_timeout_secs = 10
EOF
  echo "http://127.0.0.1:$rgw_port" >"$dir/endpoint"
}

# The pools radosgw would otherwise create one by one on its first start.
create_pools() {
  /usr/bin/python3 - "$conf" <<'PY'
import json, sys
import rados
cluster = rados.Rados(conffile=sys.argv[1])
cluster.connect(timeout=30)
pools = [".rgw.root", "default.rgw.log", "default.rgw.control", "default.rgw.meta",
         "default.rgw.buckets.index", "default.rgw.buckets.data", "default.rgw.buckets.non-ec"]
for pool in pools:
    for command in ({"prefix": "osd pool create", "pool": pool, "pg_num": 8},
                    {"prefix": "osd pool application enable", "pool": pool, "app": "rgw"}):
        status, _, message = cluster.mon_command(json.dumps(command), b"", timeout=30)
        if status != 0:
            sys.exit(f"gateway: {command['prefix']} {pool}: {message}")
cluster.shutdown()
PY
}

osd_active() {
  ceph --conf "$conf" --admin-daemon "$dir/run/ceph-osd.0.asok" status 2>/dev/null | grep -q '"state": "active"'
}

gateway_answers() {
  curl -s -m 2 -o /dev/null "$(cat "$dir/endpoint")"
}

create_cluster() {
  rm -rf "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/run" "$dir/log" "$dir/crash"
  mkdir -p "$dir/mon" "$dir/osd" "$dir/rgw" "$dir/run" "$dir/log" "$dir/crash"
  write_conf
  local fsid mon_addr
  fsid=$(sed -n 's/^fsid = //p' "$conf")
  mon_addr=$(sed -n 's/^mon_host = \[\(.*\)\]$/\1/p' "$conf")
  monmaptool --create --clobber --addv a "[$mon_addr]" --fsid "$fsid" "$dir/monmap" >>"$dir/log/setup.log" 2>&1
  ceph-mon --conf "$conf" --mkfs -i a --monmap "$dir/monmap" >>"$dir/log/setup.log" 2>&1 \
    || fail "the monitor's mkfs failed" setup.log
  touch "$dir/mon/.created"
}

create_osd() {
  local uuid
  uuid=$(cat /proc/sys/kernel/random/uuid)
  ceph --conf "$conf" osd new "$uuid" >>"$dir/log/setup.log" 2>&1 || fail "osd new failed" setup.log
  ceph-osd --conf "$conf" -i 0 --mkfs --osd-uuid "$uuid" >>"$dir/log/setup.log" 2>&1 \
    || fail "the OSD's mkfs failed" setup.log
  touch "$dir/osd/.created"
}

# An S3 user with random keys, written as an AWS shared credentials file.
create_user() {
  local access secret
  access=$(head -c 15 /dev/urandom | base32 | tr -d '=')
  secret=$(head -c 30 /dev/urandom | base64 | tr -d '=+/')
  radosgw-admin --conf "$conf" -n client.rgw user create --uid=loupe --display-name="Loupe tests" \
    --access-key="$access" --secret-key="$secret" >>"$dir/log/setup.log" 2>&1 \
    || fail "radosgw-admin user create failed" setup.log
  umask 077
  printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$access" "$secret" >"$dir/credentials"
}

start() {
  [ -f "$dir/mon/.created" ] || create_cluster
  mkdir -p "$dir/run" "$dir/log"
  if ! alive "$dir/run/mon.pid"; then
    start_daemon mon ceph-mon --conf "$conf" -i a -f
  fi
  wait_for 300 ceph --conf "$conf" --connect-timeout 1 mon stat \
    || fail "the monitor did not answer within 30 s" ceph-mon.a.log
  [ -f "$dir/osd/.created" ] || create_osd
  if ! alive "$dir/run/osd.pid"; then
    start_daemon osd ceph-osd --conf "$conf" -i 0 -f
  fi
  wait_for 600 osd_active || fail "the OSD was not active within 60 s" ceph-osd.0.log
  if [ ! -f "$dir/rgw/.pools" ]; then
    create_pools >>"$dir/log/setup.log" 2>&1 || fail "creating the gateway's pools failed" setup.log
    touch "$dir/rgw/.pools"
  fi
  if ! alive "$dir/run/radosgw.pid"; then
    start_daemon radosgw radosgw --conf "$conf" -n client.rgw -f
  fi
  wait_for 600 gateway_answers || fail "the gateway did not answer within 60 s" ceph-client.rgw.log
  [ -f "$dir/credentials" ] || create_user
  echo "endpoint: $(cat "$dir/endpoint")"
  sed -n 's/^aws_access_key_id = /access key: /p; s/^aws_secret_access_key = /secret key: /p' "$dir/credentials"
  echo "credentials file: $dir/credentials"
}

# Sends SIGTERM to the daemons named "$@" and waits (at most 10 s) for each; SIGKILL then.
stop_daemons() {
  local name
  for name in "$@"; do
    alive "$dir/run/$name.pid" && kill -TERM "$(cat "$dir/run/$name.pid")" 2>/dev/null || true
  done
  for name in "$@"; do
    for _ in $(seq 1 100); do alive "$dir/run/$name.pid" || break; sleep 0.1; done
    alive "$dir/run/$name.pid" && kill -KILL "$(cat "$dir/run/$name.pid")" 2>/dev/null || true
    rm -f "$dir/run/$name.pid"
  done
}

stop() {
  # One after the other, clients first: the gateway's shutdown talks to the OSD, and the OSD
  # tells the monitor that it goes down and waits for its answer.
  stop_daemons radosgw
  stop_daemons osd
  stop_daemons mon
  echo "stopped"
}

status() {
  local name failed=0
  for name in mon osd radosgw; do
    if alive "$dir/run/$name.pid"; then echo "$name: running (pid $(cat "$dir/run/$name.pid"))"
    else echo "$name: DOWN"; failed=1
    fi
  done
  if [ -f "$dir/endpoint" ] && gateway_answers; then echo "endpoint: $(cat "$dir/endpoint") answers"
  else echo "endpoint: no answer"; failed=1
  fi
  return "$failed"
}

case "$command" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) usage ;;
esac
