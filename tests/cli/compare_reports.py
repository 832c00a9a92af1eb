#!/usr/bin/env python3
"""Compares two treg-analyze JSON reports of the same kernels, one made from
the code object and one from its assembly text: every field must be equal,
except where the two sources differ by construction: which source, and the
printed forms of one encoding listed in row_text.  The rows' reads and
writes are compared as they are, so a printing equivalence that changed the
model's reading would still show.  Prints one line per difference; exit 1 if any.

usage: compare_reports.py BINARY.json TEXT.json [--max N]
"""
import json
import re
import sys

# What says where the instructions came from, not what they do; by what
# the extra SGPRs were reserved (the text's .amdhsa_reserve_* directives, the
# binary's code): the SGPRs themselves are compared; and where the kernel
# sits (the code object's load address, the text's section offset).
SOURCE_ONLY = {"instruction_source", "text_instructions", "file", "decoded_as", "target_note",
               "asm_note", "trailer_occupancy", "sgpr_reserved_by", "sgpr_note", "entry_address"}
BRANCH = re.compile(r"^(s_branch|s_cbranch_\w+|s_call_b64)\b")


def row_text(t):
    """What the two sources print apart for one encoding: a branch's target
    (a word offset in the disassembly, a label in the text); on GFX11 the
    disassembler's true16 ".l" for what codegen printed as the fake16 whole
    register, and its "null" SMEM offset register for codegen's 0x0; a
    literal that could be inline, lit(...) or bare by LLVM version."""
    if BRANCH.match(t):
        return re.sub(r"\S+$", "<target>", t)
    t = re.sub(r"\b(v\d+)\.l\b", r"\1", t)
    # a literal whose value could be inline: LLVM 22 prints lit(0xffffffff), 19 prints -1
    t = re.sub(r"lit\((0x[0-9a-f]+)\)",
               lambda m: str(int(m.group(1), 16) - (1 << 32 if int(m.group(1), 16) >> 31 else 0)), t)
    return re.sub(r"^(s_(?:buffer_)?load_\w+ .*), (?:null|0x0)$", r"\1, <zero>", t)


def walk(a, b, path, out):
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if k in SOURCE_ONLY:
                continue
            if k not in a or k not in b:
                out.append(f"{path}/{k}: only in {'binary' if k in a else 'text'}")
                continue
            if k == "text" and isinstance(a[k], str):
                if row_text(a[k]) != row_text(b[k]):
                    out.append(f"{path}/text: {a[k]!r} != {b[k]!r}")
                continue
            walk(a[k], b[k], f"{path}/{k}", out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{path}: {len(a)} items != {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            walk(x, y, f"{path}[{i}]", out)
            if len(out) > 10000:
                return
    elif a != b:
        out.append(f"{path}: {a!r} != {b!r}")


def main():
    args = sys.argv[1:]
    limit = 20
    if "--max" in args:
        i = args.index("--max")
        limit = int(args[i + 1])
        del args[i : i + 2]
    binary, text = (json.load(open(p)) for p in args)
    out = []
    for rb, rt in zip(binary["reports"], text["reports"]):
        walk(rb, rt, rb.get("file", "?").rsplit("/", 2)[-2], out)
    if len(binary["reports"]) != len(text["reports"]):
        out.append(f"{len(binary['reports'])} reports != {len(text['reports'])}")
    for e in binary.get("errors", []) + text.get("errors", []):
        out.append(f"error: {e}")
    for line in out[:limit]:
        print(line)
    if len(out) > limit:
        print(f"... {len(out) - limit} more")
    return 1 if out else 0


if __name__ == "__main__":
    sys.exit(main())
