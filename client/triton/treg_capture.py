"""treg_capture: each Triton kernel a program compiles, sent to the team's
tregd, with one line on stderr saying what treg found:

    treg: matmul_kernel gfx942: VGPR 166 allocated, 136 peak; 2 waves/SIMD; no spills; https://...

Turning it on, with no change to the program:

    TREG_CAPTURE=1 python3 train.py ...      (treg_capture.pth installed next to
                                              this file in site-packages)
    python3 -m treg_capture train.py ARGS... (or -m MODULE ARGS...; runs it as
                                              __main__, its exit status kept)

or from the program itself: ``import treg_capture; treg_capture.enable()``.

The contract with Triton, read from Triton's own source (python/triton/knobs.py
and python/triton/compiler/compiler.py) on release/3.4.x c817b9b6, 3.5.x
0add6826, 3.6.x 7c56a5e4, 3.7.x f797708c, 3.8.x 10f6be36 and main (Triton
3.4.0 through 3.8.0; the listener and its two call sites are the same in all
of them; 3.3 and older have no listener, and nothing happens there):
``triton.knobs.compilation.listener`` is one slot, called by ``compile()``
with keyword arguments ``src, metadata, metadata_group, times, cache_hit``,
after a fresh compile (``metadata`` the live dict, which may hold tuples and a
GPUTarget) and on a hit in the on-disk cache (``metadata`` re-read from the
entry's .json).  ``metadata_group`` maps the entry's file names to their
paths; the entry folder is the folder of its .json.  An exception from the
listener would fail ``compile()``, and it may run on a compile worker thread
(Triton 3.5+), so the listener here never raises and only puts the entry on a
queue.

What it does: the listener is installed when ``triton.knobs`` is first
imported (a one-time sys.meta_path finder wraps that module's loader and
removes itself), or at once if Triton is already imported.  Each cache entry
(folder, or kernel hash) is taken once per process: a fresh compile and a
later cache hit of the same entry make one line.  A daemon thread runs
``tregc --format json --no-rows upload ENTRY`` for each (tregc: $TREG_TREGC,
else ``tregc`` on PATH; the server, token and CA are tregc's own:
TREG_SERVER, TREG_TOKEN, TREG_CA or client.conf) and prints the line from
the report tregc prints.  The queue holds $TREG_CAPTURE_QUEUE entries
(default 64); when it is full an entry is dropped, said once.  A failure
(tregc missing, server away, a non-zero exit) is said once, with tregc's
own line, and later ones are not.  At exit the program waits up to
$TREG_CAPTURE_WAIT seconds (default 30) for the uploads still queued, then
gives up saying how many were left (and kills the tregc under way); it does
not wait when the last upload failed (those left would most likely fail
alike, and the failure was said, once).  ``treg_capture.wait(timeout)`` waits from
the program itself.  Entries without an AMDGPU code object (.hsaco:
NVIDIA's) are not sent; treg reads AMD GPU kernels.  The worker costs the
program about 1 ms of CPU per kernel (starting tregc, reading its JSON).

Chaining: a listener set before the capture is installed is called after
ours.  One set later (``knobs.compilation.listener = fn``) is chained too:
the ``listener`` attribute of Triton's compilation_knobs class is replaced
by a descriptor that keeps the program's listener and hands ``compile()``
one that calls ours, then the program's (whose exceptions propagate as they
would without us).  Reading ``knobs.compilation.listener`` back then gives
that wrapper (its ``.user`` is the program's listener), not the function
assigned; assigning None leaves the capture on.  Should the class not look
as expected, the capture takes the slot itself, chaining to what was there,
and a listener assigned later replaces it (that program should chain to the
listener it finds).

Python 3.8+, standard library only, one file.
"""

import atexit
import base64
import json
import os
import queue
import shutil
import subprocess
import sys
import threading
import time

__all__ = ["enable", "listener", "wait"]

_DEFAULT_QUEUE = 64
_DEFAULT_WAIT = 30.0
_SLOT = "_treg_capture_listener"  # the program's own listener, per knobs instance


def _env_number(name, default, kind):
    try:
        value = kind(os.environ.get(name, ""))
        return value if value >= 0 else default
    except (TypeError, ValueError):
        return default


_cond = threading.Condition()
_queue = queue.Queue(max(1, _env_number("TREG_CAPTURE_QUEUE", _DEFAULT_QUEUE, int)))
_pending = 0  # entries queued or being sent
_worker = None
_child = None  # the tregc being run, killed if the exit wait gives up
_closing = False  # the exit wait gave up: the worker starts and prints nothing more
_child_lock = threading.Lock()  # _child and _closing (not the listener's lock)
_last_failed = False  # the last upload done failed (the server away, say)
_seen = set()  # entry folders and kernel hashes taken
_said = set()  # the once-only notes already printed
_enabled = False
_tregc = None


def _say(text):
    try:
        sys.stderr.write(text + "\n")
        sys.stderr.flush()
    except Exception:
        pass


def _say_once(key, text):
    with _cond:
        if key in _said:
            return
        _said.add(key)
    _say(text)


def _clean(value):
    text = str(value)
    return "".join(c if c.isprintable() else "?" for c in text)


# ---- the listener: only finds the entry folder and queues it ----

def _target_name(metadata):
    t = metadata.get("target")
    arch = t.get("arch") if isinstance(t, dict) else getattr(t, "arch", None)
    if arch is None:
        arch = metadata.get("arch")
    return _clean(arch) if arch is not None else "?"


def _entry_dir(name, khash, group):
    if isinstance(group, dict) and group:
        paths = [(k, v) for k, v in group.items() if isinstance(v, str) and v]
        best = None
        for k, v in paths:
            if isinstance(k, str) and k.endswith(".json") and not k.startswith("__grp__"):
                best = v
                if k == name + ".json":
                    break
        if best is None and paths:
            best = paths[0][1]
        if best is not None:
            folder = os.path.dirname(best)
            return folder if os.path.isabs(folder) else os.path.abspath(folder)
    if khash:
        # Triton's own folder for the key: base32 of the hash, in its cache dir
        try:
            key = base64.b32encode(bytes.fromhex(khash)).decode("ascii").rstrip("=")
        except (TypeError, ValueError):
            return None
        cache = None
        knobs = sys.modules.get("triton.knobs")
        try:
            cache = knobs.cache.dir if knobs is not None else None
        except Exception:
            cache = None
        if not isinstance(cache, str) or not cache:
            home = os.environ.get("TRITON_HOME") or os.path.expanduser("~")
            cache = os.environ.get("TRITON_CACHE_DIR") or os.path.join(home, ".triton", "cache")
        return os.path.normpath(os.path.join(cache, key))
    return None


def _capture(src, metadata, group):
    global _pending
    if not isinstance(metadata, dict):
        metadata = {}
    name = metadata.get("name")
    if not isinstance(name, str) or not name:
        name = getattr(src, "name", None)
    name = name if isinstance(name, str) and name else "?"
    khash = metadata.get("hash")
    khash = khash if isinstance(khash, str) and khash else None
    if khash is not None and khash in _seen:  # the common repeat, decided before any path work
        return
    entry = _entry_dir(name, khash, group)
    if entry is None:
        _say_once("noentry", "treg: %s: Triton named no cache entry folder for it; not sent "
                  "(later ones are not reported)" % _clean(name))
        return
    with _cond:
        if entry in _seen or (khash is not None and khash in _seen):
            return
        if not _start_worker():
            return
        try:
            _queue.put_nowait((name, _target_name(metadata), entry))
        except queue.Full:
            dropped = True
        else:
            dropped = False
            _pending += 1
            _seen.add(entry)
            if khash is not None:
                _seen.add(khash)
    if dropped:
        _say_once("full", "treg: the upload queue is full (%d entries waiting); %s dropped, and "
                  "later drops are not reported" % (_queue.maxsize, _clean(name)))


def _start_worker():
    """With _cond held: the worker thread, started on the first entry."""
    global _worker
    if _worker is not None and _worker.is_alive():
        return True
    try:
        w = threading.Thread(target=_work, args=(_queue,), name="treg-capture", daemon=True)
        w.start()
    except Exception:  # at interpreter shutdown, say
        return False
    _worker = w
    return True


def listener(*args, **kwargs):
    """Triton's CompilationListener: queues the entry for upload; never raises."""
    try:
        _capture(kwargs.get("src"), kwargs.get("metadata"), kwargs.get("metadata_group"))
    except Exception:
        pass


class _Chain(object):
    """Ours, then the program's listener (``user``), whose result and exceptions are its own."""

    __slots__ = ("user",)

    def __init__(self, user):
        self.user = user

    def __call__(self, *args, **kwargs):
        listener(*args, **kwargs)
        return self.user(*args, **kwargs)

    def __repr__(self):
        return "<treg_capture listener, then %r>" % (self.user,)


def _unwrap(value):
    while isinstance(value, _Chain):
        value = value.user
    return None if value is listener else value


class _ListenerSlot(object):
    """compilation_knobs.listener: keeps the program's listener, gives ours chained to it."""

    def __get__(self, obj, cls=None):
        if obj is None:
            return None
        d = obj.__dict__
        user = d[_SLOT] if _SLOT in d else d.get("listener")
        return listener if user is None else _Chain(user)

    def __set__(self, obj, value):
        obj.__dict__[_SLOT] = _unwrap(value)

    def __delete__(self, obj):
        obj.__dict__.pop(_SLOT, None)
        obj.__dict__.pop("listener", None)


# ---- the worker: tregc upload, one line per entry ----

def _work(q):
    global _pending
    while True:
        item = q.get()
        try:
            if not _closing:
                _send(*item)
        except Exception:
            pass
        finally:
            with _cond:
                _pending -= 1
                _cond.notify_all()


def _fail(name, entry, why, tregc_failed=True):
    global _last_failed
    _last_failed = _last_failed or tregc_failed
    if not _closing:
        _say_once("fail", "treg: could not send %s (%s): %s; later failures are not reported"
                  % (_clean(name), _clean(entry), _clean(why)))


def _find_tregc():
    global _tregc
    if _tregc is None:
        _tregc = os.environ.get("TREG_TREGC") or shutil.which("tregc")
    return _tregc


def _send(name, target, entry):
    global _child, _last_failed
    try:
        files = os.listdir(entry)
    except OSError as e:
        _fail(name, entry, e.strerror or e, False)
        return
    if not any(f.endswith(".hsaco") for f in files):
        _say_once("nothsaco", "treg: %s (%s): no AMDGPU code object (.hsaco) in %s: treg reads AMD "
                  "GPU kernels; not sent (later ones are not reported)" % (_clean(name), target, _clean(entry)))
        return
    tregc = _find_tregc()
    if not tregc:
        _fail(name, entry, "tregc not found (set TREG_TREGC, or put tregc on PATH)")
        return
    with _child_lock:  # so that the exit wait either sees this child or stops it starting
        if _closing:
            return
        try:
            p = subprocess.Popen([tregc, "--format", "json", "--no-rows", "upload", entry],
                                 stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        except OSError as e:
            p = None
            why = "cannot run %s: %s" % (tregc, e.strerror or e)
        _child = p
    if p is None:
        _fail(name, entry, why)
        return
    try:
        out, err = p.communicate()
    finally:
        with _child_lock:
            _child = None
    if _closing:
        return
    try:
        doc = json.loads(out.decode("utf-8", "replace"))
    except ValueError:
        doc = {}
    if not isinstance(doc, dict):
        doc = {}
    reports = [r for r in doc.get("reports") or [] if isinstance(r, dict)]
    if p.returncode != 0 or not reports:
        lines = [ln.strip() for ln in err.decode("utf-8", "replace").splitlines() if ln.strip()]
        errors = [e for e in doc.get("errors") or [] if isinstance(e, dict)]
        said = [ln for ln in lines if ln.startswith("tregc:")]  # not a sanitizer's, say
        if said:
            why = said[0]
        elif errors:
            why = "tregc: %s" % errors[0].get("message")
        elif lines:
            why = lines[-1]
        else:
            why = "tregc exited with status %s and no report" % p.returncode
        _fail(name, entry, why)
        return
    line = _report_line(name, reports)
    if line is None:
        _fail(name, entry, "the server's report has no kernel")
    else:
        _last_failed = False
        _say(line)


def _report_line(name, reports):
    pick = None
    for r in reports:
        kernels = [k for k in r.get("kernels") or [] if isinstance(k, dict)]
        kernels = [k for k in kernels if k.get("kind") != "function"] or kernels
        for k in kernels:
            if pick is None or (k.get("name") == name and pick[1].get("name") != name):
                pick = (r, k)
    if pick is None:
        return None
    r, k = pick
    vgpr = k.get("vgpr") or {}
    occ = k.get("occupancy") or {}
    waves = occ.get("waves_per_simd", "?")
    text = "%s waves/SIMD" % waves if waves != 1 else "1 wave/SIMD"
    launch = occ.get("launch_waves_per_simd")
    if isinstance(launch, int) and isinstance(waves, int) and launch < waves:
        text += " (%d at launch: %s)" % (launch, _clean(occ.get("launch_limited_by") or "?"))
    spills = k.get("spill_instructions") or 0
    spill_text = "no spills" if not spills else "%s spill instruction%s" % (spills, "s" if spills != 1 else "")
    return "treg: %s %s: VGPR %s allocated, %s%s peak; %s; %s; %s" % (
        _clean(k.get("name", name)), _clean(r.get("target") or k.get("target") or "?"),
        vgpr.get("allocated", "?"), ">=" if k.get("lower_bound") else "", vgpr.get("peak_live", "?"),
        text, spill_text, _clean(r.get("link") or r.get("hash") or "(no link)"))


# ---- waiting at exit ----

def wait(timeout=None):
    """Waits up to timeout seconds (None: for ever) for the queued uploads; returns how many are left."""
    return _wait(timeout, False)


def _wait(timeout, unless_failing):
    deadline = None if timeout is None else time.monotonic() + timeout
    with _cond:
        while _pending > 0 and not (unless_failing and _last_failed):
            if deadline is None:
                _cond.wait()
                continue
            left = deadline - time.monotonic()
            if not left > 0:
                break
            _cond.wait(min(left, 3600.0))
        return _pending


def _at_exit():
    global _closing
    try:
        limit = _env_number("TREG_CAPTURE_WAIT", _DEFAULT_WAIT, float)
        # Not for uploads that would fail as the last one did: that was said.
        left = _wait(limit, True)
        if left:
            with _child_lock:
                _closing = True
                child = _child
            try:
                if child is not None and child.poll() is None:
                    child.kill()
                    child.wait(1)
            except Exception:
                pass
            if not _last_failed:
                _say("treg: gave up waiting after %g s (TREG_CAPTURE_WAIT) with %d upload%s not done"
                     % (limit, left, "" if left == 1 else "s"))

    except BaseException:
        pass


def _after_fork_in_child():
    # The worker does not exist in the child; the parent's queue is the parent's.
    global _cond, _queue, _pending, _worker, _child, _child_lock
    _cond = threading.Condition()
    _child_lock = threading.Lock()
    _queue = queue.Queue(_queue.maxsize)
    _pending = 0
    _worker = None
    _child = None


# ---- installing it ----

def _install(knobs):
    """Makes ours the listener of knobs.compilation, chained to the program's; never raises."""
    try:
        comp = getattr(knobs, "compilation", None)
        if comp is None or not hasattr(comp, "listener"):
            return  # Triton before 3.4: no listener
        cls = type(comp)
        if isinstance(cls.__dict__.get("listener"), _ListenerSlot):
            return
        if "listener" in cls.__dict__ and cls.__dict__["listener"] is None and hasattr(comp, "__dict__"):
            user = _unwrap(comp.__dict__.pop("listener", None))
            try:
                cls.listener = _ListenerSlot()
                comp.__dict__[_SLOT] = user
                if _unwrap(comp.listener) is user:
                    return
            except Exception:
                pass
            try:  # the class did not take it: back as it was, then the slot itself
                cls.listener = None
            except Exception:
                pass
            comp.__dict__.pop(_SLOT, None)
            comp.__dict__["listener"] = user
        current = comp.listener
        if current is listener or isinstance(current, _Chain):
            return
        comp.listener = listener if current is None else _Chain(current)
    except Exception:
        pass


class _Loader(object):
    """triton.knobs' own loader, which installs the listener once the module has run."""

    def __init__(self, loader, spec):
        self._loader = loader
        self._spec = spec

    def create_module(self, spec):
        create = getattr(self._loader, "create_module", None)
        return create(spec) if create is not None else None

    def exec_module(self, module):
        try:
            self._spec.loader = self._loader
            module.__loader__ = self._loader
        except Exception:
            pass
        self._loader.exec_module(module)
        _install(module)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class _KnobsFinder(object):
    """On sys.meta_path until triton.knobs is imported."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "triton.knobs":
            return None
        try:
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass
            for finder in list(sys.meta_path):
                find = getattr(finder, "find_spec", None)
                spec = find(fullname, path, target) if find is not None else None
                if spec is not None:
                    break
            else:
                return None
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _Loader(spec.loader, spec)
            return spec
        except Exception:
            return None


def enable():
    """Installs the capture: now if triton.knobs is imported, else when it is. Idempotent."""
    global _enabled
    try:
        with _cond:
            if _enabled:
                return
            _enabled = True
        atexit.register(_at_exit)
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_after_fork_in_child)
        knobs = sys.modules.get("triton.knobs")
        if knobs is not None:
            _install(knobs)
        else:
            sys.meta_path.insert(0, _KnobsFinder())
    except Exception:
        pass


_USAGE = """usage: python -m treg_capture SCRIPT [ARGS...]
       python -m treg_capture -m MODULE [ARGS...]
Runs SCRIPT (or MODULE) as __main__ with the treg capture on: each Triton
kernel it compiles is sent to tregd by tregc, with one line on stderr."""


def _main(argv):
    import runpy
    if not argv or argv[0] in ("-h", "--help"):
        print(_USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if argv[0] == "-m":
        if len(argv) < 2:
            print(_USAGE, file=sys.stderr)
            return 2
        enable()
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    enable()
    sys.argv = list(argv)
    if sys.path and not (sys.flags.isolated or getattr(sys.flags, "safe_path", False)):
        sys.path[0] = os.path.dirname(os.path.abspath(argv[0]))  # as `python SCRIPT` has it
    runpy.run_path(argv[0], run_name="__main__")
    return 0


if __name__ == "__main__":
    # The module by its own name, so that the capture the .pth may have
    # enabled already and this one are the same.
    import treg_capture
    sys.exit(treg_capture._main(sys.argv[1:]))
