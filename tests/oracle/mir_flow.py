"""mir_flow.py -- register dataflow over one machine function, for mir_live.py.

The graph's nodes are straight-line runs of instructions: a block, cut after
a branch that more code follows (S_CBRANCH_SCC1 %bb.5 then S_BRANCH %bb.7),
so that such a branch's target is live only after the branch.  Two analyses:

  maybe_defined  forward: the units some path from the entry has written,
                 the entry's live-ins counting as written.  A read of a unit
                 outside that set reads no value (mode hw drops it).
  occupancy      backward liveness in two sets, as treg keeps it: units whose
                 every lane is needed, and units needed only in the lanes of
                 a partial EXEC.  A vector write under a partial EXEC kills
                 only the second; any other write kills both.  With no
                 instruction marked partial it is plain liveness.  Per
                 instruction, occupied = live before | live after | written.
"""
from mir_model import VECTOR_UNITS, is_branch


class Node:
    __slots__ = ("instrs", "succs", "preds")

    def __init__(self, instrs):
        self.instrs, self.succs, self.preds = instrs, [], []


def build_graph(fn):
    """Nodes in layout order (their instructions are indices into the
    function's instruction list, in layout order); nodes[0] is the entry."""
    nodes, first_node, index = [], {}, 0
    for block in fn.blocks:
        first_node[block.name] = len(nodes)
        run = []
        for k, ins in enumerate(block.instrs):
            run.append(index + k)
            if is_branch(ins) and k < len(block.instrs) - 1:
                nodes.append(Node(run))
                run = []
        nodes.append(Node(run))
        index += len(block.instrs)
    instrs = [ins for block in fn.blocks for ins in block.instrs]
    for b, block in enumerate(fn.blocks):
        first, last = first_node[block.name], (first_node[fn.blocks[b + 1].name] - 1
                                               if b + 1 < len(fn.blocks) else len(nodes) - 1)
        inner_targets = set()
        for n in range(first, last):          # a branch with code after it
            targets = instrs[nodes[n].instrs[-1]].targets
            inner_targets.update(targets)
            nodes[n].succs = [first_node[t] for t in targets] + [n + 1]
        nodes[last].succs = [first_node[t] for t in _exits(fn, b, instrs, nodes[last], inner_targets)]
    for n, node in enumerate(nodes):
        node.succs = list(dict.fromkeys(node.succs))
        for s in node.succs:
            nodes[s].preds.append(n)
    return nodes


def _exits(fn, b, instrs, node, inner_targets):
    """Where a block's last run goes: an S_BRANCH's target; else the block's
    successors, less those only an inner branch goes to."""
    block = fn.blocks[b]
    last = instrs[node.instrs[-1]] if node.instrs else None
    if last is not None and last.opcode == "S_BRANCH":
        return last.targets
    own = set(last.targets) if last is not None else set()
    fall = fn.blocks[b + 1].name if b + 1 < len(fn.blocks) else None
    return [s for s in block.successors if s not in inner_targets or s in own or s == fall]


def maybe_defined(nodes, writes, entry_units):
    """Per instruction, the units some path has written before it."""
    gen = [0] * len(nodes)
    for n, node in enumerate(nodes):
        for i in node.instrs:
            gen[n] |= writes[i]
    into = [0] * len(nodes)
    into[0] = entry_units
    work = list(range(len(nodes)))
    while work:
        n = work.pop()
        out = into[n] | gen[n]
        for s in nodes[n].succs:
            if out & ~into[s]:
                into[s] |= out
                work.append(s)
    before = [0] * len(writes)
    for n, node in enumerate(nodes):
        have = into[n]
        for i in node.instrs:
            before[i] = have
            have |= writes[i]
    return before


def _step(reads, writes, partial):
    """An instruction as two transfer functions, (gen, kill) per set:
    live before = gen | (live after & ~kill)."""
    if not partial:
        return reads, writes, 0, writes
    return reads & ~VECTOR_UNITS, writes & ~VECTOR_UNITS, reads & VECTOR_UNITS, writes


def occupancy(nodes, reads, writes, partial):
    """Per instruction, the units occupied: live before, live after, written."""
    steps = [_step(r, w, p) for r, w, p in zip(reads, writes, partial)]
    summary = []
    for node in nodes:                       # the node as one transfer function
        gen_f = kill_f = gen_p = kill_p = 0
        for i in reversed(node.instrs):
            g_f, k_f, g_p, k_p = steps[i]
            gen_f, kill_f = g_f | (gen_f & ~k_f), kill_f | k_f
            gen_p, kill_p = g_p | (gen_p & ~k_p), kill_p | k_p
        summary.append((gen_f, kill_f, gen_p, kill_p))
    live_in = [(0, 0)] * len(nodes)
    live_out = [(0, 0)] * len(nodes)
    work = list(range(len(nodes)))
    while work:
        n = work.pop()
        full = part = 0
        for s in nodes[n].succs:
            full |= live_in[s][0]
            part |= live_in[s][1]
        live_out[n] = (full, part)
        gen_f, kill_f, gen_p, kill_p = summary[n]
        new_in = (gen_f | (full & ~kill_f), gen_p | (part & ~kill_p))
        if new_in != live_in[n]:
            live_in[n] = new_in
            work.extend(nodes[n].preds)
    occupied = [0] * len(reads)
    for n, node in enumerate(nodes):
        full, part = live_out[n]
        for i in reversed(node.instrs):
            after = full | part
            g_f, k_f, g_p, k_p = steps[i]
            full, part = g_f | (full & ~k_f), g_p | (part & ~k_p)
            occupied[i] = after | full | part | writes[i]
    return occupied
