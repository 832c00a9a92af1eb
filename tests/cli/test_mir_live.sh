#!/usr/bin/env bash
# Row-by-row differential test of treg-analyze against LLVM's post-RA liveness.
#
# The oracle is the project's own tests/oracle/mir_live.py ("compare LLIR ARCH
# TREG_ANALYZE"; its docstring says what it computes and why): it builds a
# Triton kernel's .llir with llc-22 three times (MIR stopped after
# amdgpu-resource-usage, .s, obj + ld.lld-22 -> .hsaco), runs
# "treg-analyze --format json" on the .hsaco and pairs every treg row with
# the MIR instruction at that address and LLVM's liveness there, LLVM's
# non-true16 d16 loads read as the ISA defines them (a write of one half that
# leaves the other alone) instead of as their MIR ties them (a read of the
# whole 32-bit destination, the overwritten half included).  Its mode hwpe
# (the hardware's operands plus treg's partial-EXEC rule) is the one treg
# must agree with.
#
# Kernels, in two sets:
#   corpus       every entry (a folder with NAME.json naming the "arch" and
#                NAME.llir) of $TREG_CORPUS/triton-cache (gfx90a, gfx942),
#                gfx906-llc22, triton-cache-targets (gfx908, gfx950,
#                gfx1100) and realworld-handover (public kernels where treg
#                once counted more than LLVM: _attn_bwd's v_fma_mixlo_f16,
#                SGPR tuples spilled into VGPR lanes half unwritten; and
#                gfx1100's matmul_kernel_persistent, whose true16 halves are
#                stored by 16-bit stores, where the oracle once read the
#                whole register: 63.66% of gfx1100 rows without that; in
#                tests/data their .llir is kept as .llir.xz and unpacked into
#                the work folder), each at its own arch: 93 kernels in the
#                shared corpus.
#   long-branch  the same .llir files built with llc-22's hidden option
#                -amdgpu-s-branch-bits=5 (an LLC wrapper), so that branch
#                relaxation emits s_getpc_b64 / s_add_u32 / s_addc_u32 /
#                s_setpc_b64 long branches even in small kernels, for each of
#                gfx906, gfx908, gfx90a, gfx942, gfx950 and gfx1100.  By default
#                only a fixed sample: per arch the 3 smallest distinct .llir
#                files (by byte size, then path) of the entries of that arch:
#                today add_kernel, softmax_kernel and layernorm_fwd, of which
#                add_kernel and layernorm_fwd get long branches (softmax's stay
#                in range; see "long br").
#                TREG_MIR_LONG_BRANCH=N takes the N smallest (0: none);
#                TREG_MIR_LONG_BRANCH=all takes every distinct .llir at every
#                one of the six arches (bench/mir_live_sweep.sh); there a build
#                that llc rejects ("Cannot select", an intrinsic the target
#                lacks) at an arch other than the entry's own is skipped and
#                counted, not a failure.
#
# Checked, per target and set: the share of aligned rows whose hwpe VGPR,
# AGPR and SGPR counts all equal the oracle's >= TREG_MIR_MIN_PCT (default
# 99.9%; gfx1100: TREG_MIR_MIN_PCT_GFX1100, default 99.9% too); when a target
# misses it, each of its kernels below it fails.  Per kernel: the hwpe peak
# equal in all three classes; the alignment healthy (every emitted MIR
# instruction aligned to a treg row, and mnemonics agreeing on
# >= TREG_MIR_MIN_MNEMONIC_PCT, default 99%, of them); treg's own JSON (the
# oracle's STEM.treg-json) reports undefined_reads 0; the oracle built, ran
# treg and aligned without error.
# Prints a table per set: per target, kernels, aligned rows, the all-equal
# share and per class, kernels whose peak differs, undefined reads (summed),
# MIR instructions left unaligned, the mnemonic agreement, errors, and for
# long-branch builds those skipped and those whose code has a long branch
# (s_setpc_b64; a kernel whose branches all stay in range has none); then each
# mnemonic pair the aligner did not match, then one line per failing target
# and per failing kernel (name, arch, entry, why, its percentages, its worst
# row).  Exits 1 on any failure, 77 only when nothing could be checked.
#
# llc's outputs are cached across runs (the CI runs the suite twice, normal
# and ASan+UBSan, and llc's output does not depend on treg): an llc wrapper
# keys each output on sha256 of (llc --version, the arguments except the -o
# path, the input file's content) under TREG_LLC_CACHE (default
# ${TMPDIR:-/tmp}/treg-llc-cache); a miss runs llc and stores the output
# atomically (copy to a temporary name, then mv); entries unused for 30 days
# are deleted; a cache folder owned by another user is not used.  Measured
# with TREG_MIR_JOBS=1 (88 corpus kernels + 18 long-branch builds, 318 llc
# runs, 118 MB of cache), on 2 cores shared with a C build: 197 s cold, 51 s
# cached, i.e. the second run takes a quarter of the time (-74%).  What is
# left is mir_live.py's own liveness and alignment in python, ld.lld and
# treg-analyze.
#
# Environment (set by CTest, see tests/CMakeLists.txt): TREG_ANALYZE,
# TREG_CORPUS, TREG_SOURCE_ROOT.  Optional: TREG_MIR_JOBS (parallel kernels,
# default nproc), TREG_MIR_FILTER (ERE on the entry path: only matching
# entries, in either set), TREG_MIR_LONG_BRANCH (see above), TREG_MIR_MIN_PCT,
# TREG_MIR_MIN_PCT_GFX1100, TREG_MIR_MIN_MNEMONIC_PCT, TREG_LLC_CACHE (a
# folder; "off" disables the cache), TREG_MIR_KEEP=1 (keep the work
# directory), LLC / LLD (default llc-22 / ld.lld-22).
set -euo pipefail

prog=test_mir_live
# shellcheck source=tests/cli/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

require_analyzer
real_llc=${LLC:-llc-22}
LLD=${LLD:-ld.lld-22}
command -v "$real_llc" >/dev/null 2>&1 || skip "$real_llc not found (Debian's llvm-22): no oracle"
command -v "$LLD" >/dev/null 2>&1 || skip "$LLD not found (Debian's lld-22): no oracle"
command -v python3 >/dev/null 2>&1 || skip "python3 not found: the oracle and the comparison need it"
oracle=$TREG_SOURCE_ROOT/tests/oracle/mir_live.py
[[ -f $oracle ]] || fail "$oracle is missing from the checkout"
[[ -d $TREG_CORPUS ]] || skip "corpus not found at $TREG_CORPUS"
real_llc=$(command -v "$real_llc")
export LLD

jobs_max=${TREG_MIR_JOBS:-$(nproc 2>/dev/null || echo 2)}
[[ $jobs_max =~ ^[1-9][0-9]*$ ]] || fail "TREG_MIR_JOBS=$jobs_max is not a positive number"
long_branch=${TREG_MIR_LONG_BRANCH:-3}
[[ $long_branch == all || $long_branch =~ ^[0-9]+$ ]] ||
  fail "TREG_MIR_LONG_BRANCH=$long_branch: expected all or a number of .llir files per arch"
min_pct=${TREG_MIR_MIN_PCT:-99.9}
min_pct_gfx1100=${TREG_MIR_MIN_PCT_GFX1100:-99.9}
min_mnemonic_pct=${TREG_MIR_MIN_MNEMONIC_PCT:-99}
long_archs="gfx906 gfx908 gfx90a gfx942 gfx950 gfx1100"

work=$(mktemp -d "${TMPDIR:-/tmp}/treg-mir-live.XXXXXX")
if [[ ${TREG_MIR_KEEP:-0} == 1 ]]; then
  echo "$prog: keeping $work"
else
  trap 'rm -rf "$work"' EXIT
fi

# --- llc with a cache -------------------------------------------------------------
cache=${TREG_LLC_CACHE:-${TMPDIR:-/tmp}/treg-llc-cache}
if [[ $cache != off ]] && ! mkdir -p "$cache" 2>/dev/null; then
  echo "$prog: note: cannot create the llc cache $cache; llc runs uncached"
  cache=off
fi
if [[ $cache != off && ! -O $cache ]]; then
  echo "$prog: note: the llc cache $cache belongs to another user; llc runs uncached"
  cache=off
fi
if [[ $cache != off ]]; then
  cache=$(cd "$cache" && pwd)
  # Unused for 30 days (a hit touches its entry), or a store that died.
  find "$cache" -maxdepth 1 -type f \( -name '[0-9a-f]*' -mtime +30 -o -name '.tmp.*' -mmin +60 \) \
    -delete 2>/dev/null || true
fi
llc_id=$("$real_llc" --version 2>&1 | sha256sum) || fail "$real_llc --version failed"
llc_id=${llc_id%% *}
: >"$work/llc-cache.log"

# $work/llc: llc-22 "$@", its -o output served from / stored in the cache.
# Uncached when there is no cache, no -o file or not exactly one input file.
# A failing llc's stderr is also appended to $TREG_MIR_LLC_ERR when set (the
# oracle keeps only the last 2,000 characters of it, and llc's "LLVM ERROR:
# Cannot select" comes before a long stack dump).
{
  echo '#!/usr/bin/env bash'
  printf 'real=%q id=%q cache=%q log=%q\n' "$real_llc" "$llc_id" "$cache" "$work/llc-cache.log"
  cat <<'SH'
args=("$@") key=() out='' input='' n_inputs=0
for ((i = 0; i < ${#args[@]}; i++)); do
  a=${args[i]}
  case $a in
    -o) out=${args[i + 1]:-} i=$((i + 1)) ;;
    -o=*) out=${a#-o=} ;;
    -x) key+=("$a" "${args[i + 1]:-}") i=$((i + 1)) ;;
    -*) key+=("$a") ;;
    *)
      if [[ -f $a ]]; then
        input=$a n_inputs=$((n_inputs + 1)) key+=("<input>")
      else
        key+=("$a")
      fi
      ;;
  esac
done
run_llc() {
  local err rc=0
  [[ -n ${TREG_MIR_LLC_ERR:-} ]] || { "$real" "$@"; return; }
  err=$(mktemp)
  "$real" "$@" 2>"$err" || rc=$?
  cat "$err" >&2
  ((rc == 0)) || cat "$err" >>"$TREG_MIR_LLC_ERR"
  rm -f "$err"
  return $rc
}
if [[ $cache == off || -z $out || $out == - || $n_inputs != 1 ]]; then
  run_llc "$@"
  exit
fi
h=$({ printf '%s\n' "$id"; printf '%s\0' "${key[@]}"; printf '\n'; cat "$input"; } | sha256sum)
h=${h%% *}
if [[ -f $cache/$h ]] && cp "$cache/$h" "$out" 2>/dev/null; then
  touch "$cache/$h" 2>/dev/null
  echo hit >>"$log"
  exit 0
fi
run_llc "$@" || exit
echo miss >>"$log"
tmp=$cache/.tmp.$h.$$
if cp "$out" "$tmp" 2>/dev/null; then
  mv -f "$tmp" "$cache/$h" 2>/dev/null || rm -f "$tmp"
fi
exit 0
SH
} >"$work/llc"
# The long-branch builds: the same, with a 5-bit SOPP branch offset (+-16
# dwords), so that branch relaxation turns most branches into long ones.
printf '#!/bin/sh\nexec %q -amdgpu-s-branch-bits=5 "$@"\n' "$work/llc" >"$work/llc-long-branch"
chmod +x "$work/llc" "$work/llc-long-branch"

# --- the kernels ------------------------------------------------------------------
dirs=$work/dirs.txt
: >"$dirs"
for sub in triton-cache gfx906-llc22 triton-cache-targets realworld-handover; do
  if [[ ! -d $TREG_CORPUS/$sub ]]; then
    echo "$prog: note: $TREG_CORPUS/$sub is absent; skipping it"
    continue
  fi
  for dir in "$TREG_CORPUS/$sub"/*/; do
    dir=${dir%/}
    [[ -d $dir ]] || continue
    if [[ -n ${TREG_MIR_FILTER:-} ]] && ! [[ $dir =~ $TREG_MIR_FILTER ]]; then
      continue
    fi
    printf '%s\n' "$dir" >>"$dirs"
  done
done

# jobs.tsv: id, set, entry (relative to the corpus), kernel, the archs of the
# entries with this .llir's content, build arch, .llir, its size.
python3 - "$dirs" "$TREG_CORPUS" "$long_branch" "$long_archs" "$work" >"$work/jobs.tsv" <<'PY'
import glob, hashlib, json, lzma, os, sys

dirs_path, corpus, long_branch, long_archs, work = sys.argv[1:6]
long_archs = long_archs.split()
entries, binary_only = [], 0
for d in open(dirs_path).read().splitlines():
    label = os.path.relpath(d, corpus)
    js = [j for j in sorted(glob.glob(os.path.join(d, "*.json")))
          if not os.path.basename(j).startswith("__grp__")]
    if not js:
        print(f"test_mir_live: note: {label} has no kernel .json; skipped", file=sys.stderr)
        continue
    try:
        meta = json.load(open(js[0]))
        name = meta["name"]
        arch = meta.get("arch") or meta.get("target", {}).get("arch")
        assert arch
    except (ValueError, KeyError, AssertionError, AttributeError):
        print(f"test_mir_live: note: {js[0]} does not name a kernel and an arch; skipped", file=sys.stderr)
        continue
    llir = os.path.join(d, name + ".llir")
    if os.path.isfile(llir):
        data = open(llir, "rb").read()
    elif os.path.isfile(llir + ".xz"):
        # realworld-handover/: the IR kept compressed; unpacked into the work folder
        # (bounded: the largest is 1.2 MB).
        with lzma.open(llir + ".xz") as f:
            data = f.read(64 << 20)
        llir = os.path.join(work, "llir", label.replace("/", "_"), name + ".llir")
        os.makedirs(os.path.dirname(llir), exist_ok=True)
        with open(llir, "wb") as f:
            f.write(data)
    else:
        binary_only += 1  # kept for its code object alone
        continue
    entries.append({"label": label, "name": name, "arch": arch, "llir": llir,
                    "size": len(data), "sha": hashlib.sha256(data).hexdigest()})

if binary_only:
    print(f"test_mir_live: note: {binary_only} entries have no .llir (kept for their code "
          "objects): not built", file=sys.stderr)
own = {}
for e in entries:
    own.setdefault(e["sha"], set()).add(e["arch"])
jobs = [("corpus", e, e["arch"]) for e in entries]

# One representative entry per distinct .llir content, preferring one of
# the build arch; smallest first, ties by path.
def distinct(es):
    seen, out = set(), []
    for e in sorted(es, key=lambda e: (e["size"], e["label"])):
        if e["sha"] not in seen:
            seen.add(e["sha"])
            out.append(e)
    return out

if long_branch == "all":
    for arch in long_archs:
        pref = distinct([e for e in entries if e["arch"] == arch])
        have = {e["sha"] for e in pref}
        rest = [e for e in distinct(entries) if e["sha"] not in have]
        jobs += [("long-branch", e, arch) for e in pref + rest]
else:
    for arch in long_archs:
        jobs += [("long-branch", e, arch)
                 for e in distinct([e for e in entries if e["arch"] == arch])[:int(long_branch)]]
for i, (s, e, arch) in enumerate(jobs, 1):
    print("\t".join(map(str, (i, s, e["label"], e["name"], ",".join(sorted(own[e["sha"]])),
                               arch, e["llir"], e["size"]))))
PY
n_corpus=$(awk -F'\t' '$2 == "corpus"' "$work/jobs.tsv" | wc -l)
n_long=$(awk -F'\t' '$2 == "long-branch"' "$work/jobs.tsv" | wc -l)
((n_corpus + n_long > 0)) || skip "no corpus entry with an .llir${TREG_MIR_FILTER:+ matches TREG_MIR_FILTER=$TREG_MIR_FILTER}"
echo "$prog: $n_corpus corpus kernels + $n_long long-branch builds" \
  "(TREG_MIR_LONG_BRANCH=$long_branch); $jobs_max jobs; llc cache: $cache"

# One build: mir_live.py compare (-B: no __pycache__ left in the checkout).
# Never fails; leaves its outcome in $work/jobs/ID/.
run_job() {
  local id=$1 set=$2 arch=$3 llir=$4 d=$work/jobs/$1 llc=$work/llc rc=0
  [[ $set == long-branch ]] && llc=$work/llc-long-branch
  mkdir -p "$d"
  LLC=$llc TREG_MIR_LLC_ERR=$d/llc.err python3 -B "$oracle" compare "$llir" "$arch" "$TREG_ANALYZE" \
    --work "$d" --json "$d/result.json" --quiet >"$d/out" 2>"$d/err" || rc=$?
  echo "$rc" >"$d/rc"
}

# Largest first, so that the last job to finish is a short one.
start=$(date +%s)
running=0
while IFS=$'\t' read -r id set _entry _name _own arch llir _size; do
  run_job "$id" "$set" "$arch" "$llir" &
  running=$((running + 1))
  if ((running >= jobs_max)); then
    wait -n || true
    running=$((running - 1))
  fi
done < <(sort -t$'\t' -k8,8nr -k1,1n "$work/jobs.tsv")
wait
elapsed=$(($(date +%s) - start))
hits=$(grep -c '^hit' "$work/llc-cache.log" || true)
misses=$(grep -c '^miss' "$work/llc-cache.log" || true)
echo "$prog: ran in ${elapsed}s; llc cache: $hits hits, $misses misses"

# --- compare ----------------------------------------------------------------------
python3 - "$work" "$min_pct" "$min_pct_gfx1100" "$min_mnemonic_pct" <<'PY'
import json, math, os, re, sys
from collections import Counter

work = sys.argv[1]
min_pct, min_pct_gfx1100, min_mn = (float(x) for x in sys.argv[2:5])
CLASSES = ("vgpr", "agpr", "sgpr")
ARCH_ORDER = ("gfx906", "gfx908", "gfx90a", "gfx942", "gfx950", "gfx1100")
# llc rejecting code for a target that lacks its instructions.
UNSUPPORTED = re.compile(r"Cannot select|not supported on|unsupported (intrinsic|on)|"
                         r"intrinsic not supported|does not support|invalid for this subtarget",
                         re.IGNORECASE)

def order(arch):
    return ARCH_ORDER.index(arch) if arch in ARCH_ORDER else len(ARCH_ORDER)

def threshold(arch):
    return min_pct_gfx1100 if arch == "gfx1100" else min_pct

def read(path, default=""):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except OSError:
        return default

def pct(n, d):
    return 100.0 * n / d if d else 100.0

def fmt(x):  # floor, so that a share that fails never prints as the threshold
    return f"{math.floor(x * 100) / 100:.2f}"

def build_error(llc_err, err):
    """The line that says why a build failed: llc's own error, else the oracle's."""
    for l in llc_err.splitlines():
        if l.startswith(("LLVM ERROR:", "error:")) or ": error:" in l:
            return l.strip()[:300]
    lines = [l.strip() for l in err.splitlines() if l.strip()]
    for l in lines:
        if l.startswith("FAILED:"):
            return l[:300]
    return lines[-1][:300] if lines else "no message"

stats = {}      # (set, arch) -> counters
errors = []     # builds that failed, as lines
# A build against an older LLVM than the reference (scripts/test-llvm.sh)
# skips what that LLVM cannot decode.
NEWER_LLVM = (re.compile(r"no substitute ISA is known|undecodable instruction word")
              if int(os.environ.get("TREG_LLVM_MAJOR", "22")) < 22 else None)
skip_reasons = Counter()
mismatches = {}  # set -> Counter of (arch, "MIR~asm") mnemonic pairs
kernels = []    # per checked kernel: set, arch, where, share, shares, worst, reasons
checked = 0

def st(s, arch):
    return stats.setdefault((s, arch), {"kernels": 0, "rows": 0, "all": 0, "vgpr": 0, "agpr": 0,
                                        "sgpr": 0, "peak": 0, "undef": 0, "mn": 0, "unaligned": 0, "errors": 0,
                                        "long": 0,
                                        "skipped": 0, "failed": 0})

for line in open(os.path.join(work, "jobs.tsv")):
    jid, s, entry, name, own, arch, llir, _size = line.rstrip("\n").split("\t")
    d = os.path.join(work, "jobs", jid)
    t = st(s, arch)
    where = f"{name} {arch} [{s}] {entry}"
    rc = read(os.path.join(d, "rc"), "?").strip()
    if rc != "0" or not os.path.isfile(os.path.join(d, "result.json")):
        llc_err, err = read(os.path.join(d, "llc.err")), read(os.path.join(d, "err"))
        why = build_error(llc_err, err)
        if s == "long-branch" and arch not in own.split(",") and UNSUPPORTED.search(llc_err + err):
            t["skipped"] += 1
            skip_reasons[(arch, why[:120])] += 1
            continue
        if NEWER_LLVM and NEWER_LLVM.search(err):
            # the linked LLVM is older than the reference and cannot decode it
            t["skipped"] += 1
            skip_reasons[(arch, why[:120])] += 1
            continue
        t["errors"] += 1
        errors.append(f"{where}: mir_live.py failed (exit {rc}): {why}")
        continue
    try:
        results = json.load(open(os.path.join(d, "result.json")))
    except ValueError as e:
        t["errors"] += 1
        errors.append(f"{where}: unreadable oracle JSON ({e})")
        continue
    if name not in [r.get("kernel") for r in results]:
        t["errors"] += 1
        errors.append(f"{where}: the oracle reports no kernel {name} "
                      f"(it has: {', '.join(str(r.get('kernel')) for r in results) or 'none'})")
    treg_docs = {}
    for r in results:
        kname = r.get("kernel", "?")
        kwhere = f"{kname} {arch} [{s}] {entry}"
        if "error" in r:
            t["errors"] += 1
            errors.append(f"{kwhere}: mir_live.py: {r['error']}")
            continue
        why = []
        m = r["hwpe"]
        aligned, mir_n, mn_ok = r["aligned"], r["mir_instrs"], r["aligned_mnemonic_ok"]
        ast = r.get("align_stats", {})
        if aligned != mir_n:
            why.append(f"alignment: {aligned} of {mir_n} MIR instructions aligned (treg rows "
                       f"{r['treg_rows']}; {json.dumps({k: v for k, v in ast.items() if ':' not in k})})")
        mm = {k[3:]: v for k, v in ast.items() if k.startswith("mm:")}
        for pair, n in mm.items():
            mismatches.setdefault(s, Counter())[(arch, pair)] += n
        if pct(mn_ok, aligned) < min_mn:
            unknown = ", ".join(f"{p} x{n}" for p, n in sorted(mm.items(), key=lambda x: -x[1]))
            why.append(f"alignment: mnemonics agree on {mn_ok} of {aligned} rows "
                       f"({fmt(pct(mn_ok, aligned))}% < {min_mn:g}%; {unknown[:200]})")
        # Did branch relaxation make long branches?
        try:
            with open(r.get("work", "") + ".s", errors="replace") as f:
                t["long"] += "s_setpc_b64" in f.read()
        except OSError:
            pass
        peaks = m["peak"]
        bad_peaks = [f"{c[0]} {peaks[c]['oracle']}/{peaks[c]['treg']}" for c in CLASSES
                     if peaks[c]["oracle"] != peaks[c]["treg"]]
        if bad_peaks:
            why.append("peak oracle/treg " + ", ".join(bad_peaks))
        # treg's own report of the same code object
        stem = r.get("work", "")
        if stem not in treg_docs:
            try:
                treg_docs[stem] = json.load(open(stem + ".treg-json"))
            except (OSError, ValueError) as e:
                treg_docs[stem] = e
        doc = treg_docs[stem]
        undef = None
        if isinstance(doc, Exception):
            why.append(f"treg's JSON {stem}.treg-json unreadable ({doc})")
        else:
            ks = [k for rep in doc.get("reports", []) for k in rep.get("kernels", [])
                  if k.get("name") == kname]
            if not ks:
                why.append("treg's JSON has no such kernel")
            else:
                undef = ks[0].get("undefined_reads")
                if undef != 0:
                    ex = ks[0].get("undefined_example")
                    why.append(f"undefined_reads {undef}" +
                               (f" (e.g. {json.dumps(ex)[:160]})" if ex else ""))
        checked += 1
        t["kernels"] += 1
        t["rows"] += aligned
        t["all"] += m["all_equal_rows"]
        for c in CLASSES:
            t[c] += m[c]["equal"]
        t["peak"] += bool(bad_peaks)
        t["undef"] += undef if isinstance(undef, int) else 0
        t["mn"] += mn_ok
        t["unaligned"] += mir_n - aligned
        share = pct(m["all_equal_rows"], aligned)
        shares = (f"all-equal {fmt(share)}% (v {fmt(pct(m['vgpr']['equal'], aligned))} "
                  f"a {fmt(pct(m['agpr']['equal'], aligned))} s {fmt(pct(m['sgpr']['equal'], aligned))})"
                  f" of {aligned} rows")
        w = r.get("worst") or []
        worst = ("; worst 0x%x %s | %s o=%s t=%s oracle-only: %s treg-only: %s" % (
            w[0]["address"], w[0]["treg_text"][:48], w[0]["mir"][:80], tuple(w[0]["oracle"]),
            tuple(w[0]["treg"]), w[0]["oracle_only"] or "-", w[0]["treg_only"] or "-")) if w else ""
        kernels.append({"set": s, "arch": arch, "where": kwhere, "share": share,
                        "shares": shares, "worst": worst, "why": why})

# A target fails on its share of all-equal rows; then each of its kernels
# below that share fails too (the ones to look at).
bad_targets = []
for (s, a), t in stats.items():
    if t["rows"] and pct(t["all"], t["rows"]) < threshold(a):
        bad_targets.append(f"target {a} [{s}]: {fmt(pct(t['all'], t['rows']))}% of {t['rows']} "
                           f"aligned rows all-equal, below {threshold(a):g}%")
        for k in kernels:
            if (k["set"], k["arch"]) == (s, a) and k["share"] < threshold(a):
                k["why"].insert(0, f"below {threshold(a):g}%")
for k in kernels:
    if k["why"]:
        stats[(k["set"], k["arch"])]["failed"] += 1

def table(s):
    keys = sorted((a for (x, a) in stats if x == s), key=lambda a: (order(a), a))
    if not keys:
        return
    print(f"\n{s} set (mode hwpe; all-equal rows >= {min_pct:g}%, gfx1100 >= {min_pct_gfx1100:g}%):")
    head = ("target", "kernels", "rows", "all-eq %", "vgpr %", "agpr %", "sgpr %", "peak !=",
            "undef reads", "unaligned", "mnem ok %", "errors") + \
           (("skipped", "long br") if s == "long-branch" else ()) + ("result",)
    out = []
    for a in keys:
        t = stats[(s, a)]
        rows = t["rows"]
        ok = rows and pct(t["all"], rows) >= threshold(a) and not t["failed"] and not t["errors"]
        result = "ok" if ok else "FAIL" if rows or t["errors"] else "skipped"
        out.append((a, str(t["kernels"]), str(rows),
                    *(fmt(pct(t[c], rows)) if rows else "-" for c in ("all",) + CLASSES),
                    str(t["peak"]), str(t["undef"]), str(t["unaligned"]),
                    fmt(pct(t["mn"], rows)) if rows else "-", str(t["errors"])) +
                   ((str(t["skipped"]), str(t["long"])) if s == "long-branch" else ()) + (result,))
    widths = [max(len(h), *(len(r[i]) for r in out)) for i, h in enumerate(head)]
    def line(vals):
        return "  ".join(v.ljust(w) if i in (0, len(head) - 1) else v.rjust(w)
                         for i, (v, w) in enumerate(zip(vals, widths))).rstrip()
    print(line(head))
    print(line(["-" * w for w in widths]))
    for r in out:
        print(line(r))
    mm = mismatches.get(s)
    if mm:
        print("mnemonic pairs the oracle's aligner did not match (MIR~treg, rows):")
        for (a, pair), n in sorted(mm.items(), key=lambda x: (order(x[0][0]), -x[1])):
            print(f"  {a:8} {n:6}  {pair}")

for s in ("corpus", "long-branch"):
    table(s)
skipped = sum(t["skipped"] for t in stats.values())
if skipped:
    print(f"\n{skipped} long-branch build(s) skipped: llc cannot build that .llir for that arch "
          "(MFMA or other target-specific intrinsics):")
    for (a, why), n in sorted(skip_reasons.items(), key=lambda x: (order(x[0][0]), x)):
        print(f"  {a:8} {n:4} x {why}")
failed = sorted((k for k in kernels if k["why"]),
                key=lambda k: (k["set"] != "corpus", order(k["arch"]), k["where"]))
print(f"\nchecked {checked} kernels: {checked - len(failed)} pass, {len(failed)} fail; "
      f"{len(errors)} build/alignment error(s)")
if bad_targets or errors or failed:
    what = [f"{n} {w}" for n, w in ((len(bad_targets), "target(s) below the threshold"),
                                    (len(errors), "build/alignment error(s)"),
                                    (len(failed), "failing kernel(s)")) if n]
    print(f"\nFAIL: {', '.join(what)}:")
    for b in bad_targets + errors:
        print("  " + b)
    for k in failed:
        print(f"  {k['where']}: {'; '.join(k['why'])}; {k['shares']}{k['worst']}")
    sys.exit(1)
if checked == 0:
    print("nothing could be checked")
    sys.exit(77)
PY
