/* Stage 4: basic blocks, edges, reverse post-order, dominators and natural
 * loops of one kernel, from the decoded instructions and their modelled
 * control-flow roles.  Branch targets come from the PC-relative word
 * offsets of s_branch/s_cbranch_*, and from the constants of a long branch
 * (s_getpc_b64, s_add_u32, s_addc_u32, s_setpc_b64: LLVM's branch
 * relaxation, when a target is out of s_branch's 16-bit reach).  An
 * s_setpc_b64 whose target cannot be proven that way ends its block with
 * no successor, and is counted.  Calls (s_swappc_b64, computed the same
 * way; s_call_b64) fall through, their targets listed for the caller's
 * call graph (report/calls.c). */
#ifndef TREG_FLOW_CFG_H
#define TREG_FLOW_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decode/disasm.h"
#include "model/semantics.h"
#include "util/arena.h"

#define TREG_NONE UINT32_MAX

typedef struct treg_block {
    uint32_t first, last; /* instruction indices, inclusive */
    uint32_t succ[2];
    uint8_t nsucc;
    uint32_t *preds;
    uint32_t npreds;
    uint32_t rpo;        /* position in reverse post-order; TREG_NONE when unreachable */
    uint32_t idom;       /* immediate dominator block; TREG_NONE for entry/unreachable */
    uint32_t loop;       /* innermost loop, TREG_NONE when in none */
    uint16_t loop_depth; /* number of loops containing the block */
} treg_block;

typedef struct treg_loopinfo {
    uint32_t header;
    uint32_t *blocks; /* body, header included */
    uint32_t nblocks;
    uint32_t parent; /* enclosing loop or TREG_NONE */
    uint16_t depth;  /* 1 for outermost */
} treg_loopinfo;

/* A call instruction and, when the code proves it, the address it calls. */
typedef struct treg_cfg_call {
    uint32_t insn;
    bool resolved;
    uint64_t dest;
} treg_cfg_call;

typedef struct treg_cfg {
    treg_block *blocks;
    uint32_t nblocks;
    uint32_t *block_of; /* instruction index -> block */
    uint32_t *rpo;      /* reachable blocks in reverse post-order */
    uint32_t nreachable;
    treg_loopinfo *loops;
    uint32_t nloops;
    uint32_t calls;
    treg_cfg_call *call_sites; /* one per call, in address order */
    uint32_t ncall_sites;
    uint32_t long_branches;    /* s_setpc_b64 followed to its computed target */
    uint32_t unresolved_jumps; /* s_setpc_b64 whose target is unknown: no successor */
} treg_cfg;

int treg_cfg_build(treg_arena *a, const treg_insn *insns, const treg_insn_effect *fx, size_t n,
                   treg_cfg *out, treg_error *err);

#endif
