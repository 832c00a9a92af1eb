/* Wave-specialised kernels: Hygon gfx946's WASP/WDRA, where the waves of
 * one workgroup split into roles (a loader, one or two MMA roles ...), and
 * each role sets its own VGPR size with s_set_vgpr_size N after branching
 * on its wave id (HYGON-AI/triton-das: ConvertWarpSpecializeToLLVM.cpp,
 * backend/wasp.py).  One .vgpr_count does not hold for every wave, so the
 * roles are found from the code:
 *   - a role starts at a VGPR-size setting (TREG_FX_VGPR_SIZE in the
 *     semantics table: s_set_vgpr_size N) from which no other one is
 *     reachable (WDRA's prologue may set sizes before the dispatch too);
 *   - its code is every instruction that runs with that size in effect
 *     (forward over the CFG; code after roles merge counts for each);
 *   - its wave ids are what the dispatch's compares of one SGPR against
 *     constants (model/scalar.h: s_cmp_* / s_cmpk_* and s_cbranch_scc*) let
 *     through to it;
 *   - its peak is the most VGPRs live there (the rows' counts), its
 *     highest VGPR the highest its code names: past its size the wave
 *     faults;
 *   - the backend's "; BranchRealOrSuggestedVgprs:" / "; BranchAvailableVgprs:"
 *     / "; BranchSpillInfo:" comments, per role in wave-id order, are set
 *     beside each role found at those wave ids;
 *   - occupancy: each SIMD holds one wave of every role, so a workgroup
 *     needs the sizes' sum there: floor(budget / sum) workgroups, times the
 *     roles, waves per SIMD. */
#ifndef TREG_METRICS_WAVE_ROLES_H
#define TREG_METRICS_WAVE_ROLES_H

#include <stddef.h>
#include <stdint.h>

#include "decode/disasm.h"
#include "flow/cfg.h"
#include "model/semantics.h"
#include "text/asm.h"
#include "treg/report.h"
#include "util/arena.h"

/* Roles beyond this many are not followed (WDRA has 2 to 4). */
enum { TREG_MAX_WAVE_ROLES = 16 };

typedef struct treg_roles_input {
    const treg_insn *insns; /* their text gives the sizes and compare constants */
    const treg_insn_effect *fx;
    size_t n;
    const treg_cfg *g;
    const treg_row *rows;            /* per instruction: VGPRs occupied */
    const uint8_t *spill_kind;       /* per instruction: nonzero for a spill or reload */
    uint64_t entry;                  /* the kernel's first address (rows' offsets are from it) */
    uint32_t budget;                 /* the target's VGPRs per SIMD */
    const treg_asm_trailer *trailer; /* the backend's comments, or NULL */
} treg_roles_input;

/* Fills *out (nroles 0 when the code sets no VGPR size).  Arrays and the
 * note are allocated in A.  TREG_E_NOMEM only. */
int treg_wave_roles_find(treg_arena *A, const treg_roles_input *in, treg_wave_roles *out,
                         treg_error *err);

#endif
