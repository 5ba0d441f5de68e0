#!/usr/bin/env bash
# Rewrites README's table of settings (between its two markers) with what
# trnccl-doctor --settings prints; tests/doctor checks the two agree.
# Usage: scripts/update_readme_settings.sh [path/to/trnccl-doctor]
set -euo pipefail
cd "$(dirname "$0")/.."
doctor=${1:-build/bin/trnccl-doctor}
table=$("$doctor" --settings)
awk -v table="$table" '
  /^<!-- settings: trnccl-doctor --settings -->$/ { print; print table; skipping = 1; next }
  /^<!-- end of settings -->$/ { skipping = 0 }
  !skipping' README.md > README.md.new
mv README.md.new README.md
