"""Writes a Triton cache entry the way Triton's FileCacheManager does (the
HIP backend, Hygon's Triton too): the entry folder first, then each file
under a temporary name and os.replace'd to its final one, the
__grp__<name>.json group file last.

    python3 triton_write.py CACHE ENTRY SRC_DIR [--pause S] [--hold FILE]
        [--style dir|name] [--tmp-id ID] [--group last|first|none]
        [--hsaco empty|half --fill FILE]

SRC_DIR is an existing entry whose files are copied; --pause sleeps S
seconds between files; --hold FILE waits until FILE exists before the group
file is written last (the test looks at the watcher meanwhile).

--style: where a file is written before its rename: "dir" (Triton 3:
ENTRY/tmp.pid_<ID>/<file>, the folder removed after) or "name" (Triton 2:
ENTRY/<file>.tmp.pid_<ID>).  --tmp-id: that ID (default <pid>_<uuid>).
--group: the group file last (Triton's order), first (before any other
file, naming them all) or not at all.  --hsaco: the code object is not
renamed into place but written there in place, as a copying tool would:
first empty (or with half its bytes) at its turn, and whole only after every
other file, once --fill FILE exists."""
import argparse
import json
import os
import shutil
import time
import uuid

ap = argparse.ArgumentParser()
ap.add_argument("cache")
ap.add_argument("entry")
ap.add_argument("src")
ap.add_argument("--pause", type=float, default=0.0)
ap.add_argument("--hold")
ap.add_argument("--style", choices=("dir", "name"), default="dir")
ap.add_argument("--tmp-id")
ap.add_argument("--group", choices=("last", "first", "none"), default="last")
ap.add_argument("--hsaco", choices=("empty", "half"))
ap.add_argument("--fill")
a = ap.parse_args()
if a.hsaco and not a.fill:
    ap.error("--hsaco needs --fill")


def wait_for(path):
    while not os.path.exists(path):
        time.sleep(0.05)


def put(data, name):
    """FileCacheManager.put: a temporary name, then os.replace."""
    tmp_id = a.tmp_id or f"{os.getpid()}_{uuid.uuid4()}"
    final = os.path.join(key_dir, name)
    if a.style == "dir":
        temp_dir = os.path.join(key_dir, f"tmp.pid_{tmp_id}")
        os.makedirs(temp_dir, exist_ok=True)
        temp_path = os.path.join(temp_dir, name)
    else:
        temp_dir = None
        temp_path = f"{final}.tmp.pid_{tmp_id}"
    with open(temp_path, "wb") as f:
        f.write(data)
    os.replace(temp_path, final)
    if temp_dir:
        os.removedirs(temp_dir)
    return final


key_dir = os.path.join(a.cache, a.entry)
os.makedirs(key_dir, exist_ok=True)
files = sorted(f for f in os.listdir(a.src) if not f.startswith("__grp__"))
stem = next(f for f in files if f.endswith(".hsaco"))[:-6]
group = f"__grp__{stem}.json"


def put_group(paths):
    put(json.dumps({"child_paths": paths}).encode(), group)


if a.group == "first":
    put_group({name: os.path.join(key_dir, name) for name in files})
# Triton writes the binary and its metadata among the others.
paths = {}
for name in files:
    data = open(os.path.join(a.src, name), "rb").read()
    if a.hsaco and name.endswith(".hsaco"):
        with open(os.path.join(key_dir, name), "wb") as f:
            f.write(data[:len(data) // 2] if a.hsaco == "half" else b"")
        paths[name] = os.path.join(key_dir, name)
    else:
        paths[name] = put(data, name)
    time.sleep(a.pause)
if a.group == "last":
    if a.hold:
        wait_for(a.hold)
    put_group(paths)
if a.hsaco:
    wait_for(a.fill)
    hsaco = f"{stem}.hsaco"
    shutil.copyfile(os.path.join(a.src, hsaco), os.path.join(key_dir, hsaco))
