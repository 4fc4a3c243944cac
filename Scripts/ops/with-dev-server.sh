#!/usr/bin/env bash
# Runs a shell command beside a development `loupe serve --dev` (the README's /info and /batch
# examples, checked by Scripts/ci/check-readme.py). The server listens on a free port of 127.0.0.1
# and serves unsigned URLs of sample photos from an origin inside it, also on 127.0.0.1; the
# command gets LOUPE (the server's base URL) and ORIGIN (the photos' base URL) in its
# environment, and its output shows them as $LOUPE and $ORIGIN (their ports change from run to
# run). Afterwards the server gets SIGTERM and must exit 0.
#   Scripts/ops/with-dev-server.sh 'curl -s "$LOUPE/info/insecure/plain/$ORIGIN/photos/sunset.jpg"'
set -euo pipefail
[ $# -eq 1 ] || { echo "usage: $0 '<shell command>'" >&2; exit 2; }
output=$(mktemp /tmp/loupe-dev-server-XXXXXX)
loupe serve --dev --port 0 --quiet >"$output" 2>/dev/null &
server=$!
stop() {
  kill -TERM "$server" 2>/dev/null || true
  wait "$server"
}
for _ in $(seq 1 300); do
  grep -q '^development server' "$output" && break
  kill -0 "$server" 2>/dev/null || { echo "loupe serve --dev exited: $(cat "$output")" >&2; exit 1; }
  sleep 0.1
done
LOUPE=$(sed -n 's|^loupe serve: listening on \(http://[0-9.:]*\)$|\1|p' "$output")
ORIGIN=$(sed -n 's|^development server: unsigned URLs, sample photos from \(http://[0-9.:]*\); try$|\1|p' "$output")
rm -f "$output"
if [ -z "$LOUPE" ] || [ -z "$ORIGIN" ]; then
  echo "loupe serve --dev did not report its addresses" >&2
  stop || true
  exit 1
fi
export LOUPE ORIGIN
status=0
bash -o pipefail -c "$1" | sed -e "s|$ORIGIN|\$ORIGIN|g" -e "s|$LOUPE|\$LOUPE|g" || status=$?
stop || { echo "loupe serve --dev did not exit 0 after SIGTERM" >&2; exit 1; }
exit "$status"
