#!/usr/bin/env python3
"""Field-by-field comparison of two JSON documents (either may be gzipped).

Usage: json_compare.py [--ignore KEY]... [--max N] EXPECTED ACTUAL

Walks both documents together and prints one line per difference, naming its
path (reports[3].kernels[0].vgpr.peak_live), the expected and the actual
value: a field only one side has, a value that differs, an array of another
length.  Keys named by --ignore are left out at every depth (e.g.
llvm_version, which names the installed LLVM's patch release).  Exit 0 when
equal, 1 when not, 2 on a bad input."""
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt", encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"json_compare: {path}: {e}")


def short(v):
    s = json.dumps(v, sort_keys=True)
    return s if len(s) <= 60 else s[:57] + "..."


def walk(a, b, path, ignore, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in a:
            if k in ignore:
                continue
            if k not in b:
                out.append(f"{path}.{k}: only in expected ({short(a[k])})")
            else:
                walk(a[k], b[k], f"{path}.{k}", ignore, out)
        for k in b:
            if k not in a and k not in ignore:
                out.append(f"{path}.{k}: only in actual ({short(b[k])})")
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} elements expected, {len(b)} actual")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", ignore, out)
    elif type(a) is not type(b) or a != b:
        out.append(f"{path}: expected {short(a)}, actual {short(b)}")


def main(argv):
    ignore, limit, files = set(), 20, []
    it = iter(argv)
    for arg in it:
        if arg == "--ignore":
            ignore.add(next(it, ""))
        elif arg == "--max":
            limit = int(next(it, "20"))
        else:
            files.append(arg)
    if len(files) != 2:
        sys.exit(__doc__.split("\n\n")[1])
    out = []
    walk(load(files[0]), load(files[1]), "$", ignore, out)
    for line in out[:limit]:
        print(line)
    if len(out) > limit:
        print(f"... and {len(out) - limit} more")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
