/* Registers live at kernel entry and registers allocated, as the compiler
 * counts them: the highest register an instruction names + 1 per file (the
 * input registers dispatch initialises count only where the code names
 * them: a kernel with every input SGPR enabled and s[4:5] used reports
 * next_free_sgpr 6), plus the target's extra SGPRs (VCC, FLAT_SCRATCH,
 * XNACK_MASK; AMDGPUResourceUsageAnalysis + getNumExtraSGPRs), FLAT_SCRATCH
 * only where an instruction names it. */
#ifndef TREG_METRICS_ALLOCATION_H
#define TREG_METRICS_ALLOCATION_H

#include <stdbool.h>
#include <stddef.h>

#include "load/codeobj.h"
#include "model/semantics.h"
#include "targets/targets.h"

/* The hardware initialises before the first instruction: user SGPRs, the
 * enabled system SGPRs (workgroup ids, workgroup info, private segment wave
 * offset, in that order; with architected flat scratch, gfx940+ and GFX11+,
 * the private-segment bit sets up FLAT_SCRATCH instead and no SGPR
 * arrives: AMDGPUUsage, COMPUTE_PGM_RSRC2.ENABLE_PRIVATE_SEGMENT), EXEC,
 * and the work-item id VGPRs (packed into v0 on targets with packed TIDs). */
typedef struct treg_entry {
    treg_regset live;
} treg_entry;

void treg_entry_live(const treg_kd *kd, const treg_target *t, treg_entry *out);

typedef struct treg_alloc {
    unsigned arch_vgprs; /* NumVgprs */
    unsigned agprs;      /* NumAgprs */
    unsigned numbered_sgprs;
    unsigned sgprs; /* TotalNumSgprs */
    bool uses_vcc, uses_flat_scratch;
} treg_alloc;

void treg_allocation(const treg_insn_effect *fx, size_t n, const treg_target *t, bool xnack_enabled,
                     treg_alloc *out);

#endif
