#!/usr/bin/env bash
# The careful-C-shop checks that are not compiler warnings: every C file
# follows .clang-format, cppcheck finds nothing, shellcheck passes the
# scripts.  Run by scripts/test.sh before the builds; exits non-zero on any
# finding, naming the file.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# the fixtures' .hip are left as written: their line numbers are in the tests
mapfile -t csrc < <(git ls-files '*.c' '*.h' 'examples/*.hip')
mapfile -t shsrc < <(git ls-files '*.sh' .ci/run)

echo "== clang-format ($(clang-format --version | grep -o 'version [0-9.]*'))"
for f in "${csrc[@]}"; do
    if ! clang-format --dry-run --Werror "$f" 2>/dev/null; then
        echo "lint: $f: not formatted as .clang-format says (clang-format -i $f)"
        status=1
    fi
done

echo "== cppcheck"
dirs=()
for d in base bundle analyzer worker proto compare render server client tools bench tests/unit tests/support; do
    [[ -d $d ]] && dirs+=("$d")
done
if ! cppcheck -q --error-exitcode=1 --enable=warning,style,performance,portability \
    --std=c11 --inline-suppr --suppress=missingIncludeSystem \
    -I base/include -I base -I bundle/include -I worker -I analyzer/include -I analyzer -I tests/support -I proto -I compare -I render "${dirs[@]}"; then
    echo "lint: cppcheck found problems (above)"
    status=1
fi

echo "== shellcheck"
if ! shellcheck -x "${shsrc[@]}"; then
    echo "lint: shellcheck found problems (above)"
    status=1
fi
exit $status
