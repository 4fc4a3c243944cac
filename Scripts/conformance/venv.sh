#!/usr/bin/env bash
# Creates .venv-conformance (git-ignored) with the pinned Python reference implementations
# (Scripts/conformance/requirements.txt) that LoupeProcessing's conformance tests and the
# `processing` benchmark run beside our code. Idempotent: reinstalls only when the
# requirements change.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=".venv-conformance"
requirements="Scripts/conformance/requirements.txt"
stamp="$venv/.requirements"
if [ -f "$stamp" ] && cmp -s "$stamp" "$requirements"; then
  echo "conformance venv: up to date in $venv/"
  exit 0
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check -r "$requirements"
cp "$requirements" "$stamp"
echo "conformance venv: installed $(grep -vc '^#' "$requirements") packages in $venv/"
