#!/usr/bin/env bash
# Installs the system packages Loupe needs on Debian 12 (idempotent: apt runs only when
# something is missing). The Swift toolchain itself is expected at /opt/swift or on PATH.
set -euo pipefail

# One list for the whole project: build dependencies (C libraries for the codecs) and the
# tools the test suite uses. Add to it, never install by hand.
packages=(
  pkg-config
  nginx-light   # the real HTTP origin of the loading tests
  libjpeg62-turbo-dev libpng-dev libwebp-dev libgif-dev   # codecs (LoupeCodecs)
  libdeflate-dev                                          # whole-buffer inflate of the PNG fast path
  libssl-dev                                              # libcrypto: SHA-256 and HMAC (LoupeLoading's Digest)
  liblcms2-dev libheif-dev libavif-dev libjxl-dev         # colour management (ICC -> sRGB), HEIF, AVIF, JPEG XL
  libheif-examples libavif-bin                            # heif-enc, avifenc: the HEIF/AVIF test files
  libtiff-dev                                             # TIFF (libtiff, opened on first use like libheif)
  librsvg2-dev librsvg2-bin                               # SVG (librsvg, opened on first use); rsvg-convert: the SVG references
  liblcms2-utils imagemagick libjxl-tools                 # jpgicc, convert, cjxl/djxl: the colour test corpus
  libjpeg-turbo-progs libvips-tools python3-venv          # djpeg (codec tests, benchmark); vipsthumbnail, venv (benchmark)
  jq                                                      # the docs' loupe fetch --json examples
  wrk                                                     # load generator of Scripts/bench/bench-serve.sh
  curl openssl xxd                                        # the docs' loupe serve examples (requests, signing)
  valgrind                                                # callgrind (pipeline-instructions)
  linux-perf                                              # perf stat (Scripts/bench/perf-cold.sh)
  libimagequant-dev gifsicle webp                         # GIF palettes (libimagequant); gifsicle, webpmux: animation references
  chromium chromium-driver python3-selenium               # the playground's browser tests (headless Chromium)
  radosgw ceph-mon ceph-osd ceph-common                   # the S3 gateway of the s3:// tests (Scripts/s3/gateway.sh)
  libopencv-objdetect-dev libopencv-imgproc-dev libopencv-core-dev opencv-data  # face and feature detection (libLoupeVision: thumbor's smart crop), its cascades
  python3-opencv                                          # OpenCV's own Python binding: the face detection reference
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  # One line per step here; the package manager's own output goes to a log, named (with its
  # last lines) only when a step fails.
  setup_log="${TMPDIR:-/tmp}/loupe-setup.log"
  : > "$setup_log"
  setup_step() {
    local what="$1"; shift
    echo "setup: $what"
    if ! "$@" >> "$setup_log" 2>&1; then
      echo "setup: failed: $what; the package manager's output is in $setup_log, ending with:" >&2
      tail -n 20 "$setup_log" >&2
      return 1
    fi
  }
  setup_step "updating the package lists" $sudo apt-get update
  setup_step "installing ${#missing[@]} packages: ${missing[*]}" \
    env DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y --no-install-recommends "${missing[@]}"
else
  echo "setup: system packages present"
fi

command -v swift >/dev/null 2>&1 || export PATH="/opt/swift/usr/bin:$PATH"
command -v swift >/dev/null 2>&1 || { echo "setup: no Swift toolchain found (expected /opt/swift)" >&2; exit 1; }
