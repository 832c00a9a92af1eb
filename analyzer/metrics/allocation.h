/* Registers live at kernel entry and registers allocated, as the compiler
 * counts them: the highest register an instruction names + 1 per file (the
 * input registers dispatch initialises count only where the code names
 * them: a kernel with every input SGPR enabled and s[4:5] used reports
 * next_free_sgpr 6), plus the target's extra SGPRs (VCC, FLAT_SCRATCH,
 * XNACK_MASK; AMDGPUResourceUsageAnalysis + getNumExtraSGPRs), FLAT_SCRATCH
 * only where an instruction names it.  Where the descriptor came from an
 * assembly's .amdhsa_kernel block, the extra SGPRs are the ones its
 * .amdhsa_reserve_* directives reserve (the assembler's defaults where one
 * is absent: VCC and FLAT_SCRATCH reserved, XNACK_MASK as the target's
 * XNACK setting), as the assembler encodes the descriptor: a kernel that
 * reserves no VCC gets none, one that reserves FLAT_SCRATCH without naming
 * it gets it. */
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
    /* TREG_RESERVE_* bits: those asked for (by the directives, or by the
     * code's use and the XNACK setting), and those the extra SGPRs cover:
     * one block at the file's top, VCC below XNACK_MASK below FLAT_SCRATCH,
     * so reserving a higher one covers all below it. */
    uint8_t reserve_asked, reserved;
    bool by_directives; /* the descriptor came from an .amdhsa_kernel block */
    uint8_t directives; /* the TREG_RESERVE_* directives it gave (the rest: defaults) */
} treg_alloc;

/* kd may be NULL (no descriptor: the code's use). */
void treg_allocation(const treg_insn_effect *fx, size_t n, const treg_target *t, bool xnack_enabled,
                     const treg_kd *kd, treg_alloc *out);

/* The name of the i-th extra register in a TREG_RESERVE_* set, from the
 * bottom (VCC, XNACK_MASK, FLAT_SCRATCH), or NULL past the last. */
/* A callee's allocation folded into its caller's, as LLVM's resource
 * usage does: the larger of each count, VCC and FLAT_SCRATCH used where
 * either uses them (so reserved, unless the caller's directives decide). */
void treg_allocation_fold(treg_alloc *al, const treg_alloc *callee, const treg_target *t,
                          bool xnack_enabled);

const char *treg_reserved_name(uint8_t set, unsigned i);

/* Why the compiler's own SGPR figure (its .sgpr_count / NumSgprs) differs
 * from al's count, in one sentence into note (cap bytes); "" when they
 * agree or the compiler gave none (compiler < 0). */
void treg_sgpr_note(const treg_alloc *al, int compiler, char *note, size_t cap);

#endif
