#!/usr/bin/env python3
"""Derives this folder's three entries from real Triton 3.6.0 entries of the
shared corpus (../shared/corpus/triton-cache), each shaped as a newer Triton
writes it (ORIGIN.md says what each Triton version writes, from its source).
The code objects are the 3.6.0 ones, byte for byte; only what the newer
version writes differently is rewritten, with Triton's own json.dumps
defaults (one line, ", " and ": ").

usage: derive.py SHARED_TRITON_CACHE OUT_DIR
"""
import json
import os
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]


def entry(h):
    return os.path.join(src, h)


def group(dst, h, names):
    """__grp__<kernel>.json as FileCacheManager.put_group writes it, the
    paths those of the machine that compiled it (/root/.triton/cache)."""
    kernel = names[-1][:-len(".json")]
    paths = {n: f"/root/.triton/cache/{h}/{n}" for n in names}
    with open(os.path.join(dst, f"__grp__{kernel}.json"), "w") as f:
        f.write(json.dumps({"child_paths": paths}))


def copy(h, files, rewrite_json=None, rewrite_llir=None):
    dst = os.path.join(out, h)
    os.makedirs(dst, exist_ok=True)
    for n in files:
        data = open(os.path.join(entry(h), n), "rb").read()
        if n.endswith(".json") and rewrite_json:
            meta = json.loads(data)
            assert json.dumps(meta).encode() == data, f"{h}/{n} is not json.dumps' own text"
            data = json.dumps(rewrite_json(meta)).encode()
        if n.endswith(".llir") and rewrite_llir:
            data = rewrite_llir(data)
        open(os.path.join(dst, n), "wb").write(data)
    return dst


def insert_after(meta, after, items):
    """meta with items placed after key `after`, Triton's key order."""
    res = {}
    for k, v in meta.items():
        res[k] = v
        if k == after:
            res.update(items)
    return res


# 1. TRITON_STORE_BINARY_ONLY=1 (3.4+): .source, .hsaco, .json and the group
#    listing those three; the 3.6.0 gfx942 matmul.
h = "3EB5ITNVJJEASVGOOFNBKD6OBZIVKCNTM3VGAWZY5Z3USBCVGDFQ"
names = ["matmul_kernel.source", "matmul_kernel.hsaco", "matmul_kernel.json"]
group(copy(h, names), h, names)


# 2. Triton 3.7.1: 3.6's keys (HIPOptions unchanged), num_warps the total
#    after warp specialisation (the same without it), .llir "0, 0" as 3.6;
#    every stage's file; the gfx90a softmax.
def v371(meta):
    meta["triton_version"] = "3.7.1"
    return meta


h = "MD4F523L5PVMIKLU6IIZMAM7ASER47Q6J6JG6ABYSLCTRQZ3BBMA"
names = [f"softmax_kernel.{e}" for e in ("source", "ttir", "ttgir", "llir", "amdgcn", "hsaco", "json")]
group(copy(h, names, v371), h, names)


# 3. Triton main after 3.8 (7049e17c7): schedule_hint "", llvm_fn_attrs [],
#    global_scratch_size/align after shared (3.8's ff4076270), and no
#    "amdgpu-waves-per-eu" in the .llir when waves_per_eu is 0; the gfx90a
#    vector add.
def main_json(meta):
    meta["triton_version"] = "3.8.0"
    meta["schedule_hint"] = ""
    meta = insert_after(meta, "schedule_hint", {"llvm_fn_attrs": []})
    meta = insert_after(meta, "instrumentation_mode", {"fpsan_homomorphic_casts": False})
    return insert_after(meta, "shared", {"global_scratch_size": 0, "global_scratch_align": 1})


def main_llir(data):
    attr = b' "amdgpu-waves-per-eu"="0, 0"'
    assert data.count(attr) == 1, "the 3.6 .llir's attribute"
    return data.replace(attr, b"")


h = "BPPSWMTVKUWIJ546MIGZSHRISPX6AHXVGWZV7HYEYYLWZ6ZRQSQQ"
names = [f"add_kernel.{e}" for e in ("source", "ttir", "ttgir", "llir", "amdgcn", "hsaco", "json")]
group(copy(h, names, main_json, main_llir), h, names)
