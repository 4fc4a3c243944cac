#!/usr/bin/env bash
# Assembles the codec test corpus in Corpus/ (git-ignored) from real files that other projects
# ship, exactly from these sources:
#   - Debian golang-1.19-src:          src/image/testdata, src/image/png/testdata (JPEG in every
#                                      subsampling, baseline/progressive, CMYK, PngSuite subset,
#                                      invalid PNGs, reference PNGs for the JPEGs)
#   - Debian golang-golang-x-image-dev: testdata (WebP lossy/lossless/alpha + reference PNGs)
#   - Debian gdk-pixbuf-tests:         installed-tests (EXIF orientation, animated GIFs, the
#                                      gif-test-suite with expected RGBA, fail/ and
#                                      randomly-modified/ corrupt files, bombs)
#   - PyPI scikit-image wheel:         skimage/data (real photographs)
# Idempotent: does nothing when Corpus/.complete matches this script's version.
set -euo pipefail
cd "$(dirname "$0")/.."

version="1"
corpus="Corpus"
skimage_version="0.26.0"
if [ -f "$corpus/.complete" ] && [ "$(cat "$corpus/.complete")" = "$version" ]; then
  echo "corpus: already present in $corpus/"
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf "$corpus"
mkdir -p "$corpus"

echo "corpus: downloading Debian packages"
(cd "$work" && apt-get download golang-1.19-src golang-golang-x-image-dev gdk-pixbuf-tests >/dev/null 2>&1) || {
  # apt-get download needs package lists; refresh them once and retry.
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  (cd "$work" && apt-get download golang-1.19-src golang-golang-x-image-dev gdk-pixbuf-tests)
}
for deb in "$work"/*.deb; do dpkg -x "$deb" "$work/root"; done

go="$work/root/usr/share/go-1.19/src/image"
mkdir -p "$corpus/go-image" "$corpus/go-png"
cp "$go"/testdata/* "$corpus/go-image/"
cp -r "$go"/png/testdata/* "$corpus/go-png/"

mkdir -p "$corpus/x-image"
cp "$work"/root/usr/share/gocode/src/golang.org/x/image/testdata/*.webp \
   "$work"/root/usr/share/gocode/src/golang.org/x/image/testdata/*.png "$corpus/x-image/"

pixbuf="$work/root/usr/libexec/installed-tests/gdk-pixbuf"
mkdir -p "$corpus/gdk-pixbuf"
cp -r "$pixbuf/test-images"/{fail,gif-test-suite,randomly-modified} "$corpus/gdk-pixbuf/"
find "$pixbuf" -maxdepth 1 -type f \( -name '*.jpg' -o -name '*.jpeg' -o -name '*.png' -o -name '*.gif' \) \
  -exec cp {} "$corpus/gdk-pixbuf/" \;

echo "corpus: downloading scikit-image $skimage_version wheel"
python3 -m pip download --quiet --no-deps --only-binary=:all: "scikit-image==$skimage_version" -d "$work/wheel"
mkdir -p "$corpus/skimage"
python3 - "$work"/wheel/*.whl "$corpus/skimage" <<'PY'
import sys, zipfile, os
wheel, target = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    for name in z.namelist():
        if name.startswith("skimage/data/") and name.lower().endswith((".png", ".jpg", ".jpeg", ".gif", ".webp")):
            with open(os.path.join(target, os.path.basename(name)), "wb") as out:
                out.write(z.read(name))
PY

echo "$version" > "$corpus/.complete"
echo "corpus: $(find "$corpus" -type f | wc -l) files in $corpus/"
