#!/usr/bin/env bash
# Checks the C++ changed since a base commit against .clang-format (clang-format-14), so that the
# check can be turned on without reformatting the tree: only the files `git diff --name-only
# BASE` lists (the working tree against BASE, uncommitted changes included), and in them only
# the changed lines (git clang-format), unless --files asks for those files whole.
# Generated sources (src/month_names_table.cpp) are left out.
# Usage: scripts/check-format.sh [--files] [BASE]
#   BASE  default: the merge base of HEAD and main
# Exit: 0 formatted, 1 not (the diff that would fix it is printed), 2 usage or missing tool.
# To apply the fix: git clang-format-14 BASE (changed lines), or clang-format-14 -i FILE.
set -euo pipefail
cd "$(dirname "$0")/.."
whole=0
base=""
for a in "$@"; do
  case $a in
    --files) whole=1 ;;
    -h | --help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "check-format: unknown option '$a'" >&2; exit 2 ;;
    *) base=$a ;;
  esac
done
if [ -z "$base" ]; then
  base=$(git merge-base HEAD main 2>/dev/null) || { echo "check-format: no main branch; name a BASE commit" >&2; exit 2; }
fi
git rev-parse --verify -q "$base^{commit}" >/dev/null || { echo "check-format: '$base' is not a commit" >&2; exit 2; }
cf=$(command -v clang-format-14 || command -v clang-format || true)
[ -n "$cf" ] || { echo "check-format: clang-format-14 missing (Debian package clang-format-14)" >&2; exit 2; }

mapfile -t files < <(git diff --name-only --diff-filter=ACMR "$base" -- '*.cpp' '*.hpp' '*.h' |
  grep -v -x -e 'src/month_names_table.cpp' || true)
if ((${#files[@]} == 0)); then
  echo "check-format: no C++ file changed since $(git rev-parse --short "$base")"
  exit 0
fi

if [ "$whole" = 1 ]; then
  bad=()
  for f in "${files[@]}"; do
    if ! "$cf" --style=file --dry-run -Werror "$f" >/dev/null 2>&1; then
      bad+=("$f")
      diff -u --label "a/$f" --label "b/$f" "$f" <("$cf" --style=file "$f") || true
    fi
  done
  if ((${#bad[@]})); then
    echo "check-format: ${#bad[@]} of ${#files[@]} changed files are not formatted: ${bad[*]}" >&2
    exit 1
  fi
else
  gcf=$(command -v git-clang-format-14 || command -v git-clang-format || true)
  [ -n "$gcf" ] || { echo "check-format: git-clang-format missing (Debian package clang-format-14)" >&2; exit 2; }
  out=$("$gcf" --binary "$cf" --style file --diff "$base" -- "${files[@]}" 2>&1) || true
  if [[ "$out" == *"diff --git"* ]]; then
    printf '%s\n' "$out"
    echo "check-format: lines changed since $(git rev-parse --short "$base") are not formatted (the diff above fixes them)" >&2
    exit 1
  fi
fi
echo "check-format: ${#files[@]} changed C++ files formatted"
