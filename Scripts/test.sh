#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script):
#   1. installs system packages (Scripts/setup.sh),
#   2. builds everything, tests included, with warnings as errors (set in Package.swift),
#   3. runs every test,
#   4. runs the concurrency-heavy targets again under ThreadSanitizer; any report fails the run,
#   5. runs the README's commands: the demo (release build) and the `loupe fetch` examples.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/setup.sh

# The venv first: the colour corpus is partly written by its Pillow.
echo "== conformance references (Python venv)"
bash Scripts/conformance/venv.sh

echo "== corpus"
bash Scripts/fetch-corpus.sh

echo "== build"
swift build --build-tests

echo "== tests"
swift test --skip-build --disable-xctest --skip LoupeProcessingTests --skip ScrollSimulationTests

# Apart, because minutes of CPU-bound reference comparisons (Python colorthief, Pillow) beside
# them slow the two-thread cooperative pool enough to time out the concurrency tests' waits.
echo "== processing tests (reference comparisons)"
swift test --skip-build --disable-xctest --filter LoupeProcessingTests

# Apart, because they measure what a user sees while scrolling (images ready in time), which
# depends on the machine not being busy with two hundred other tests.
echo "== scroll simulation tests"
swift test --skip-build --disable-xctest --filter ScrollSimulationTests

echo "== tests under ThreadSanitizer"
# halt_on_error makes the first data race a non-zero exit instead of a log line.
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" \
  swift test --disable-xctest --sanitize=thread --scratch-path .build-tsan --filter 'LoupeCachingTests|LoupeLoadingTests|LoupeTests|LoupeOriginTests' \
  --skip ScrollSimulationTests

echo "== the README's commands"
# The main job exactly as the README gives it (it checks its own scenarios and exits 1 if one
# breaks), then the `loupe fetch` examples, whose output must be what the README shows.
swift run -c release loupe demo
python3 Scripts/check-readme.py .build/release
