/* Stage 5b: backward register liveness on bitsets, per block to a
 * fixpoint, then per instruction.  Two sets are tracked: registers whose
 * every lane is needed (read under a full EXEC, or scalar) and registers
 * needed only in the lanes of a partial EXEC.  A vector write under a
 * partial EXEC kills only the latter: the inactive lanes keep the old
 * value, which a later full-EXEC read still needs (the loaded value of an
 * if-block merged with the default written before it).  A write under a
 * full EXEC, or of an SGPR, kills both. */
#ifndef TREG_FLOW_LIVENESS_H
#define TREG_FLOW_LIVENESS_H

#include <stdbool.h>
#include <stdint.h>

#include "flow/cfg.h"
#include "model/regs.h"

typedef struct treg_liveness {
    treg_regset *out_full, *out_part; /* per block live-out */
    treg_regset *defs;                /* per block: registers written in it */
    uint16_t (*occupied)[3];          /* per instruction: vgpr, agpr, sgpr occupied */
    treg_regset undefined;            /* live at entry but not an entry live-in */
} treg_liveness;

int treg_liveness_run(treg_arena *a, const treg_cfg *g, const treg_insn_effect *fx, size_t n,
                      const uint8_t *exec_partial, const treg_regset *entry_live,
                      treg_liveness *out, treg_error *err);

/* The registers occupied at instruction i (live before | live after |
 * written), recomputed from its block's live-out. */
void treg_liveness_occupied_at(const treg_liveness *lv, const treg_cfg *g,
                               const treg_insn_effect *fx, const uint8_t *exec_partial, uint32_t i,
                               treg_regset *occupied);

/* The registers live just after instruction i (before: just before it),
 * in either set, as whole registers. */
void treg_liveness_live_at(const treg_liveness *lv, const treg_cfg *g, const treg_insn_effect *fx,
                           const uint8_t *exec_partial, uint32_t i, bool before, treg_regset *live);

/* *out: the registers of v0-v31 (bit r for vr) whose last write on some
 * path to an exit (a block without successors) is read by nothing after it:
 * what a function leaves for its caller.  A call's writes (its callee's
 * results) are not counted. */
int treg_liveness_unread_at_exit(treg_arena *a, const treg_liveness *lv, const treg_cfg *g,
                                 const treg_insn_effect *fx, const uint8_t *exec_partial,
                                 uint32_t *out, treg_error *err);

/* Every instruction's occupied set, the one occupied[] counts, in one
 * backward walk: visit(ctx, i, set) for i = n - 1 down to 0.  Blocks are
 * contiguous ranges of instructions, so each starts at its live-out. */
typedef void (*treg_occupied_visit)(void *ctx, uint32_t i, const treg_regset *occupied);
void treg_liveness_each_occupied(const treg_liveness *lv, const treg_cfg *g,
                                 const treg_insn_effect *fx, const uint8_t *exec_partial, size_t n,
                                 treg_occupied_visit visit, void *ctx);

/* The same walk, each instruction's live-after set (either set, whole
 * registers) instead. */
void treg_liveness_each_live_after(const treg_liveness *lv, const treg_cfg *g,
                                   const treg_insn_effect *fx, const uint8_t *exec_partial,
                                   size_t n, treg_occupied_visit visit, void *ctx);

#endif
