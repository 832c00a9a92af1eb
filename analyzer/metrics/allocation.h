/* Registers live at kernel entry and registers allocated, as the compiler
 * counts them: highest register used + 1 per file, at least what wave
 * dispatch initialises, plus the target's extra SGPRs (VCC, FLAT_SCRATCH,
 * XNACK_MASK; AMDGPUResourceUsageAnalysis + getNumExtraSGPRs). */
#ifndef TREG_METRICS_ALLOCATION_H
#define TREG_METRICS_ALLOCATION_H

#include <stdbool.h>
#include <stddef.h>

#include "load/codeobj.h"
#include "model/semantics.h"
#include "targets/targets.h"

/* The hardware initialises before the first instruction: user SGPRs, the
 * enabled system SGPRs (workgroup ids, workgroup info, private segment wave
 * offset, in that order), EXEC, and the work-item id VGPRs (packed into v0
 * on targets with packed TIDs). */
typedef struct treg_entry {
    treg_regset live;
    unsigned sgprs, vgprs; /* how many of each dispatch initialises */
} treg_entry;

void treg_entry_live(const treg_kd *kd, const treg_target *t, treg_entry *out);

typedef struct treg_alloc {
    unsigned arch_vgprs; /* NumVgprs */
    unsigned agprs;      /* NumAgprs */
    unsigned numbered_sgprs;
    unsigned sgprs; /* TotalNumSgprs */
    bool uses_vcc, uses_flat_scratch;
} treg_alloc;

void treg_allocation(const treg_insn_effect *fx, size_t n, const treg_target *t,
                     const treg_entry *entry, bool xnack_enabled, bool flat_scratch_init,
                     treg_alloc *out);

#endif
