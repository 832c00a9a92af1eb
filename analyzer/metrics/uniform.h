/* Which registers hold wave-uniform values: the same in every active lane.
 *
 * A forward analysis over the CFG.  Varying values start at the work-item
 * ids the hardware puts in VGPRs (the entry's VGPR live-ins); SGPRs hold
 * one value for the wave, except the lane masks a vector compare writes
 * (a mask is varying when what it compared is).  A value is varying when
 * any register it reads is (EXEC aside), when the instruction itself
 * depends on the lane (lane ids, DPP and permutes, matrix instructions,
 * per-lane private memory, atomics' returns), or when it is a vector write
 * while EXEC may be partial (the lanes it skips keep the old value).
 * Joins take the union of what may be varying, so a register reported
 * uniform is uniform on every path: a VGPR that is could live in an SGPR.
 * Lane-dependence and its exceptions are data (uniform.c's tables). */
#ifndef TREG_METRICS_UNIFORM_H
#define TREG_METRICS_UNIFORM_H

#include "flow/cfg.h"
#include "model/regs.h"

typedef struct treg_uniform {
    treg_regset *varying_in; /* per block: registers that may vary on entry */
    const treg_cfg *g;
    const treg_insn_effect *fx;
    const uint8_t *partial;
    const uint8_t *kind; /* per instruction: what its mnemonic says (uniform.c) */
} treg_uniform;

/* varying_entry: the registers that vary at the kernel's entry (its
 * work-item id VGPRs). */
int treg_uniform_run(treg_arena *a, const treg_cfg *g, const treg_insn_effect *fx, size_t n,
                     const uint8_t *exec_partial, const treg_regset *varying_entry,
                     treg_uniform *out, treg_error *err);

/* The registers that may vary just before instruction i, and just after. */
void treg_uniform_at(const treg_uniform *u, uint32_t i, treg_regset *before, treg_regset *after);

/* The effect of one instruction on the varying set (exposed for tests). */
void treg_uniform_step(const treg_insn_effect *e, bool exec_partial, treg_regset *varying);

#endif
