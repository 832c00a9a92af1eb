/* Waves per SIMD from register and LDS use, as LLVM computes the
 * "; Occupancy:" figure of the .amdgcn trailer (GCNSubtarget.cpp,
 * AMDGPUBaseInfo.cpp IsaInfo), plus what the author must free to gain one
 * wave.  Pure functions of the target table and their inputs. */
#ifndef TREG_METRICS_OCCUPANCY_H
#define TREG_METRICS_OCCUPANCY_H

#include "targets/targets.h"

typedef struct treg_occ_input {
    unsigned arch_vgprs;     /* NumVgprs: highest arch VGPR + 1 */
    unsigned agprs;          /* NumAgprs */
    unsigned sgprs;          /* TotalNumSgprs: with VCC/FLAT_SCRATCH/XNACK extras */
    unsigned lds_bytes;      /* per workgroup; 0 when unknown */
    unsigned workgroup_size; /* work-items; 0 when unknown */
    unsigned waves_per_eu;   /* requested minimum (Triton's waves_per_eu), 0 = none */
    unsigned wave_size;      /* 32 or 64 */
} treg_occ_input;

typedef struct treg_occ_result {
    unsigned total_vgprs;  /* unified count on gfx90a+: align(arch, 4) + agprs; else max(arch, agprs) */
    unsigned waves;        /* waves per SIMD */
    unsigned max_waves;    /* the target's ceiling */
    unsigned vgpr_waves, sgpr_waves, lds_waves;
    const char *limited_by; /* "vgpr", "sgpr", "lds", "target" */
    int vgprs_to_next;      /* VGPRs (unified count) to free for waves+1 by VGPRs alone; -1 if none */
    int sgprs_to_next;
} treg_occ_result;

void treg_occupancy(const treg_target *t, const treg_occ_input *in, treg_occ_result *out);

#endif
