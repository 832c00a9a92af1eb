"""Writes a Triton cache entry the way Triton's FileCacheManager does (the
HIP backend, Hygon's Triton too): the entry folder first, then each file
into a temporary folder under the cache (tmp.pid_<pid>_<uuid>) and
os.replace'd into the entry, the __grp__<name>.json group file last.

    python3 triton_write.py CACHE ENTRY SRC_DIR [--pause S] [--hold FILE]

SRC_DIR is an existing entry whose files are copied; --pause sleeps S
seconds between files; --hold FILE waits until FILE exists before the group
file is written (the test looks at the watcher meanwhile)."""
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
a = ap.parse_args()

key_dir = os.path.join(a.cache, a.entry)
os.makedirs(key_dir, exist_ok=True)
files = sorted(f for f in os.listdir(a.src) if not f.startswith("__grp__"))
# Triton writes the binary and its metadata among the others; the group last.
paths = {}
for name in files:
    temp_dir = os.path.join(a.cache, f"tmp.pid_{os.getpid()}_{uuid.uuid4()}")
    os.makedirs(temp_dir, exist_ok=True)
    temp_path = os.path.join(temp_dir, name)
    shutil.copyfile(os.path.join(a.src, name), temp_path)
    os.replace(temp_path, os.path.join(key_dir, name))
    os.removedirs(temp_dir)
    paths[name] = os.path.join(key_dir, name)
    time.sleep(a.pause)
if a.hold:
    while not os.path.exists(a.hold):
        time.sleep(0.05)
stem = next(f for f in files if f.endswith(".hsaco"))[:-6]
group = f"__grp__{stem}.json"
temp_dir = os.path.join(a.cache, f"tmp.pid_{os.getpid()}_{uuid.uuid4()}")
os.makedirs(temp_dir)
with open(os.path.join(temp_dir, group), "w") as f:
    json.dump({"child_paths": paths}, f)
os.replace(os.path.join(temp_dir, group), os.path.join(key_dir, group))
os.removedirs(temp_dir)
