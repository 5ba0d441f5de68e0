#!/usr/bin/env bash
# scripts/check_format.sh fails on an unformatted file, naming it: the check
# run on a scratch tree of its own with the project's .clang-format.
set -euo pipefail
source_dir=$1
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/scripts"
cp "$source_dir/.clang-format" "$scratch/"
cp "$source_dir/scripts/check_format.sh" "$scratch/scripts/"
printf 'int main() { return 0; }\n' > "$scratch/good.cc"
printf 'int  main( ){return 0;}\n' > "$scratch/bad.cc"
git -C "$scratch" init -q
if "$scratch/scripts/check_format.sh" > "$scratch/out" 2>&1; then
  echo "check_format.sh passed a tree with bad.cc unformatted"
  exit 1
fi
grep -q '^bad.cc:1:.*clang-format-violations' "$scratch/out" || { cat "$scratch/out"; exit 1; }
if grep -q 'good.cc' "$scratch/out"; then
  echo "check_format.sh named the formatted good.cc"
  exit 1
fi
