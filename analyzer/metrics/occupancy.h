/* Waves per SIMD from register and LDS use, as LLVM computes the
 * "; Occupancy:" figure of the .amdgcn trailer (GCNSubtarget.cpp,
 * AMDGPUBaseInfo.cpp IsaInfo), plus what the author must free to gain one
 * wave.  Pure functions of the target table and their inputs. */
#ifndef TREG_METRICS_OCCUPANCY_H
#define TREG_METRICS_OCCUPANCY_H

#include "targets/targets.h"
#include "treg/report.h" /* TREG_MAX_WAVE_STEPS */

typedef struct treg_occ_input {
    unsigned arch_vgprs;     /* NumVgprs: highest arch VGPR + 1 */
    unsigned agprs;          /* NumAgprs */
    unsigned sgprs;          /* TotalNumSgprs: with VCC/FLAT_SCRATCH/XNACK extras */
    unsigned lds_bytes;      /* per workgroup; 0 when unknown */
    unsigned workgroup_size; /* work-items; 0 when unknown */
    unsigned waves_per_eu;   /* requested minimum (Triton's waves_per_eu), 0 = none */
    unsigned wave_size;      /* 32 or 64 */
    /* Lower end of the flat work-group size range; 0 = 1, as in Triton's
     * "amdgpu-flat-work-group-size"="1,N" (what the trailer was computed with).
     * Set it to workgroup_size to model a launch of exactly that size. */
    unsigned min_workgroup_size;
    /* Upper end of "amdgpu-waves-per-eu"; 0 = waves_per_eu, as Triton 3.5+
     * writes "N, N". Older Triton wrote "N" alone: pass the target's maximum. */
    unsigned waves_per_eu_max;
} treg_occ_input;

typedef struct treg_occ_result {
    /* gfx90a+ with AGPRs: align(arch, 4) + agprs (the unified file); else
     * max(arch, agprs) (AMDGPUMCExpr.cpp evaluateTotalNumVGPR) */
    unsigned total_vgprs;
    unsigned waves;     /* waves per SIMD */
    unsigned max_waves; /* the target's ceiling */
    unsigned vgpr_waves, sgpr_waves;
    unsigned lds_waves; /* work-group size and LDS together (getOccupancyWithWorkGroupSizes) */
    /* "vgpr", "sgpr", "lds", "target", or "workgroup" (work-group size and
     * barriers, no LDS), "waves_per_eu" (the requested maximum) */
    const char *limited_by;
    /* Registers to free so that this resource permits waves + 1. -1 when
     * waves + 1 exceeds the target's ceiling or the resource already permits
     * it (it does not bind). On a tie both report a count: each is necessary,
     * neither alone sufficient. */
    int vgprs_to_next; /* in the unified count */
    int sgprs_to_next; /* in TotalNumSgprs */
    /* vgpr_steps[w - 1]: the most VGPRs (unified count) a wave may hold for
     * the target to run w waves per SIMD, w = 1..nvgpr_steps (max_waves). */
    unsigned vgpr_steps[TREG_MAX_WAVE_STEPS];
    unsigned nvgpr_steps;
} treg_occ_result;

void treg_occupancy(const treg_target *t, const treg_occ_input *in, treg_occ_result *out);

#endif
