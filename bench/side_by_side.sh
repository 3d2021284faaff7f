# Shared start of the side-by-side scripts (sourced, not run): strict
# mode, the repository root as working directory, the release binary in
# $bin and a scratch folder in $scratch, removed on exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bin=target/release/plackett
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
