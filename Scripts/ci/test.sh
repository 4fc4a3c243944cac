#!/usr/bin/env bash
# The whole test suite, exactly as CI runs it (.ci/run calls this script):
#   1. installs system packages (Scripts/setup.sh),
#   2. builds everything, tests included, with warnings as errors (set in Package.swift),
#   3. runs every test (and the playground page's in headless Chromium),
#   4. builds and tests the embedding example (a package of its own),
#   5. runs the concurrency-heavy targets again under ThreadSanitizer; any report fails the run,
#   6. runs the tests again in an optimised (release) build,
#   7. builds the DocC catalogs with warnings as errors,
#   8. runs the documentation's commands: the demo and every console example of README.md and
#      docs/*.md, with the release build of step 6.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Scripts/setup.sh

# Each step's heading carries the minutes since the start, so a run's log shows where its time went;
# the headings are printed again together when the run ends, passed or failed (the log's tail is
# what a failed run's report shows).
steps=()
step() {
  steps+=("$1 [$((SECONDS / 60)) min $((SECONDS % 60)) s]")
  echo "== ${steps[-1]}"
}
trap 'status=$?; echo "== steps (minutes since the start) =="; printf "  %s\n" "${steps[@]}"; echo "  ended [$((SECONDS / 60)) min $((SECONDS % 60)) s], exit $status"' EXIT

# The venv first: the colour corpus is partly written by its Pillow.
step "conformance references (Python venv)"
bash Scripts/conformance/venv.sh

step "corpus"
bash Scripts/fetch-corpus.sh

step "build"
swift build --build-tests

# The suites that time a deadline against the wall clock run apart (below), each alone; the bomb
# tests too (answers bounded to 2 s, seen at 2.34 s beside the rest of the service's suites).
timed_suites=(DownloadDeadlineTests ServeSourceLoadingTests ServeCancellationTests BombTests)
skip_timed=()
for suite in "${timed_suites[@]}"; do skip_timed+=(--skip "$suite"); done
# The suites against a real S3 server run apart too (below): their process starts Ceph's RADOS
# Gateway (Scripts/s3/gateway.sh, about ten seconds of CPU), which must not overlap the suites
# that bound answers to a second or two (the bomb tests: seen 2.2 s against 2 s beside it).
s3_suites='S3DataLoaderTests|S3SourceTests|FetchS3Tests|ResultStorageTests'
skip_s3=(--skip S3DataLoaderTests --skip S3SourceTests --skip FetchS3Tests --skip ResultStorageTests)

step "tests"
swift test --skip-build --disable-xctest --skip LoupeProcessingTests --skip LoupeCodecsTests \
  --skip ScrollSimulationTests --skip LoupeServerTests --skip LoupeClusterTests "${skip_timed[@]}" "${skip_s3[@]}"

# Apart and one at a time, because they hold a deadline of seconds to the wall clock (a download's
# one deadline, a stalled source's 504, a blur cut at its request deadline): two hundred tests
# beside them on two cores made a 1 s deadline's response headers late (seen: 2.1 s).
step "deadline tests (one suite at a time)"
for suite in "${timed_suites[@]}"; do
  timeout 300 swift test --skip-build --disable-xctest --filter "$suite"
done

# Apart, because minutes of CPU-bound reference comparisons (Python colorthief, Pillow) and
# synchronous decoding beside them hold the two-thread cooperative pool long enough to time out
# the concurrency tests' 30 s waits (seen on a loaded machine: a dozen of them at once).
# The two dominant-colour conformance suites (every corpus file against Python colorthief, and the
# fast mode against the exact one) run in the release step only: their Swift side quantizes whole
# images pixel by pixel, minutes at -Onone (the fast-mode suite: 107 s, against 3.7 s at -O), and
# the numbers they compare are the optimised build's, which is what ships.
conformance_suites=(--skip ColorThiefConformanceTests --skip FastDominantColorTests)
step "processing tests (reference comparisons)"
swift test --skip-build --disable-xctest --filter LoupeProcessingTests "${conformance_suites[@]}"
step "codec tests (corpus, reference comparisons, all 16.7M colours through lcms2)"
swift test --skip-build --disable-xctest --filter LoupeCodecsTests

# Apart, because they measure what a user sees while scrolling (images ready in time), which
# depends on the machine not being busy with two hundred other tests.
step "scroll simulation tests"
swift test --skip-build --disable-xctest --filter ScrollSimulationTests

# Apart, because they put a real HTTP server under load (100 concurrent requests, 2,000 malformed
# paths) whose timeouts would be shared with the rest of the suite's. Bounded (~1 min here): a
# request that never ends must fail CI with the suite's output, not hold it for 90 minutes.
step "image service tests (loupe serve over real HTTP)"
timeout 900 swift test --skip-build --disable-xctest --filter LoupeServerTests --skip BombTests "${skip_s3[@]}"

step "S3 sources against Ceph's RADOS Gateway (Scripts/s3/gateway.sh, one per test process)"
timeout 600 swift test --skip-build --disable-xctest --filter "$s3_suites"

# Apart, because they start whole clusters with Scripts/ops/cluster.sh (two `loupe serve` processes
# behind nginx) and put 2,000 requests through each; bounded, since a hung child must not hold CI
# for its 90 minutes (~1.5 min here).
step "cluster tests (Scripts/ops/cluster.sh: loupe serve instances behind nginx)"
timeout 600 swift test --skip-build --disable-xctest --filter LoupeClusterTests --skip ResultStorageClusterTests
# After the others, not beside them (suites run in parallel): two clusters at once on two cores.
# It shares results through a bucket on Ceph's RADOS Gateway (~30 s with the gateway's start).
timeout 600 swift test --skip-build --disable-xctest --filter ResultStorageClusterTests

# Apart, because it drives a real browser: Debian's headless Chromium through Debian's
# python3-selenium (hence /usr/bin/python3, not a venv's) against `loupe serve --dev` on
# 127.0.0.1; bounded, its waits are too (~20 s here).
step "playground browser tests (headless Chromium against loupe serve --dev)"
timeout 300 /usr/bin/python3 Scripts/ci/playground-test.py --loupe .build/debug/loupe --screenshots .build/playground-screenshots

# Apart, because it is a package of its own (an app that depends on Loupe by path and mounts its
# image routes under /images), built the way a Swift server team would build theirs. Into the debug
# build's folder: its dependencies are the ones just built with the same flags, so only the app's
# own targets compile (20 s; in a folder of its own, nine minutes of compiling NIO, Hummingbird
# and Loupe again).
step "the embedding example (Examples/EmbeddedService)"
(cd Examples/EmbeddedService && swift build --build-tests --scratch-path ../../.build \
  && swift test --skip-build --disable-xctest --scratch-path ../../.build)

step "tests under ThreadSanitizer"
# halt_on_error makes the first data race a non-zero exit instead of a log line; the suppressions
# file lists the third-party false positives, each with its reason.
tsan_options="halt_on_error=1 second_deadlock_stack=1 suppressions=$PWD/Scripts/ci/tsan-suppressions.txt"
# In two processes, one after the other: all 250 tests at once under ThreadSanitizer kept two
# cores busy for half a minute, and every test's wall time was that half minute, bounds included
# (seen: a 10 s receive timeout and a 20 s bound missed).
swift build --build-tests --sanitize=thread --scratch-path .build-tsan
TSAN_OPTIONS="$tsan_options" \
  swift test --skip-build --disable-xctest --sanitize=thread --scratch-path .build-tsan --filter 'LoupeCachingTests|LoupeLoadingTests|LoupeOriginTests' \
  --skip DownloadDeadlineTests "${skip_s3[@]}"
TSAN_OPTIONS="$tsan_options" \
  swift test --skip-build --disable-xctest --sanitize=thread --scratch-path .build-tsan --filter 'LoupeTests' \
  --skip ScrollSimulationTests
# The service apart here too: under ThreadSanitizer its 100-request bursts are slow enough to
# share timeouts badly with the suites above. Left out here: the bomb tests, which time a
# `loupe serve` child process (whose races this run could not see, being another process; an
# instrumented child is too slow for their one-second bounds), and the download deadline's
# 1 s timings; both run in the debug and release steps.
TSAN_OPTIONS="$tsan_options" \
  timeout 1800 swift test --skip-build --disable-xctest --sanitize=thread --scratch-path .build-tsan --filter LoupeServerTests \
  --skip BombTests "${skip_s3[@]}"
TSAN_OPTIONS="$tsan_options" \
  timeout 900 swift test --skip-build --disable-xctest --sanitize=thread --scratch-path .build-tsan --filter "$s3_suites"

# Apps ship optimised builds, and Swift 6.3.1's optimiser has miscompiled Loupe once where debug
# builds were right (docs/known-issues.md), so every test runs again at -O (the scroll simulation
# excepted: it measures timing, and has no task groups of its own). -enable-testing lets the @testable imports compile; a scratch path of its own keeps
# the README's release build exactly as users get it.
step "tests in a release build"
swift build -c release --build-tests -Xswiftc -enable-testing --scratch-path .build-release-tests
swift test -c release --skip-build --disable-xctest --scratch-path .build-release-tests \
  --skip LoupeProcessingTests --skip LoupeCodecsTests --skip ScrollSimulationTests --skip LoupeServerTests --skip LoupeClusterTests \
  "${skip_timed[@]}" "${skip_s3[@]}"
for suite in "${timed_suites[@]}"; do
  timeout 300 swift test -c release --skip-build --disable-xctest --scratch-path .build-release-tests --filter "$suite"
done
swift test -c release --skip-build --disable-xctest --scratch-path .build-release-tests --filter LoupeCodecsTests
swift test -c release --skip-build --disable-xctest --scratch-path .build-release-tests --filter LoupeProcessingTests
timeout 900 swift test -c release --skip-build --disable-xctest --scratch-path .build-release-tests --filter LoupeServerTests --skip BombTests "${skip_s3[@]}"
# thumbor's filter tests as a conformance suite (its failures each explained in docs/thumbor.md):
# in the release build only: its image comparisons run many times faster optimised.
LOUPE_THUMBOR_FILTER_CONFORMANCE=1 timeout 600 swift test -c release --skip-build --disable-xctest --scratch-path .build-release-tests \
  --filter ThumborFilterConformanceTests
timeout 600 swift test -c release --skip-build --disable-xctest --scratch-path .build-release-tests --filter "$s3_suites"

# The API reference: the DocC catalogs of the library products (Sources/*/*.docc), every symbol
# link resolved. It builds in the debug build's folder, after every step that uses that build.
step "documentation (DocC, warnings as errors)"
swift package generate-documentation --target Loupe --target LoupeServer --warnings-as-errors

step "the documentation's commands"
# The main job the README gives (`swift run -c release loupe demo`; it checks its own scenarios
# and exits 1 if one breaks), then every console example of README.md and docs/*.md, whose output
# must be what the page shows. Both with the release build made for the tests above: the same
# optimised code (-enable-testing only makes internal symbols visible), without a third build of
# everything (eight minutes of CI).
.build-release-tests/release/loupe demo
python3 Scripts/ci/check-readme.py .build-release-tests/release
step "done"
