#!/usr/bin/env bash
# Render an HTML report in headless Chromium (Debian package `chromium`) and
# save a screenshot, to check that it displays without network access.
#   bench/render_report.sh REPORT.html [OUT.png]
set -euo pipefail
report=$(realpath "$1")
out=${2:-${report%.html}.png}
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
  --disable-background-networking --disable-component-update --disable-sync \
  --user-data-dir="$profile" --window-size=1200,2400 --screenshot="$out" \
  "file://$report" 2>/dev/null
echo "screenshot: $out ($(stat -c %s "$out") bytes)"
