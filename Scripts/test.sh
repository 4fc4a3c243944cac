#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script):
#   1. installs system packages (Scripts/setup.sh),
#   2. builds everything, tests included, with warnings as errors (set in Package.swift),
#   3. runs every test,
#   4. runs the concurrency-heavy targets again under ThreadSanitizer; any report fails the run.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/setup.sh

echo "== corpus"
bash Scripts/fetch-corpus.sh

echo "== conformance references (Python venv)"
bash Scripts/conformance/venv.sh

echo "== build"
swift build --build-tests

echo "== tests"
swift test --skip-build --disable-xctest --skip LoupeProcessingTests

# Apart, because minutes of CPU-bound reference comparisons (Python colorthief, Pillow) beside
# them slow the two-thread cooperative pool enough to time out the concurrency tests' waits.
echo "== processing tests (reference comparisons)"
swift test --skip-build --disable-xctest --filter LoupeProcessingTests

echo "== tests under ThreadSanitizer"
# halt_on_error makes the first data race a non-zero exit instead of a log line.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  swift test --disable-xctest --sanitize=thread --scratch-path .build-tsan --filter 'LoupeCachingTests|LoupeLoadingTests|LoupeTests|LoupeOriginTests'
