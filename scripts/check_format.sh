#!/usr/bin/env bash
# Checks that the tree's C++ files are as clang-format writes them with its
# .clang-format: every .cc and .h that git tracks or would add, or with
# --since COMMIT only those changed since COMMIT's merge-base with HEAD. A
# file that is not fails the check with clang-format's note of where;
# `clang-format -i FILE` rewrites it. CLANG_FORMAT names the program.
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format}

if [ "${1:-}" = "--since" ]; then
  base=$(git merge-base "$2" HEAD)
  mapfile -t files < <(git diff --name-only --diff-filter=d "$base" -- '*.cc' '*.h')
else
  mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cc' '*.h')
fi
((${#files[@]})) || exit 0
printf '%s\0' "${files[@]}" | xargs -0 -n 50 "$clang_format" --dry-run -Werror
