# Shell functions of the scripts that start daemons and stop them by recorded PIDs
# (Scripts/ops/cluster.sh, Scripts/s3/gateway.sh): sourced, not run.

# Whether the process in pid file $1 is alive: running, not a zombie (a daemon killed after its
# starter exited may wait unreaped under a PID 1 that does not reap).
alive() {
  [ -f "$1" ] || return 1
  local state
  state=$(awk '{ print $3 }' "/proc/$(cat "$1")/stat" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ]
}

# Runs "$@" in the background without the file descriptors the caller inherited beyond 0-2: a
# daemon holding its starter's pipe keeps a caller that waits for EOF on it waiting forever.
detached() {
  (
    for fd in /proc/$BASHPID/fd/*; do
      fd=${fd##*/}
      [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-"
    done
    exec "$@"
  ) &
}
