"""compile(ENTRY_DIR, cache_hit=False): ENTRY_DIR is a real Triton cache
entry folder (<name>.json, .hsaco, .amdgcn, ...).  The listener is read once
on entry and called as Triton's compile() calls it, keyword arguments only:

- cache_hit=False, a fresh compile: metadata the live dict (target a
  GPUTarget, tuples where Triton keeps them), metadata_group the files in
  stage order then the .json, the __grp__<name>.json group file written;
- cache_hit=True, a hit on disk: metadata re-read from the .json (target
  rebuilt as a GPUTarget, lists as lists), metadata_group read from the
  group file (else the folder's files).

listener_ns records how long each listener call took (for the tests)."""

import json
import os
import time

from .. import __version__, knobs
from ..backends.compiler import GPUTarget

listener_ns = []
STAGES = ("source", "ttir", "ttgir", "llir", "amdgcn", "hsaco")


class ASTSource:
    ext = "ttir"

    def __init__(self, name):
        self.name = name
        self.fn = None


class CompiledKernel:
    def __init__(self, src, metadata_group, metadata):
        self.src = src
        self.metadata_group = metadata_group
        self.metadata = metadata


def _call(listener, **kwargs):
    t0 = time.perf_counter_ns()
    listener(**kwargs)
    listener_ns.append(time.perf_counter_ns() - t0)


def compile(entry_dir, cache_hit=False):
    compilation_listener = knobs.compilation.listener
    t0 = time.perf_counter_ns()
    entry_dir = os.path.abspath(entry_dir)
    names = sorted(f for f in os.listdir(entry_dir) if not f.startswith("__grp__"))
    file_name = next(f for f in names if f.endswith(".json"))[:-len(".json")]
    metadata_filename = file_name + ".json"
    with open(os.path.join(entry_dir, metadata_filename)) as f:
        stored = json.load(f)
    src = ASTSource(stored.get("name", file_name))
    group_path = os.path.join(entry_dir, "__grp__" + metadata_filename)
    if cache_hit:
        metadata_group = {}
        if os.path.exists(group_path):
            with open(group_path) as f:
                metadata_group = json.load(f)["child_paths"]
        else:
            metadata_group = {n: os.path.join(entry_dir, n) for n in names}
        metadata = dict(stored)
        metadata["target"] = GPUTarget(**stored["target"])
        res = CompiledKernel(src, metadata_group, metadata)
        if compilation_listener:
            times = knobs.CompileTimes((time.perf_counter_ns() - t0) // 1000, [], 0)
            _call(compilation_listener, src=src, metadata=metadata, metadata_group=metadata_group,
                  times=times, cache_hit=True)
        return res
    metadata = {"hash": stored["hash"], "target": GPUTarget(**stored["target"])}
    for k, v in stored.items():
        if k in ("hash", "target", "name", "shared"):
            continue
        if isinstance(v, list):  # Triton's options hold tuples
            v = tuple(tuple(x) if isinstance(x, list) else x for x in v)
        metadata[k] = v
    metadata["triton_version"] = __version__
    metadata["cluster_dims"] = (1, 1, 1)
    metadata_group = {}
    stages = []
    for ext in STAGES:
        if file_name + "." + ext in names:
            metadata_group[file_name + "." + ext] = os.path.join(entry_dir, file_name + "." + ext)
            if ext != "source":
                stages.append((ext, 1))
    metadata["name"] = stored.get("name", file_name)
    metadata["shared"] = stored.get("shared", 0)
    metadata_group[metadata_filename] = os.path.join(entry_dir, metadata_filename)
    with open(group_path, "w") as f:
        json.dump({"child_paths": metadata_group}, f)
    if compilation_listener:
        times = knobs.CompileTimes(1, stages, (time.perf_counter_ns() - t0) // 1000)
        _call(compilation_listener, src=src, metadata=metadata, metadata_group=metadata_group,
              times=times, cache_hit=False)
    return CompiledKernel(src, metadata_group, metadata)
