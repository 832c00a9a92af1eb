#!/usr/bin/env bash
# The project's test command (README, .ci/run): lint, a warnings-as-errors
# build and the whole CTest suite, then the same suite again under ASan+UBSan.
# Usage: scripts/test.sh [--fast]   (--fast skips the sanitizer pass)
set -euo pipefail
cd "$(dirname "$0")/.."
jobs=$(nproc 2>/dev/null || echo 2)
fast=0
[[ ${1:-} == --fast ]] && fast=1

run_suite() { # build-dir, extra cmake args...
    local dir=$1
    shift
    cmake -S . -B "$dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTREG_WERROR=ON "$@" >/dev/null
    cmake --build "$dir" -j "$jobs"
    (cd "$dir" && ctest --output-on-failure -j "$jobs")
}

echo "== lint: clang-format, cppcheck, shellcheck"
scripts/lint.sh
echo "== build (warnings are errors) and test"
run_suite build
if ((!fast)); then
    echo "== the same suite under AddressSanitizer + UndefinedBehaviorSanitizer"
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        run_suite build-asan -DTREG_SANITIZE=ON
fi
