#!/usr/bin/env bash
# Creates .venv-conformance (git-ignored) with the pinned Python reference implementations
# (Scripts/conformance/requirements.txt) that LoupeProcessing's conformance tests and the
# `processing` benchmark run beside our code, and thumbor's test data from its source
# distribution on PyPI (thumbor_sdist below: the service's thumbor-dialect conformance tests read
# its transformer cases, its filter tests and their fixture images, and the smart-crop tests the
# photos of its face detector's tests; the wheel ships no tests). Idempotent: reinstalls only when the requirements change.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=".venv-conformance"
requirements="Scripts/conformance/requirements.txt"
stamp="$venv/.requirements"
thumbor_sdist="thumbor==7.8.0"
thumbor_data="$venv/thumbor-sdist/tests/fixtures/transformer_test_data.py"
thumbor_filter_data="$venv/thumbor-sdist/thumbor/fixtures/filters/source.jpg"
thumbor_face_data="$venv/thumbor-sdist/tests/fixtures/images/no_face.jpg"
fetch_thumbor_data() {
  local download
  download="$(mktemp -d)"
  "$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --no-binary :all: -d "$download" "$thumbor_sdist"
  mkdir -p "$venv/thumbor-sdist"
  tar xzf "$download"/thumbor-*.tar.gz -C "$venv/thumbor-sdist" --strip-components=1 --wildcards '*/tests/fixtures/transformer_test_data.py' \
    '*/tests/filters/*.py' '*/thumbor/fixtures/filters/*' \
    '*/tests/fixtures/images/Giunchedi%2C_Filippo_January_2015_01.jpg' '*/tests/fixtures/images/no_face.jpg'
  rm -rf "$download"
}
if [ -f "$stamp" ] && cmp -s "$stamp" "$requirements"; then
  [ -f "$thumbor_data" ] && [ -f "$thumbor_filter_data" ] && [ -f "$thumbor_face_data" ] || fetch_thumbor_data
  echo "conformance venv: up to date in $venv/"
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
fetch_thumbor_data
cp "$requirements" "$stamp"
echo "conformance venv: installed $(grep -vc '^#' "$requirements") packages in $venv/"
