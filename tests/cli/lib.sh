# Shared by the tests/cli/test_*.sh scripts (sourced, not run): reporting in
# CTest's terms, the treg-analyze under test, and byte patches of code
# objects.  The sourcing script sets prog first.
# shellcheck shell=bash
# shellcheck disable=SC2154 # prog is set by the sourcing script

# skip MESSAGE: CTest's skip (SKIP_RETURN_CODE 77), with the reason.
skip() {
  echo "$prog: SKIP: $*"
  exit 77
}

# fail MESSAGE: the test fails, naming why.
fail() {
  echo "$prog: FAIL: $*" >&2
  exit 1
}

# require_analyzer: TREG_ANALYZE names an executable treg-analyze (CTest sets it).
require_analyzer() {
  [[ -n ${TREG_ANALYZE:-} ]] || fail "TREG_ANALYZE is not set (path of treg-analyze; CTest sets it)"
  [[ -x $TREG_ANALYZE ]] || fail "treg-analyze not found or not executable at $TREG_ANALYZE"
}

# patch IN OUT PYTHON: OUT is IN's bytes after the python3 statements, which
# edit the bytearray b; replace(old, new) swaps every occurrence of old for
# new (same length; old must occur).
patch() {
  python3 - "$1" "$2" "$3" <<'PY'
import sys
src, dst, code = sys.argv[1], sys.argv[2], sys.argv[3]
b = bytearray(open(src, "rb").read())
def replace(old, new):
    assert len(old) == len(new), (old, new)
    i = b.find(old)
    if i < 0:
        sys.exit(f"{src}: {old!r} not found")
    while i >= 0:
        b[i:i + len(old)] = new
        i = b.find(old, i + len(new))
exec(code)
open(dst, "wb").write(b)
PY
}
