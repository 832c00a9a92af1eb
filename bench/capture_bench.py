"""bench/capture.sh's measurements in the user's process (client/triton/
treg_capture.py, with tests/cli/triton_stub as triton on PYTHONPATH):

  capture_bench.py pth PTHFILE
      the .pth line's cost per interpreter start, TREG_CAPTURE unset (us)
  capture_bench.py startup WITH WITHOUT
      `python3 -c pass`, best of 40 starts each (alternating), with
      PYTHONUSERBASE=WITH (its user site holds the .pth) and =WITHOUT (ms)
  capture_bench.py enqueue N HUNG_READY
      the listener call per kernel (reading knobs.compilation.listener and
      calling it, as compile() does) against an empty listener: new entries
      (queued), entries already seen, and chained to a listener the program
      set; the worker held by a tregc that hangs (TREG_TREGC), which has
      started once HUNG_READY exists, so only the calls are timed
  capture_bench.py upload ENTRY...
      each entry's listener call, then waits for every upload: the process
      CPU time (all its threads, not the tregc children) less the main
      thread's, per kernel, i.e. the worker's; the children's CPU and the
      wall time per kernel for context; the lines printed

Each prints one "key=value ..." line."""

import io
import json
import os
import resource
import sys
import time
import timeit

mode = sys.argv[1]

if mode == "pth":
    line = open(sys.argv[2]).read().strip()
    code = compile(line, sys.argv[2], "exec")
    os.environ.pop("TREG_CAPTURE", None)
    n = 200000
    best = min(timeit.repeat(lambda: exec(code, {}), number=n, repeat=5))
    print("pth_us=%.3f" % (best / n * 1e6))
    sys.exit(0)

if mode == "startup":
    import subprocess

    best = {}
    for _ in range(40):
        for base in sys.argv[2:4]:
            env = dict(os.environ, PYTHONUSERBASE=base)
            env.pop("TREG_CAPTURE", None)
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", "pass"], env=env, check=True)
            t = time.perf_counter() - t0
            best[base] = min(best.get(base, t), t)
    print("with_ms=%.2f without_ms=%.2f" % (best[sys.argv[2]] * 1e3, best[sys.argv[3]] * 1e3))
    sys.exit(0)

import triton  # noqa: E402  (the stand-in)
import treg_capture  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

comp = triton.knobs.compilation
treg_capture.enable()


def kwargs_for(name, khash, folder, meta):
    metadata = dict(meta, name=name, hash=khash, target=GPUTarget("hip", "gfx942", 64))
    group = {"%s.%s" % (name, ext): os.path.join(folder, "%s.%s" % (name, ext))
             for ext in ("source", "ttir", "ttgir", "llir", "amdgcn", "hsaco", "json")}
    times = triton.knobs.CompileTimes(1, [("ttir", 1)], 1)
    return dict(src=None, metadata=metadata, metadata_group=group, times=times, cache_hit=False)


class PlainKnobs:
    """Triton's compilation_knobs as it is without treg_capture: a plain slot."""

    listener = None


def run(calls, knobs=comp):
    t0 = time.perf_counter()
    for kw in calls:
        listener = knobs.listener
        listener(**kw)
    return time.perf_counter() - t0


if mode == "enqueue":
    n, ready = int(sys.argv[2]), sys.argv[3]
    rounds = 3
    meta = {"num_warps": 4, "num_stages": 2, "num_ctas": 1, "shared": 8192, "arch": "gfx942",
            "backend_name": "hip", "warp_size": 64, "triton_version": "3.6.0", "waves_per_eu": 0}
    hold = os.path.join(os.path.dirname(ready), "hold")
    os.makedirs(hold, exist_ok=True)
    open(os.path.join(hold, "k.hsaco"), "wb").close()
    comp.listener(**kwargs_for("k", "f" * 64, hold, meta))  # the worker takes it and hangs
    deadline = time.monotonic() + 10
    while not os.path.exists(ready):
        if time.monotonic() > deadline:
            sys.exit("capture_bench: the hung tregc never started")
        time.sleep(0.01)
    batches = [[kwargs_for("k", "%064x" % (r * n + i + 1), "/bench/cache/E%d_%d" % (r, i), meta)
                for i in range(n)] for r in range(2 * rounds)]
    ours = min(run(b) for b in batches[:rounds])
    seen = min(run(batches[0]) for _ in range(rounds))  # every one a duplicate now

    def user_listener(*, src, metadata, metadata_group, times, cache_hit):
        pass

    comp.listener = user_listener
    chained = min(run(b) for b in batches[rounds:])
    plain = PlainKnobs()
    plain.listener = user_listener
    empty = min(run(batches[0], plain) for _ in range(rounds))
    print("calls=%d empty_us=%.3f new_us=%.3f seen_us=%.3f chained_us=%.3f queued=%d"
          % (n, empty / n * 1e6, ours / n * 1e6, seen / n * 1e6, chained / n * 1e6,
             treg_capture._pending))
    sys.stdout.flush()
    sys.stderr = io.StringIO()  # the exit wait gives up on the held queue: not shown
    sys.exit(0)

if mode == "upload":
    entries = sys.argv[2:]
    calls = []
    for i, folder in enumerate(entries):
        js = [f for f in os.listdir(folder) if f.endswith(".json") and not f.startswith("__grp__")]
        with open(os.path.join(folder, js[0])) as f:
            meta = json.load(f)
        name = meta.get("name", js[0][:-5])
        kw = kwargs_for(name, meta.get("hash") or "%064x" % (i + 1), folder, meta)
        kw["metadata_group"] = {f: os.path.join(folder, f) for f in os.listdir(folder)}
        calls.append(kw)
    out = io.StringIO()
    real_stderr, sys.stderr = sys.stderr, out
    self0 = resource.getrusage(resource.RUSAGE_SELF)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    main0 = time.thread_time()
    wall0 = time.perf_counter()
    run(calls)
    left = treg_capture.wait(600)
    wall = time.perf_counter() - wall0
    main = time.thread_time() - main0
    self1 = resource.getrusage(resource.RUSAGE_SELF)
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys.stderr = real_stderr
    proc = (self1.ru_utime + self1.ru_stime) - (self0.ru_utime + self0.ru_stime)
    kids = (kids1.ru_utime + kids1.ru_stime) - (kids0.ru_utime + kids0.ru_stime)
    lines = out.getvalue().splitlines()
    good = sum(1 for ln in lines if ln.startswith("treg: ") and " VGPR " in ln)
    n = len(calls)
    print("kernels=%d lines=%d other_lines=%d left=%d worker_cpu_us=%.0f main_cpu_us=%.0f "
          "tregc_cpu_us=%.0f wall_ms=%.1f"
          % (n, good, len(lines) - good, left, (proc - main) / n * 1e6, main / n * 1e6,
             kids / n * 1e6, wall / n * 1e3))
    for ln in lines:
        if not (ln.startswith("treg: ") and " VGPR " in ln):
            print("  " + ln)
