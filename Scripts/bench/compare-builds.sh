#!/usr/bin/env bash
# Two builds of loupe side by side, A B A B: bench-serve.sh (fit cold and warm, fill, beside
# thumbor) and bench-overload.sh with each binary in turn, `rounds` times; prints loupe's lines
# of every run, labelled, for medians and per-round ratios (the machine drifts between rounds,
# so compare A and B within a round).
#   Scripts/bench/compare-builds.sh BEFORE_LOUPE AFTER_LOUPE [rounds] [seconds per serve run]
# Build each side the same way (`swift build -c release --product loupe --scratch-path …`): a
# build with -enable-testing is not what users run. Everything on 127.0.0.1, as the scripts it runs.
set -euo pipefail
cd "$(dirname "$0")/../.."
before=$(realpath "$1")
after=$(realpath "$2")
rounds="${3:-2}"
seconds="${4:-15}"
work=$(mktemp -d)
for ((round = 1; round <= rounds; round++)); do
  for side in before after; do
    binary=$before
    [ "$side" = after ] && binary=$after
    LOUPE_BIN=$binary bash Scripts/bench/bench-serve.sh "$seconds" 4 >"$work/serve-$round-$side" 2>/dev/null
    LOUPE_BIN=$binary bash Scripts/bench/bench-overload.sh 30 64 >"$work/overload-$round-$side" 2>/dev/null
    echo "== round $round, $side ($binary)"
    grep -E '^(cold|warm|fill) +loupe' "$work/serve-$round-$side"
    grep -E '^-- |^answers|^200 latency|^429 latency' "$work/overload-$round-$side"
  done
done
echo "(whole outputs in $work)"
