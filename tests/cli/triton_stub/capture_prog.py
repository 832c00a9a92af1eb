"""A Triton program for tests/cli/test_capture.sh, run with the stand-in
triton package on PYTHONPATH.  Arguments, in order:

  --before       set a listener of its own before treg_capture.enable()
  --after        set a listener of its own after import triton (the capture
                 installed already, by the .pth or python -m treg_capture)
  --enable       import treg_capture and enable() it (after --before)
  --state        print whether treg_capture is imported and the listener
  --threads      compile the entries on worker threads, all at once
  --garbage      call the listener with malformed arguments
  --timing       print the slowest listener call, in microseconds
  --exit N       exit with status N
  fresh:DIR      compile the cache entry DIR (a fresh compile)
  hit:DIR        compile it again (a hit in the on-disk cache)

Its own output: "argv: ...", one "user listener: ..." line per call of its
listener, "compiled N" at the end, all on stdout."""

import sys
import threading

import triton
from triton.compiler import compiler as stub_compiler

print("argv:", " ".join(sys.argv[1:]), "name:", __name__, flush=True)
args = sys.argv[1:]
status = 0
jobs = []
opts = set()
while args:
    a = args.pop(0)
    if a == "--exit":
        status = int(args.pop(0))
    elif a.startswith("--"):
        opts.add(a)
    else:
        kind, _, path = a.partition(":")
        jobs.append((path, kind == "hit"))


def user_listener(*, src, metadata, metadata_group, times, cache_hit):
    print("user listener: %s hit=%s" % (metadata["name"], cache_hit), flush=True)


if "--before" in opts:
    triton.knobs.compilation.listener = user_listener
if "--enable" in opts:
    import treg_capture

    treg_capture.enable()
if "--after" in opts:
    triton.knobs.compilation.listener = user_listener
if "--state" in opts:
    print("treg_capture imported:", "treg_capture" in sys.modules, flush=True)
    print("listener:", triton.knobs.compilation.listener, flush=True)

if "--threads" in opts:
    threads = [threading.Thread(target=triton.compile, args=job) for job in jobs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
else:
    for path, hit in jobs:
        triton.compile(path, cache_hit=hit)

if "--garbage" in opts:
    listener = triton.knobs.compilation.listener

    class Odd:
        name = None

    class Evil(dict):
        def get(self, *args):
            raise RuntimeError("metadata that raises")

        def items(self):
            raise RuntimeError("a metadata_group that raises")

    class EvilSrc:
        @property
        def name(self):
            raise RuntimeError("a src that raises")

    calls = [
        {},
        {"src": None, "metadata": None, "metadata_group": None, "times": None, "cache_hit": None},
        {"src": Odd(), "metadata": {}, "metadata_group": {}, "times": 5, "cache_hit": "x"},
        {"src": 7, "metadata": {"name": 5, "hash": "zz"}, "metadata_group": {"a": None, "b": 3, 4: "x"}},
        {"src": None, "metadata": {"hash": "0" * 64, "target": 5}, "metadata_group": {}},
        {"src": None, "metadata": [1, 2], "metadata_group": [("k.json", "/nonexistent/x/k.json")]},
        {"src": None, "metadata": {"name": "ghost", "target": {"arch": None}},
         "metadata_group": {"ghost.json": "/nonexistent/x/ghost.json"}, "extra": 1},
        {"src": EvilSrc(), "metadata": Evil(), "metadata_group": Evil(a="b")},
        {"src": EvilSrc(), "metadata": {}, "metadata_group": Evil(a="b")},
    ]
    for kw in calls:
        listener(**kw)
    listener(1, 2, 3)
    print("garbage: the listener returned every time", flush=True)

if "--timing" in opts:
    print("slowest listener call: %d us" % (max(stub_compiler.listener_ns, default=0) // 1000), flush=True)
print("compiled", len(jobs), flush=True)
sys.exit(status)
