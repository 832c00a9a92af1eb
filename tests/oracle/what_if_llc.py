#!/usr/bin/env python3
"""what_if_llc.py -- checks treg-analyze --what-if against llc itself.

For each Triton cache entry given (a folder with NAME.hsaco, NAME.llir and
NAME.json), runs `treg-analyze --what-if --format json --no-rows`, then for
every build it reports (the IR recompiled as given, and each budget) writes
the same IR with the same attributes -- "amdgpu-waves-per-eu"="N, N" in the
kernel's attribute group, nothing else touched -- compiles it with
`llc -O3 -mtriple=amdgcn-amd-amdhsa -mcpu=ARCH` and compares the build's
figures with the trailer llc prints in its assembly:

    vgpr.allocated = NumVgprs     agpr.allocated = NumAgprs (0 where absent)
    sgpr.allocated = TotalNumSgprs  scratch_bytes = ScratchSize
    occupancy.waves_per_simd = Occupancy

It also checks that the shipped row is the kernel's own report, and that the
report with --what-if is, apart from what_if and what_if_note, the report
without it.  With --same-compiler (entries whose code object llc itself made
from this .llir at -O3) the recompiled build must equal the shipped one and
carry no "builds this IR differently" note.

Prints one line per build and a summary; exit 1 on any mismatch, 2 on a
usage or tool failure.

usage: what_if_llc.py TREG_ANALYZE [--llc LLC] [--jobs N] [--same-compiler]
                      [--work DIR] [--json OUT] ENTRY...
"""
import argparse
import concurrent.futures
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

TRAILER = {
    "NumVgprs": ("vgpr", "allocated"),
    "NumAgprs": ("agpr", "allocated"),
    "TotalNumSgprs": ("sgpr", "allocated"),
    "ScratchSize": ("scratch_bytes", None),
    "Occupancy": ("occupancy", "waves_per_simd"),
}


def entry_files(entry):
    hsaco = sorted(glob.glob(os.path.join(entry, "*.hsaco")))
    if len(hsaco) != 1:
        raise RuntimeError("%s: %d .hsaco files, expected one" % (entry, len(hsaco)))
    stem = hsaco[0][: -len(".hsaco")]
    if not os.path.exists(stem + ".llir"):
        raise RuntimeError("%s: no %s" % (entry, os.path.basename(stem) + ".llir"))
    return hsaco[0], stem + ".llir"


def run_treg(treg, hsaco, what_if):
    cmd = [treg, "--format", "json", "--no-rows", hsaco]
    if what_if:
        cmd.insert(1, "--what-if")
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed (%d): %s" % (" ".join(cmd), p.returncode, p.stderr.strip()))
    reports = json.loads(p.stdout)["reports"]
    if len(reports) != 1:
        raise RuntimeError("%s: %d reports" % (hsaco, len(reports)))
    return reports[0]


def with_budget(ir, kernel, waves):
    """The IR with "amdgpu-waves-per-eu"="W, W" in the kernel's attribute group."""
    m = re.search(r"^define [^\n]*@%s\([^\n]*?#(\d+)[^\n]*\{$" % re.escape(kernel), ir, re.M)
    if not m:
        raise RuntimeError("no definition of @%s with an attribute group" % kernel)
    group = m.group(1)
    a = re.search(r"^attributes #%s = \{(.*)\}$" % group, ir, re.M)
    if not a:
        raise RuntimeError("no attributes #%s" % group)
    body = re.sub(r'\s*"amdgpu-waves-per-eu"="[^"]*"', "", a.group(1))
    body = body.rstrip() + ' "amdgpu-waves-per-eu"="%d, %d" ' % (waves, waves)
    return ir[: a.start(1)] + body + ir[a.end(1):]


def llc_trailer(llc, arch, ir, work, tag):
    ll = os.path.join(work, tag + ".ll")
    s = os.path.join(work, tag + ".s")
    with open(ll, "w") as f:
        f.write(ir)
    cmd = [llc, "-O3", "-mtriple=amdgcn-amd-amdhsa", "-mcpu=" + arch, ll, "-o", s]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError("%s failed: %s" % (" ".join(cmd), p.stderr.strip()[-500:]))
    out = {}
    with open(s) as f:
        for line in f:
            m = re.match(r"; (\w+): (\d+)$", line.strip())
            if m and m.group(1) in TRAILER and m.group(1) not in out:
                out[m.group(1)] = int(m.group(2))
    os.unlink(ll)
    os.unlink(s)
    out.setdefault("NumAgprs", 0)
    return out


def figure(build, field):
    a, b = TRAILER[field]
    return build[a] if b is None else build[a][b]


def strip_what_if(report):
    r = json.loads(json.dumps(report))
    for k in r["kernels"]:
        k.pop("what_if", None)
        k.pop("what_if_note", None)
    return r


def check_entry(args, entry):
    """(lines, failures, builds, seconds) for one entry."""
    lines, failures, builds = [], [], 0
    hsaco, llir = entry_files(entry)
    t0 = time.monotonic()
    rep = run_treg(args.treg, hsaco, True)
    secs = time.monotonic() - t0
    plain = run_treg(args.treg, hsaco, False)
    name = os.path.basename(entry.rstrip("/"))
    if strip_what_if(rep) != strip_what_if(plain):
        failures.append("%s: the report with --what-if differs from the one without" % name)
    arch = rep["target"]
    ir = open(llir).read()
    work = tempfile.mkdtemp(prefix="what-if-", dir=args.work)
    try:
        for k in rep["kernels"]:
            wi = k.get("what_if")
            if not wi:
                failures.append("%s %s: no what_if (%s)" % (name, k["name"], k.get("what_if_note")))
                continue
            shipped = wi[0]
            if shipped["kind"] != "shipped":
                failures.append("%s %s: the first row is %s" % (name, k["name"], shipped["kind"]))
            own = {"vgpr": k["vgpr"]["allocated"], "agpr": k["agpr"]["allocated"],
                   "sgpr": k["sgpr"]["allocated"], "scratch": k["scratch_bytes"],
                   "waves": k["occupancy"]["waves_per_simd"]}
            got = {"vgpr": shipped["vgpr"]["allocated"], "agpr": shipped["agpr"]["allocated"],
                   "sgpr": shipped["sgpr"]["allocated"], "scratch": shipped["scratch_bytes"],
                   "waves": shipped["occupancy"]["waves_per_simd"]}
            if own != got:
                failures.append("%s %s: shipped row %s, report %s" % (name, k["name"], got, own))
            for b in wi[1:]:
                if not b["compiled"]:
                    failures.append("%s %s %s %d: not built: %s"
                                    % (name, k["name"], b["kind"], b["waves_per_eu"], b.get("note")))
                    continue
                if b["kind"] == "recompiled":
                    src, tag = ir, "recompiled"
                    if args.same_compiler:
                        for f in TRAILER:
                            if figure(b, f) != figure(shipped, f):
                                failures.append("%s %s: recompiled %s %d, shipped %d"
                                                % (name, k["name"], f, figure(b, f),
                                                   figure(shipped, f)))
                        if "differently" in (b.get("note") or ""):
                            failures.append("%s %s: recompiled note: %s" % (name, k["name"], b["note"]))
                else:
                    src, tag = with_budget(ir, k["name"], b["waves_per_eu"]), "w%d" % b["waves_per_eu"]
                want = llc_trailer(args.llc, arch, src, work, tag)
                builds += 1
                bad = [f for f in TRAILER if figure(b, f) != want[f]]
                line = "%-10s %-7s %-16s %-10s %2d  vgpr %3d agpr %3d sgpr %3d scratch %5d waves %2d" % (
                    name[:10], arch, k["name"][:16], b["kind"], b["waves_per_eu"],
                    figure(b, "NumVgprs"), figure(b, "NumAgprs"), figure(b, "TotalNumSgprs"),
                    figure(b, "ScratchSize"), figure(b, "Occupancy"))
                if bad:
                    line += "  MISMATCH " + ", ".join("%s llc %d" % (f, want[f]) for f in bad)
                    failures.append("%s %s %s %d: %s" % (name, k["name"], b["kind"], b["waves_per_eu"],
                                                         ", ".join("%s treg %d llc %d" % (f, figure(b, f), want[f]) for f in bad)))
                lines.append(line)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return lines, failures, builds, secs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("treg")
    ap.add_argument("entries", nargs="+")
    ap.add_argument("--llc", default=os.environ.get("LLC", "llc-22"))
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--same-compiler", action="store_true")
    ap.add_argument("--work", default=None)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    total_builds, failures, results = 0, [], []
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as ex:
            for entry, res in zip(args.entries, ex.map(lambda e: check_entry(args, e), args.entries)):
                results.append((entry, res))
    except RuntimeError as e:
        print("what_if_llc: %s" % e, file=sys.stderr)
        return 2
    for entry, (lines, fails, builds, secs) in results:
        for line in lines:
            print(line)
        total_builds += builds
        failures += fails
    print("what_if_llc: %d entries, %d builds compared with %s, %d mismatches"
          % (len(args.entries), total_builds, args.llc, len(failures)))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"entries": len(args.entries), "builds": total_builds,
                       "failures": failures,
                       "seconds": {e: r[3] for e, r in results}}, f, indent=1)
    for f in failures:
        print("what_if_llc: FAIL: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
