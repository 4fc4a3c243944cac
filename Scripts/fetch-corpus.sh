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
#   - Debian golang-golang-x-image-dev and gdk-pixbuf-tests again, for legacy/: their BMP and
#     TIFF files (every bit depth, compression and layout x/image tests)
#   - Debian adwaita-icon-theme, tango-icon-theme and desktop-base, for svg/: SVG icons, logos
#     and wallpapers, with rsvg-convert's drawings as references
# and, in Corpus/color/, colour-managed files made from those photos with the real tools
# (jpgicc from liblcms2-utils, ImageMagick, cjpeg, cjxl/djxl, Pillow) and the ICC profiles of
# Debian's colord-data, icc-profiles-free and libgs-common (see color_corpus below).
# Idempotent: does nothing when Corpus/.complete (Corpus/color/.complete) matches its version.
set -euo pipefail
cd "$(dirname "$0")/.."

version="1"
corpus="Corpus"
skimage_version="0.26.0"
color_version="2"

# Whether the corpus folder $1 is complete at version $2 (saying so, naming it $3).
is_current() {
  [ -f "$1/.complete" ] && [ "$(cat "$1/.complete")" = "$2" ] && echo "corpus: $3 already present in $1/"
}

# Downloads the Debian packages named after the folder into it and unpacks them into its root/
# (refreshing the package lists once when apt-get download needs them).
unpack_debs() {
  local dir="$1"
  shift
  (cd "$dir" && apt-get download "$@" >/dev/null 2>&1) || {
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    (cd "$dir" && apt-get download "$@")
  }
  for deb in "$dir"/*.deb; do dpkg -x "$deb" "$dir/root"; done
}

# Colour-managed JPEG, PNG and WebP files, each converted from an sRGB photo into its colour
# space by lcms2's jpgicc (relative colorimetric, black-point compensation) with the profile
# embedded, so that decoding them back to sRGB must land near the original.
color_corpus() {
  local out="$corpus/color"
  is_current "$out" "$color_version" "colour files" && return
  local work
  work="$(mktemp -d)"
  rm -rf "$out"
  mkdir -p "$out"
  unpack_debs "$work" colord-data icc-profiles-free libgs-common
  local icc="$work/root/usr/share/color/icc"
  mkdir -p "$out/profiles"
  cp "$icc/colord/AdobeRGB1998.icc" "$icc/colord/ProPhotoRGB.icc" "$icc/colord/sRGB.icc" \
     "$icc/Gray-CIE_L.icc" "$icc/ghostscript/default_cmyk.icc" "$out/profiles/"
  # Display P3 as libjxl writes it: a P3-tagged JPEG XL decoded to PNG carries the profile.
  cjxl "$corpus/skimage/coffee.png" "$work/p3.jxl" -x color_space=RGB_D65_DCI_Rel_SRG >/dev/null 2>&1
  djxl "$work/p3.jxl" "$work/p3.png" >/dev/null 2>&1
  convert "$work/p3.png" "$out/profiles/DisplayP3.icc"

  convert "$corpus/skimage/coffee.png" "$work/coffee.ppm"
  cjpeg -quality 92 -outfile "$out/srgb-untagged.jpg" "$work/coffee.ppm"
  local p="$out/profiles"
  jpgicc -t1 -b -q92 -o"$p/DisplayP3.icc" -e "$out/srgb-untagged.jpg" "$out/p3.jpg" >/dev/null 2>&1
  jpgicc -t1 -b -q92 -o"$p/AdobeRGB1998.icc" -e "$out/srgb-untagged.jpg" "$out/adobergb.jpg" >/dev/null 2>&1
  jpgicc -t1 -b -q92 -o"$p/ProPhotoRGB.icc" -e "$out/srgb-untagged.jpg" "$out/prophoto.jpg" >/dev/null 2>&1
  jpgicc -t1 -b -q92 -o"$p/sRGB.icc" -e "$out/srgb-untagged.jpg" "$out/srgb-tagged.jpg" >/dev/null 2>&1
  jpgicc -t1 -b -q92 -o"$p/Gray-CIE_L.icc" -e "$out/srgb-untagged.jpg" "$out/grey-lstar.jpg" >/dev/null 2>&1
  # CMYK as Photoshop stores it: Adobe APP14 marker, inverted values, a 187 KB profile in
  # three APP2 segments. ImageMagick re-encodes it as YCCK (Adobe transform 2).
  jpgicc -t1 -b -q92 -o"$p/default_cmyk.icc" -e "$out/srgb-untagged.jpg" "$out/cmyk-adobe.jpg" >/dev/null 2>&1
  convert "$out/cmyk-adobe.jpg" -quality 92 -define jpeg:colorspace=5 "$out/ycck.jpg"
  # The same image in a colour space-tagged PNG and WebP (ImageMagick and Pillow carry the
  # profile over), and one PNG with alpha.
  convert "$out/adobergb.jpg" "$out/adobergb.png"
  convert "$out/prophoto.jpg" -alpha set -channel A -fx '0.4+0.6*i/w' +channel "$out/prophoto-alpha.png"
  # Pillow from the conformance venv (made here if missing; test.sh makes it first anyway).
  local python=".venv-conformance/bin/python"
  [ -x "$python" ] || bash Scripts/conformance/venv.sh >&2
  "$python" - "$out" <<'PY'
import io, sys
from PIL import Image
out = sys.argv[1]
p3 = Image.open(f"{out}/p3.jpg")
p3.save(f"{out}/p3.webp", quality=92, icc_profile=p3.info["icc_profile"])
p3.save(f"{out}/p3-lossless.webp", lossless=True, icc_profile=p3.info["icc_profile"])
# A phone photo's metadata: EXIF orientation 6 and a GPS position (which no output may carry).
exif = Image.Exif()
exif[0x0112] = 6
exif[0x010F] = "Loupe test camera"
exif[0x8825] = {1: "N", 2: (48.0, 51.0, 24.0), 3: "E", 4: (2.0, 21.0, 3.0)}
p3.save(f"{out}/exif-gps.jpg", quality=92, icc_profile=p3.info["icc_profile"], exif=exif.tobytes())
# Plain CMYK (no Adobe marker, 255 = full ink) is rarer but real (some scanners, old
# QuarkXPress exports): Pillow writes inverted data with an Adobe marker, so the inverted image
# is written and the marker removed, leaving the ink values stored as they are.
cmyk = Image.open(f"{out}/cmyk-adobe.jpg")
buffer = io.BytesIO()
Image.eval(cmyk, lambda v: 255 - v).save(buffer, "JPEG", quality=92, icc_profile=cmyk.info["icc_profile"])
data = buffer.getvalue()
start = data.find(b"\xff\xee")
length = int.from_bytes(data[start + 2:start + 4], "big")
assert start > 0 and data[start + 4:start + 9] == b"Adobe"
with open(f"{out}/cmyk-plain.jpg", "wb") as f:
    f.write(data[:start] + data[start + 2 + length:])
# CMYK with no profile at all: the built-in fallback.
with open(f"{out}/cmyk-adobe-noprofile.jpg", "wb") as f:
    buffer = io.BytesIO()
    cmyk.save(buffer, "JPEG", quality=92)
    f.write(buffer.getvalue())
PY
  # A damaged profile: the Adobe RGB JPEG with its profile's tag table cut short.
  python3 - "$out" <<'PY'
import sys
out = sys.argv[1]
data = bytearray(open(f"{out}/adobergb.jpg", "rb").read())
start = data.find(b"ICC_PROFILE\0") + 14
data[start + 128:start + 132] = (0x7fffffff).to_bytes(4, "big")  # absurd tag count
open(f"{out}/damaged-profile.jpg", "wb").write(bytes(data))
PY
  rm -rf "$work"
  echo "$color_version" > "$out/.complete"
  echo "corpus: $(find "$out" -type f | wc -l) colour files in $out/"
}

formats_version="3"

# HEIF, AVIF and JPEG XL files made by the formats' own encoders (heif-enc from
# libheif-examples, avifenc from libavif-bin, cjxl from libjxl-tools; pillow-heif, whose
# libheif writes irot/imir from an EXIF orientation, which heif-enc 1.15 does not) from the
# corpus photos: 8 and 10 bits, alpha, a Display P3 profile, irot/imir, thumbnail items,
# lossless; vips (libvips-tools) decodes each to a PNG reference (ICC kept) in
# Corpus/formats/reference/ (and the thumbnail item), plus broken and truncated files.
formats_corpus() {
  local out="$corpus/formats"
  is_current "$out" "$formats_version" "HEIF/AVIF/JPEG XL files" && return
  local work
  work="$(mktemp -d)"
  rm -rf "$out"
  mkdir -p "$out/reference"
  local coffee="$corpus/skimage/coffee.png" alpha="$corpus/x-image/tux.png"
  convert "$coffee" -depth 16 "$work/coffee16.png"
  convert "$corpus/color/p3.jpg" "$work/p3.png"                       # keeps the P3 profile
  heif-enc -q 85 -o "$out/coffee.heic" "$coffee" >/dev/null
  heif-enc -q 85 -b 10 -o "$out/coffee-10bit.heic" "$work/coffee16.png" >/dev/null
  heif-enc -q 85 -o "$out/tux-alpha.heic" "$alpha" >/dev/null
  heif-enc -q 85 -o "$out/p3.heic" "$work/p3.png" >/dev/null
  heif-enc -q 85 -t 320 -o "$out/coffee-thumbnail.heic" "$coffee" >/dev/null
  local python=".venv-conformance/bin/python"
  [ -x "$python" ] || bash Scripts/conformance/venv.sh >&2
  # EXIF orientation 6 becomes irot; 7 becomes irot and imir.
  "$python" - "$coffee" "$out" <<'PY'
import sys
from PIL import Image
import pillow_heif
pillow_heif.register_heif_opener()
image = Image.open(sys.argv[1])
for orientation, name in ((6, "coffee-irot.heic"), (7, "coffee-irot-imir.heic")):
    exif = Image.Exif()
    exif[0x0112] = orientation
    image.save(f"{sys.argv[2]}/{name}", quality=85, exif=exif.tobytes())
PY
  avifenc -s 8 --min 20 --max 20 "$coffee" "$out/coffee.avif" >/dev/null
  avifenc -s 8 --min 20 --max 20 -d 10 "$work/coffee16.png" "$out/coffee-10bit.avif" >/dev/null
  avifenc -s 8 --min 20 --max 20 "$alpha" "$out/tux-alpha.avif" >/dev/null
  avifenc -s 8 --min 20 --max 20 "$work/p3.png" "$out/p3.avif" >/dev/null
  avifenc -s 8 --min 20 --max 20 --irot 1 "$coffee" "$out/coffee-irot1.avif" >/dev/null
  avifenc -s 8 --min 20 --max 20 --irot 3 --imir 1 "$coffee" "$out/coffee-irot3-imir1.avif" >/dev/null
  avifenc -s 8 --min 20 --max 20 --imir 0 "$coffee" "$out/coffee-imir0.avif" >/dev/null
  # avifenc writes no thumbnail item; heif-enc writes AVIF with one (AV1 through libaom).
  heif-enc -A -q 60 -t 160 -o "$out/coffee-thumbnail.avif" "$coffee" >/dev/null
  cjxl "$coffee" "$out/coffee.jxl" -q 90 >/dev/null 2>&1
  cjxl "$coffee" "$out/coffee-lossless.jxl" -d 0 >/dev/null 2>&1
  cjxl "$alpha" "$out/tux-alpha.jxl" -q 90 >/dev/null 2>&1
  cjxl "$work/p3.png" "$out/p3.jxl" -q 90 >/dev/null 2>&1
  for file in "$out"/*.heic "$out"/*.avif "$out"/*.jxl; do
    # (vips warns that it ignores nclx boxes; here they describe sRGB, or an ICC profile comes first.)
    vips copy "$file" "$out/reference/$(basename "$file").png" 2>/dev/null
  done
  for file in coffee-thumbnail.heic coffee-thumbnail.avif; do
    vips copy "$out/$file[thumbnail]" "$out/reference/$file.thumbnail.png"
  done
  # Broken files: cut short at a third, and with the middle third overwritten.
  mkdir -p "$out/broken"
  for file in "$out/coffee.heic" "$out/coffee.avif" "$out/coffee.jxl"; do
    local name size
    name="$(basename "$file")"
    size=$(stat -c %s "$file")
    head -c $((size / 3)) "$file" > "$out/broken/truncated-$name"
    { head -c $((size / 3)) "$file"; head -c $((size / 3)) /dev/zero; tail -c +$((2 * size / 3 + 1)) "$file"; } > "$out/broken/zeroed-$name"
  done
  rm -rf "$work"
  echo "$formats_version" > "$out/.complete"
  echo "corpus: $(find "$out" -type f | wc -l) HEIF/AVIF/JPEG XL files in $out/"
}

legacy_version="1"

# TIFF, BMP and ICO, in legacy/: the BMP and TIFF files of golang.org/x/image's tests (1 to 32
# bits, RLE, V5 headers; strips, tiles, LZW, Deflate, PackBits, CCITT, 16-bit, grey, palette)
# and gdk-pixbuf's; what no package ships is made from them with Pillow (TIFF with an
# Orientation tag, TIFF with an ICC profile, alpha TIFF) and ImageMagick (icons: BMP entries at
# 16, 32, 48 px, a PNG entry at 256 px). reference/ holds Pillow's RGBA decode of each file.
legacy_corpus() {
  local out="$corpus/legacy"
  is_current "$out" "$legacy_version" "legacy files" && return
  local work
  work="$(mktemp -d)"
  rm -rf "$out"
  mkdir -p "$out/reference"
  unpack_debs "$work" golang-golang-x-image-dev gdk-pixbuf-tests
  cp "$work"/root/usr/share/gocode/src/golang.org/x/image/testdata/*.bmp \
     "$work"/root/usr/share/gocode/src/golang.org/x/image/testdata/*.tiff "$out/"
  cp "$work/root/usr/libexec/installed-tests/gdk-pixbuf/dpi.tiff" "$out/"
  convert "$corpus/x-image/tux.png" -define icon:auto-resize=48,32,16 "$out/tux-bmp.ico"
  convert "$corpus/x-image/tux.png" -resize 256x256 -define icon:auto-resize=256,32 "$out/tux-png.ico"
  local python=".venv-conformance/bin/python"
  [ -x "$python" ] || bash Scripts/conformance/venv.sh >&2
  "$python" - "$corpus" "$out" <<'PY'
import glob, os, sys
from PIL import Image
corpus, out = sys.argv[1], sys.argv[2]
coffee = Image.open(f"{corpus}/skimage/coffee.png").convert("RGB")
coffee.save(f"{out}/coffee-orientation6.tiff", tiffinfo={274: 6}, compression="tiff_lzw")
p3 = Image.open(f"{corpus}/color/p3.jpg")
p3.save(f"{out}/p3.tiff", icc_profile=p3.info["icc_profile"], compression="tiff_adobe_deflate")
Image.open(f"{corpus}/x-image/tux.png").convert("RGBA").save(f"{out}/tux-alpha.tiff", compression="tiff_adobe_deflate")
for path in sorted(glob.glob(f"{out}/*.bmp") + glob.glob(f"{out}/*.tiff") + glob.glob(f"{out}/*.ico")):
    image = Image.open(path)
    if path.endswith(".ico"):
        image.size = max(image.info["sizes"])
    image.convert("RGBA").save(f"{out}/reference/{os.path.basename(path)}.png")
PY
  rm -rf "$work"
  echo "$legacy_version" > "$out/.complete"
  echo "corpus: $(find "$out" -type f | wc -l) TIFF/BMP/ICO files in $out/"
}

svg_version="1"

# SVG documents from Debian's icon themes and desktop artwork (symbolic Adwaita icons, Tango's
# Inkscape icons with gradients, filters and clones, Debian's logos and two wallpapers), in
# svg/ named <theme>-<file>; reference/ holds rsvg-convert's (librsvg2-bin) drawing of each at
# 96 DPI, at its own size and at zoom 0.37 (the reduced draws the decoder must match).
svg_corpus() {
  local out="$corpus/svg" work
  is_current "$out" "$svg_version" "SVG files" && return
  work="$(mktemp -d)"
  rm -rf "$out" && mkdir -p "$out/reference" && unpack_debs "$work" adwaita-icon-theme tango-icon-theme desktop-base
  local share="$work/root/usr/share"
  for name in places/user-trash-symbolic places/folder-symbolic actions/edit-copy-symbolic devices/camera-photo-symbolic \
              status/weather-clear-symbolic emotes/face-smile-symbolic; do
    cp "$share/icons/Adwaita/scalable/$name.svg" "$out/adwaita-$(basename "$name").svg"
  done
  for name in apps/internet-web-browser apps/accessories-calculator actions/document-save mimetypes/x-office-document \
              status/weather-storm devices/computer emblems/emblem-favorite categories/preferences-system apps/utilities-terminal \
              places/user-trash places/start-here status/dialog-warning; do
    cp "$share/icons/Tango/scalable/$name.svg" "$out/tango-$(basename "$name").svg"
  done
  cp "$share/desktop-base/debian-logos/logo.svg" "$out/debian-logo.svg"
  cp "$share/desktop-base/debian-logos/logo-text.svg" "$out/debian-logo-text.svg"
  cp "$share/desktop-base/emerald-theme/wallpaper/contents/images/1280x800.svg" "$out/emerald-1280x800.svg"
  cp "$share/desktop-base/homeworld-theme/wallpaper/contents/images/1280x1024.svg" "$out/homeworld-1280x1024.svg"
  for file in "$out"/*.svg; do
    rsvg-convert --dpi-x 96 --dpi-y 96 -o "$out/reference/$(basename "$file").png" "$file"
    rsvg-convert --dpi-x 96 --dpi-y 96 --zoom 0.37 -o "$out/reference/$(basename "$file").zoom.png" "$file"
  done
  rm -rf "$work"
  echo "$svg_version" > "$out/.complete"
  echo "corpus: $(find "$out" -name '*.svg' | wc -l) SVG files in $out/"
}

if [ -f "$corpus/.complete" ] && [ "$(cat "$corpus/.complete")" = "$version" ]; then
  echo "corpus: already present in $corpus/"
  color_corpus
  formats_corpus
  legacy_corpus
  svg_corpus
  exit 0
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rm -rf "$corpus"
mkdir -p "$corpus"

echo "corpus: downloading Debian packages"
unpack_debs "$work" golang-1.19-src golang-golang-x-image-dev gdk-pixbuf-tests

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
color_corpus
formats_corpus
legacy_corpus
svg_corpus
